// Parlor web client entry: the app shell (brand, connection status, name),
// routing between the lobby and a room, and the render loop.

import './style.css';
import { connect, go, loadGamesOverHttp, onRoute, reconnectNow } from './api';
import { firstVisitView, lobbyView, nameForm } from './lobby';
import { leaderboardView, playerView } from './leaderboard';
import { focusOpenDialog, h, renderLoop } from './render';
import { roomView } from './room';
import { replayKeys, replayView } from './replay';
import { identity } from './socket';
import { lowTimeCheck, setSoundOn, soundOn, soundsPlayed } from './sound';
import { changed, onChange, state } from './state';
import { formatLeft } from './tables/common';
import { fitPlayArea } from './fit';
import { rulesKeys, rulesSheet } from './rules';

function statusBadge(): HTMLElement {
  const s = state.status;
  const text = s === 'connected' ? 'connected'
    : s === 'reconnecting' ? `reconnecting${state.retryInMs ? ` in ${Math.ceil(state.retryInMs / 1000)}s` : '…'}`
      : s === 'connecting' ? 'connecting…' : 'offline';
  return h('span', { class: `conn conn-${s}`, 'data-testid': 'conn-status', 'data-status': s, role: 'status', 'aria-live': 'polite' },
    h('span', { class: 'dot', 'aria-hidden': 'true' }), text);
}

// While the socket is down, every page says so at the top of the screen, with what
// that means: nothing can be sent until it is back.
function offlineBanner(): HTMLElement | null {
  if (state.status !== 'reconnecting') return null;
  const wait = state.retryInMs ? ` Trying again in ${Math.ceil(state.retryInMs / 1000)} s.` : ' Trying again…';
  return h('div', { class: 'offline-banner', role: 'alert', 'data-testid': 'offline-banner' },
    h('strong', null, 'Connection lost.'), ` Moves, chat and table buttons are paused until it is back.${wait}`,
    h('button', { type: 'button', 'data-testid': 'reconnect-now', onclick: () => reconnectNow() }, 'Reconnect now'));
}

// The tab title says when it is your turn in the open room.
function updateTitle(): void {
  let title = 'Parlor';
  if (state.route.page === 'room') {
    const r = state.rooms.get(state.route.id);
    const seat = r?.info?.you;
    if (r?.state && typeof seat === 'number' && r.state.to_act.includes(seat)) title = '● Your turn — Parlor';
  }
  if (document.title !== title) document.title = title;
}

// Sound on or off, remembered on this device; `data-played` counts the sounds played.
function soundToggle(): HTMLElement {
  const on = soundOn();
  return h('button', { type: 'button', class: 'link sound-toggle', 'data-testid': 'sound-toggle', 'aria-pressed': on ? 'true' : 'false', 'data-played': soundsPlayed(),
    title: on ? 'Sounds are on: a chime on your turn, a warning when your time runs low' : 'Sounds are off',
    onclick: () => { setSoundOn(!on); changed(); } }, on ? 'Sound on' : 'Sound off');
}

function shell(): HTMLElement {
  updateTitle();
  const hasName = state.name !== '';
  const route = state.route;
  // A finished game's replay needs no identity (it comes over plain HTTP).
  const body = route.page === 'replay' && state.drafts.editingName !== '1' ? replayView(route.id, route.seat, route.game)
    : route.page === 'leaderboard' && state.drafts.editingName !== '1' ? leaderboardView(route.kind)
    : route.page === 'player' && state.drafts.editingName !== '1' ? playerView(route.id)
    : !hasName && !identity.token() ? firstVisitView()
    : state.drafts.editingName === '1' ? h('main', { class: 'lobby' }, nameForm())
      : route.page === 'room' ? roomView(route.id) : lobbyView();
  return h('div', { class: 'app' },
    offlineBanner(),
    rulesSheet(),
    h('header', { class: 'topbar' },
      h('a', { class: 'brand', href: '#/', onclick: (e: Event) => { e.preventDefault(); go({ page: 'lobby' }); } }, h('span', { 'aria-hidden': 'true' }, '♠♥'), ' Parlor'),
      h('div', { class: 'topbar-right' },
        h('a', { class: 'link', href: '#/leaderboard', 'data-testid': 'leaderboard-link', onclick: (e: Event) => { e.preventDefault(); go({ page: 'leaderboard', kind: null }); } }, 'Leaderboard'),
        soundToggle(),
        statusBadge(),
        hasName ? h('span', { class: 'me-name', 'data-testid': 'my-name' }, state.name) : null,
        hasName ? h('button', { type: 'button', class: 'link', 'data-testid': 'rename', onclick: () => { state.drafts.name = state.name; state.drafts.editingName = '1'; changed(); } }, 'change name') : null)),
    body);
}

const root = document.getElementById('app')!;
const draw = renderLoop(root, shell, () => { fitPlayArea(); focusOpenDialog(root); });
window.addEventListener('resize', fitPlayArea);
state.name = identity.name();

// A token means we already have an identity: connect at once and resume. A new
// visitor connects after choosing a name (hello carries the name).
let started = false;
function startIfReady(): void {
  if (started || (!state.name && !identity.token())) return;
  started = true;
  connect();
}

// The games on offer are shown before a newcomer connects (they come over plain HTTP).
if (!state.name && !identity.token()) void loadGamesOverHttp();
onChange(() => { startIfReady(); draw(); });
// Turn timers tick in place: no re-render needed.
setInterval(() => {
  document.querySelectorAll<HTMLElement>('[data-deadline]').forEach((el) => {
    el.textContent = formatLeft(Number(el.dataset.deadline) - Date.now());
  });
  // The player's own turn clock running low is heard, once per turn (sound.ts).
  if (state.route.page === 'room') {
    const r = state.rooms.get(state.route.id);
    const seat = r?.info?.you;
    const left = r?.state?.deadline_ms;
    if (r?.state && typeof seat === 'number' && r.state.to_act.includes(seat) && typeof left === 'number' && state.status === 'connected') {
      lowTimeCheck(`${state.route.id}:${r.state.seq}`, (r.state.receivedAt ?? Date.now()) + left - Date.now());
    }
  }
}, 1000);
window.addEventListener('hashchange', onRoute);
window.addEventListener('keydown', replayKeys);
window.addEventListener('keydown', rulesKeys);
onRoute();
