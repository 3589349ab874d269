// A room: header with share link and controls, the game's table (one module per
// game), results with "play again", the seat list and the chat.

import { addBot, type BotLevel, go, joinRoom, leaveRoom, removeSeat, replayKey, sendChat, setMuted, setRoomLocked, startGame, watchRoom } from './api';
import type { JsonObject, Move, RoomInfo } from './protocol';
import { arr, field, num } from './protocol';
import { h } from './render';
import { changed, gameName, locked, mySeat, room, RoomData, seatName, state, tableName } from './state';
import { readable } from './notation';
import { TableCtx, makeCtx, legalOf, moveButton, promptBar, felt, errorLine, playArea } from './tables/common';
import { bigTwoTable } from './tables/bigtwo';
import { spadesTable } from './tables/spades';
import { bidWhistTable } from './tables/bidwhist';
import { agramTable } from './tables/agram';
import { splendorTable } from './tables/splendor';
import { externalTable, isExternalView } from './tables/external';
import { describeEvent } from './events';
import { openRules } from './rules';

export const TABLES: Record<string, (ctx: TableCtx) => HTMLElement> = {
  bigtwo: bigTwoTable,
  spades: spadesTable,
  bidwhist: bidWhistTable,
  agram: agramTable,
  splendor: splendorTable,
};

// The table module for a game: the built-in games by kind; an external game (any kind the
// operator registered, see docs/ENGINES.md) by the shape of its view; else the generic list
// of moves.
export function tableFor(kind: string, view: JsonObject): (ctx: TableCtx) => HTMLElement {
  return TABLES[kind] ?? (isExternalView(view) ? externalTable : genericTable);
}

export function roomView(id: string): HTMLElement {
  const r = room(id);
  const info = r.info;
  if (!info) {
    return h('main', { class: 'room', 'data-testid': 'room-loading' },
      h('section', { class: 'panel' }, h('h2', null, 'Opening the table'),
        r.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'move-error' }, readable(r.error)) : h('p', { class: 'muted' }, 'Opening the table…'),
        h('button', { type: 'button', onclick: () => go({ page: 'lobby' }) }, 'Back to the lobby')));
  }
  const me = mySeat(r);
  return h('main', { class: `room kind-${info.kind}`, 'data-testid': 'room', 'data-room': id, 'data-kind': info.kind, 'data-status': info.status, 'data-seat': me ?? 'spectator', 'data-seq': r.state?.seq ?? -1 },
    header(id, r, me),
    state.drafts[leaveKey(id)] === '1' ? leaveDialog(id) : null,
    h('div', { class: 'room-grid' },
      h('div', { class: 'table-col' }, tableArea(id, r, me)),
      h('aside', { class: 'side-col' }, seatsPanel(id, r, me), logPanel(r), chatPanel(id, r))));
}

// Whether this player may start the game or deal a rematch: the host does, for everyone;
// while the host does not sit at the table (or the room has none), any seated player does.
function startsHere(info: RoomInfo): boolean {
  const hostSeated = !!info.host && info.seats.some((s) => s?.player === info.host);
  return !hostSeated || info.host === state.player;
}

function hostName(info: RoomInfo): string {
  return info.seats.find((s) => s?.player === info.host)?.name || 'The host';
}

function header(id: string, r: RoomData, me: number | null): HTMLElement {
  const info = r.info!;
  const link = `${location.origin}${location.pathname}#/room/${encodeURIComponent(id)}`;
  const full = info.seats.every((s) => s !== null);
  const canStart = me !== null && info.status === 'waiting' && full;
  return h('div', { class: 'room-header' },
    h('div', { class: 'room-heading' },
      h('h1', null, gameName(info.kind)),
      h('span', { class: 'table-name muted', 'data-testid': 'table-name' }, tableName(info)),
      h('span', { class: `status status-${info.status}`, 'data-testid': 'room-status' }, info.status),
      me === null ? h('span', { class: 'tag', 'data-testid': 'spectating' }, 'watching') : h('span', { class: 'tag' }, `seat ${me + 1}`),
      info.spectators ? h('span', { class: 'muted small' }, `${info.spectators} watching`) : null),
    h('div', { class: 'room-tools' },
      h('input', { class: 'share', readonly: true, value: link, 'aria-label': 'Link to this table', 'data-testid': 'share-link', onfocus: (e: Event) => (e.target as HTMLInputElement).select() }),
      h('button', { type: 'button', 'data-testid': 'rules', onclick: () => openRules(info.kind, info.options) }, 'Rules'),
      h('button', { type: 'button', 'data-testid': 'copy-link', onclick: () => { void navigator.clipboard?.writeText(link); } }, 'Copy link'),
      info.status === 'waiting' && me !== null && startsHere(info)
        ? h('button', { type: 'button', class: 'primary', 'data-testid': 'start', disabled: !canStart || locked(r), onclick: () => void startGame(id), title: full ? null : 'Every seat must be filled' }, 'Start')
        : info.status === 'waiting' && me !== null
          ? h('span', { class: 'muted small', 'data-testid': 'host-starts' }, `${hostName(info)} starts the game`)
          : null,
      // Offline a leave could not be sent, and the page would move on as if it had been.
      h('button', { type: 'button', 'data-testid': 'leave', disabled: state.status !== 'connected', title: state.status !== 'connected' ? 'Not connected' : null,
        onclick: () => askToLeave(id, r, me) }, me === null ? 'Stop watching' : 'Leave'),
      h('button', { type: 'button', 'data-testid': 'to-lobby', onclick: () => go({ page: 'lobby' }) }, 'Lobby')));
}

function leaveKey(id: string): string {
  return `leave:${id}`;
}

// Leaving a game under way cannot be undone (a bot takes the seat for good), so it is asked first.
function askToLeave(id: string, r: RoomData, me: number | null): void {
  if (me === null || r.info?.status !== 'playing') {
    void leaveRoom(id);
    return;
  }
  state.drafts[leaveKey(id)] = '1';
  changed();
}

function leaveDialog(id: string): HTMLElement {
  const close = () => { state.drafts[leaveKey(id)] = ''; changed(); };
  return h('div', { class: 'modal-backdrop', onclick: (e: Event) => { if (e.target === e.currentTarget) close(); } },
    h('div', { class: 'panel modal', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'leave-title', 'aria-describedby': 'leave-text', 'data-testid': 'leave-confirm',
      onkeydown: (e: Event) => { if ((e as KeyboardEvent).key === 'Escape') close(); } },
    h('h2', { id: 'leave-title' }, 'Leave this game?'),
    h('p', { id: 'leave-text' }, 'The game goes on without you: a bot takes over your seat and plays it to the end. You cannot come back to this seat.'),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'leave-cancel', 'data-autofocus': 'true', onclick: close }, 'Stay'),
      h('button', { type: 'button', 'data-testid': 'leave-confirm-yes', onclick: () => { close(); void leaveRoom(id); } }, 'Leave and let a bot play'))));
}

function tableArea(id: string, r: RoomData, me: number | null): HTMLElement {
  const info = r.info!;
  if (!r.state || info.status === 'waiting' && !r.state) {
    const filled = info.seats.filter((s) => s !== null).length;
    return h('section', { class: 'panel waiting', 'data-testid': 'waiting' },
      h('h2', null, 'Waiting for players'),
      h('p', null, `${filled} of ${info.seats.length} seats taken.`, me !== null && filled === info.seats.length ? ' Press Start to deal.' : ''),
      r.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'move-error' }, readable(r.error, (s) => seatName(r, s))) : null);
  }
  const ctx = makeCtx(id, r, info, r.state, me);
  const table = tableFor(info.kind, ctx.view)(ctx);
  return h('div', { class: 'table-wrap' }, resultPanel(id, r, ctx), table);
}

// Unknown games still play: legal moves as buttons.
export function genericTable(ctx: TableCtx): HTMLElement {
  const moves = legalOf(ctx);
  return h('div', { class: 'table generic', 'data-testid': 'table' },
    playArea(felt(ctx, () => ({}), h('pre', { class: 'small' }, JSON.stringify(ctx.view, null, 1).slice(0, 1500))),
      promptBar(ctx, 'choose a move', moves.slice(0, 60).map((m: Move, i) => moveButton(ctx, JSON.stringify(m), m, `move-${i}`))), null));
}

function resultPanel(id: string, r: RoomData, ctx: TableCtx): HTMLElement | null {
  const info = r.info!;
  if (info.status !== 'finished' && !r.result) return null;
  // game_over carries the result; after a reload, the view's own fields stand in.
  const result = r.result ?? (field(ctx.view, 'result') as RoomData['result']) ?? null;
  const viewScores = arr(ctx.view.scores);
  const scores = Array.isArray(result?.scores) ? result!.scores
    : viewScores.every((x) => typeof x === 'number') ? viewScores as number[] : [];
  const winners = Array.isArray(result?.winners) ? result!.winners : arr(ctx.view.winners).filter((x): x is number => typeof x === 'number');
  const me = ctx.me;
  return h('section', { class: 'panel results', 'data-testid': 'results', role: 'status' },
    h('h2', null, me !== null && winners.includes(me) ? 'You won!' : winners.length ? `${winners.map((w) => ctx.name(w)).join(' & ')} won` : 'Game over'),
    scores.length ? h('ol', { class: 'result-list' }, info.seats.map((_, seat) => h('li', { class: winners.includes(seat) ? 'winner' : '', 'data-testid': `result-${seat}` },
      h('span', null, ctx.name(seat)), h('strong', null, String(num(scores[seat]))), winners.includes(seat) ? h('span', { class: 'tag badge' }, 'winner') : ''))) : null,
    h('div', { class: 'row' },
      me !== null && info.status === 'finished' && startsHere(info)
        ? h('button', { type: 'button', class: 'primary', 'data-testid': 'play-again', disabled: locked(r), onclick: () => void startGame(id) }, 'Play again')
        : me !== null && info.status === 'finished'
          ? h('span', { class: 'muted small', 'data-testid': 'host-starts' }, `${hostName(info)} may deal a rematch`)
          : null,
      // Step through the game just finished, as this seat saw it (spectators: the public view).
      info.status === 'finished'
        ? h('button', { type: 'button', 'data-testid': 'watch-replay', onclick: () => { state.replays.delete(replayKey(id, me, null)); go({ page: 'replay', id, seat: me, game: null }); } }, 'Watch replay')
        : null),
    errorLine(ctx));
}

const botLevelTitle: Record<BotLevel, string> = {
  easy: 'Plays a random legal move',
  medium: 'Plays a casual player\'s rule of thumb',
  hard: 'Searches: samples the cards it cannot see and plays out the hand',
};

function seatsPanel(id: string, r: RoomData, me: number | null): HTMLElement {
  const info = r.info!;
  // The host's controls, while the room waits.
  const host = info.status === 'waiting' && !!info.host && info.host === state.player;
  return h('section', { class: 'panel seats-panel', 'data-testid': 'seats' },
    h('h2', null, 'Seats'),
    h('ul', { class: 'seat-list' }, info.seats.map((s, seat) => h('li', { 'data-testid': `seat-row-${seat}` },
      h('span', { class: `dot ${s ? (s.connected ? 'on' : 'off') : 'none'}` }),
      s ? h('span', null, s.name, s.bot ? h('span', { class: 'tag' }, 'bot') : null, seat === me ? h('span', { class: 'tag' }, 'you') : null, s.connected ? '' : h('span', { class: 'warn small' }, ' disconnected'))
        : h('span', { class: 'muted' }, `Seat ${seat + 1}: open`),
      !s && me === null && info.status === 'waiting'
        ? h('button', { type: 'button', class: 'primary small-btn', 'data-testid': `sit-${seat}`, disabled: locked(r), onclick: () => void joinRoom(id, seat) }, 'Sit here') : null,
      !s && me !== null && info.status === 'waiting'
        ? h('span', { class: 'bot-levels', 'data-testid': `add-bot-${seat}` }, 'Add bot: ',
          ...(['easy', 'medium', 'hard'] as BotLevel[]).map((level) =>
            h('button', { type: 'button', class: 'small-btn', 'data-testid': `add-bot-${seat}-${level}`, title: botLevelTitle[level], disabled: locked(r), onclick: () => void addBot(id, seat, level) }, level))) : null,
      s && host && seat !== me
        ? h('button', { type: 'button', class: 'small-btn', 'data-testid': `remove-seat-${seat}`, title: s.bot ? 'Take this bot off the table' : 'Take this player off the table', disabled: locked(r), onclick: () => void removeSeat(id, seat) }, 'Remove') : null))),
    host
      ? h('button', { type: 'button', 'data-testid': 'lock-toggle', 'aria-pressed': info.locked ? 'true' : 'false', title: info.locked ? 'Let new players sit down again' : 'Nobody new may sit down', disabled: locked(r), onclick: () => void setRoomLocked(id, !info.locked) }, info.locked ? 'Unlock room' : 'Lock room')
      : info.locked && info.status === 'waiting' ? h('p', { class: 'muted small', 'data-testid': 'room-locked' }, 'The host locked this room.') : null,
    me === null && !r.watching ? h('button', { type: 'button', 'data-testid': 'watch', onclick: () => void watchRoom(id) }, 'Watch') : null,
    me === null && info.status !== 'waiting' ? h('p', { class: 'muted small' }, 'You are watching this game.') : null);
}

function logPanel(r: RoomData): HTMLElement {
  const lines = r.log.slice(-40).map((x) => describeEvent(r, x.event)).filter((x) => x !== '');
  return h('section', { class: 'panel log-panel' },
    h('h2', null, 'Play log'),
    h('ol', { class: 'log', 'data-scroll-key': 'log', 'data-testid': 'log', tabindex: 0, 'aria-label': 'Play log' }, lines.map((l) => h('li', null, l))));
}

function chatPanel(id: string, r: RoomData): HTMLElement {
  const key = `chat:${id}`;
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const text = state.drafts[key] ?? '';
    if (await sendChat(id, text)) { state.drafts[key] = ''; changed(); }
  };
  return h('section', { class: 'panel chat-panel', 'data-testid': 'chat' },
    h('h2', null, 'Chat'),
    h('ol', { class: 'chat-log', 'data-scroll-key': 'chat', 'data-testid': 'chat-log', tabindex: 0, 'aria-label': 'Chat messages' },
      r.chat.map((c) => h('li', null, h('strong', null, c.name || c.player), ': ', c.text,
        c.player && c.player !== state.player
          ? h('button', { type: 'button', class: 'small-btn', 'data-testid': 'mute', title: `Stop showing ${c.name || 'this player'}'s messages`, 'aria-label': `Mute ${c.name || 'this player'}`, onclick: () => void setMuted(id, c.player, c.name, true) }, 'Mute')
          : null))),
    state.muted.size
      ? h('p', { class: 'muted small', 'data-testid': 'muted-list' }, 'Muted: ',
        ...[...state.muted].map(([player, name]) => h('button', { type: 'button', class: 'small-btn', 'data-testid': 'unmute', onclick: () => void setMuted(id, player, name, false) }, `Unmute ${name || player}`)))
      : null,
    h('form', { class: 'row', onsubmit: (e: Event) => void submit(e) },
      h('label', { class: 'sr-only', for: 'chat-input' }, 'Message'),
      h('input', { id: 'chat-input', 'data-testid': 'chat-input', maxlength: 500, autocomplete: 'off', placeholder: 'Say something',
        value: state.drafts[key] ?? '', oninput: (e: Event) => { state.drafts[key] = (e.target as HTMLInputElement).value; } }),
      h('button', { type: 'submit', 'data-testid': 'chat-send', disabled: state.status !== 'connected', title: state.status !== 'connected' ? 'Not connected' : null }, 'Send')));
}
