// The replay viewer: a stored game stepped forward and back, each step drawn by
// the game's own table module from the view that seat (or a spectator) had then,
// read-only. Once the game is over, "Reveal" shows every hand at the deal.

import { cardEl, sortBigTwo, sortBySuit } from './cards';
import { describeMove } from './notation';
import { go, loadReplay, replayData, replayStep } from './api';
import { describeEvent } from './events';
import type { JsonObject, Replay, RoomInfo, SeatInfo, StatePush } from './protocol';
import { arr, field, num, strs } from './protocol';
import { h } from './render';
import { tableFor } from './room';
import { changed, gameName, ReplayData, RoomData, state } from './state';
import { makeCtx } from './tables/common';
import { devCard } from './tables/splendor_catalogue';

// Names for the card lists engines keep besides the hands.
const PILE_NAMES: Record<string, string> = { required: 'must open with', undealt: 'not dealt', kitty: 'kitty', kitty_taken: 'kitty' };

const CARD = /^(?:[2-9TJQKA][CDHS]|BJ|LJ)$/;

export function replayView(id: string, seat: number | null, game: number | null): HTMLElement {
  const d = replayData(id, seat, game);
  const data = d.data;
  if (!data) {
    return h('main', { class: 'replay', 'data-testid': 'replay', 'data-room': id, 'data-loaded': 'false' },
      h('section', { class: 'panel' },
        h('h2', null, 'Replay of table ', h('code', null, id)),
        d.error
          ? h('p', { class: 'error', role: 'alert', 'data-testid': 'replay-error', 'data-code': d.errorCode ?? '' }, d.error)
          : h('p', { class: 'muted' }, 'Loading the replay…'),
        h('div', { class: 'row' },
          d.error ? h('button', { type: 'button', 'data-testid': 'replay-retry', onclick: () => void loadReplay(id, seat, game, true) }, 'Try again') : null,
          seat !== null && d.errorCode === 'not_allowed'
            ? h('button', { type: 'button', 'data-testid': 'replay-as-spectator', onclick: () => go({ page: 'replay', id, seat: null, game }) }, 'Watch as a spectator') : null,
          h('button', { type: 'button', onclick: () => go({ page: 'room', id }) }, 'Open the table'),
          h('button', { type: 'button', onclick: () => go({ page: 'lobby' }) }, 'Lobby'))));
  }
  const steps = data.steps;
  const last = steps.length - 1;
  const at = Math.max(0, Math.min(d.step, last));
  const step = steps[at];
  const r = replayRoom(id, data, at);
  const info = r.info!;
  const ended = data.finished && at === last;
  const st: StatePush = { room: id, seq: step.seq, view: step.view, to_act: step.to_act, prompt: null, events: step.events };
  const ctx = makeCtx(id, r, info, st, data.as);
  ctx.readOnly = true;
  ctx.send = () => {};
  ctx.toggle = () => {};
  ctx.select = () => {};
  const table = tableFor(data.kind, step.view)(ctx);
  const canReveal = data.reveal !== null && (d.seenEnd || at === last);
  const showReveal = canReveal && d.reveal;

  return h('main', {
    class: `replay room kind-${data.kind}`, 'data-testid': 'replay', 'data-room': id, 'data-kind': data.kind, 'data-loaded': 'true',
    'data-seat': data.as ?? 'spectator', 'data-step': at, 'data-steps': steps.length, 'data-game': data.game, 'data-finished': data.finished ? 'true' : 'false',
  },
    h('div', { class: 'room-header' },
      h('div', { class: 'room-heading' },
        h('h1', null, 'Replay · ', gameName(data.kind)),
        h('span', { class: 'tag' }, `game ${data.game}`),
        h('span', { class: `status status-${data.finished ? 'finished' : 'playing'}` }, data.finished ? 'finished' : 'in progress'),
        seatPicker(id, data, info, game)),
      h('div', { class: 'room-tools' },
        !data.finished ? h('button', { type: 'button', 'data-testid': 'replay-refresh', disabled: d.loading, onclick: () => void loadReplay(id, seat, game, true) }, 'Refresh') : null,
        h('button', { type: 'button', 'data-testid': 'replay-to-room', onclick: () => go({ page: 'room', id }) }, 'Back to the table'),
        h('button', { type: 'button', 'data-testid': 'to-lobby', onclick: () => go({ page: 'lobby' }) }, 'Lobby'))),
    controls(d, at, last, canReveal),
    d.error ? h('p', { class: 'error', role: 'alert', 'data-testid': 'replay-error' }, d.error) : null,
    h('div', { class: 'room-grid' },
      h('div', { class: 'table-col' },
        ended ? resultPanel(data, r) : null,
        h('div', { class: 'table-wrap replay-table', 'data-testid': 'replay-table' }, table),
        showReveal ? revealPanel(data, r) : null),
      h('aside', { class: 'side-col' },
        stepPanel(data, r, at),
        historyPanel(d, data, r, at))));
}

function controls(d: ReplayData, at: number, last: number, canReveal: boolean): HTMLElement {
  const go = (to: number) => () => replayStep(d, to);
  return h('div', { class: 'replay-controls panel', role: 'group', 'aria-label': 'Replay controls' },
    h('button', { type: 'button', 'data-testid': 'replay-start', disabled: at === 0, onclick: go(0), title: 'First step (Home)', 'aria-label': 'First step' }, '◀◀'),
    h('button', { type: 'button', 'data-testid': 'replay-back', disabled: at === 0, onclick: go(at - 1), title: 'Step back (←)', 'aria-label': 'Step back' }, '◀ Back'),
    h('span', { class: 'replay-counter', 'data-testid': 'replay-counter', 'data-step': at, 'data-steps': last + 1, role: 'status', 'aria-live': 'polite' },
      at === 0 ? 'The deal' : `Move ${at} of ${last}`, h('span', { class: 'muted small' }, ` · step ${at + 1}/${last + 1}`)),
    h('button', { type: 'button', 'data-testid': 'replay-forward', disabled: at === last, onclick: go(at + 1), title: 'Step forward (→)', 'aria-label': 'Step forward' }, 'Forward ▶'),
    h('button', { type: 'button', 'data-testid': 'replay-end', disabled: at === last, onclick: go(last), title: 'Last step (End)', 'aria-label': 'Last step' }, '▶▶'),
    h('input', { type: 'range', class: 'replay-slider', min: 0, max: last, value: at, 'aria-label': 'Step', 'data-testid': 'replay-slider',
      oninput: (e: Event) => replayStep(d, Number((e.target as HTMLInputElement).value)) }),
    canReveal
      ? h('button', { type: 'button', class: d.reveal ? 'primary' : '', 'data-testid': 'replay-reveal', 'aria-pressed': d.reveal ? 'true' : 'false',
        onclick: () => { d.reveal = !d.reveal; changed(); } }, d.reveal ? 'Hide the deal' : 'Reveal every hand')
      : null);
}

// Who the replay is seen as: any seat once the game is over; while it is on, the
// server allows only your own seat (or the spectator view).
function seatPicker(id: string, data: Replay, info: RoomInfo, game: number | null): HTMLElement {
  return h('label', { class: 'small replay-as' }, 'Seen by ',
    h('select', { 'data-testid': 'replay-seat', onchange: (e: Event) => {
      const v = (e.target as HTMLSelectElement).value;
      const next = v === '' ? null : Number(v);
      // The other seat's replay opens at the same step.
      const other = replayData(id, next, game ?? data.game);
      if (!other.data) other.step = replayData(id, data.as, game).step;
      go({ page: 'replay', id, seat: next, game: game ?? data.game });
    } },
    h('option', { value: '', selected: data.as === null }, 'a spectator'),
    info.seats.map((s, i) => h('option', { value: i, selected: data.as === i }, s && s.name !== `Seat ${i + 1}` ? `${s.name} (seat ${i + 1})` : `seat ${i + 1}`))));
}

function stepPanel(data: Replay, r: RoomData, at: number): HTMLElement {
  const step = data.steps[at];
  const who = typeof step.seat === 'number' ? r.info!.seats[step.seat]?.name ?? `Seat ${step.seat + 1}` : null;
  const lines = step.events.map((e) => describeEvent(r, e)).filter((x) => x !== '');
  return h('section', { class: 'panel' },
    h('h2', null, at === 0 ? 'The deal' : `Move ${at}`, who ? h('span', { class: 'muted small' }, ` · ${who}`) : null),
    step.move ? h('p', { class: 'small', 'data-testid': 'replay-move' }, 'Your move: ', h('strong', null, describeMove(step.move))) : null,
    h('ol', { class: 'log', 'data-testid': 'replay-events', tabindex: 0, 'aria-label': 'This step' },
      lines.length ? lines.map((l) => h('li', null, l)) : h('li', { class: 'muted' }, at === 0 ? 'Cards dealt.' : 'No public event.')));
}

// Every event up to this step, the current one highlighted: the game's story so far.
function historyPanel(d: ReplayData, data: Replay, r: RoomData, at: number): HTMLElement {
  const items: HTMLElement[] = [];
  for (let i = 1; i <= at; i++) {
    const text = data.steps[i].events.map((e) => describeEvent(r, e)).filter((x) => x !== '').join('; ');
    if (!text) continue;
    items.push(h('li', { class: i === at ? 'current' : '' },
      h('button', { type: 'button', class: 'link', onclick: () => replayStep(d, i) }, String(i)), ' ', text));
  }
  return h('section', { class: 'panel log-panel' },
    h('h2', null, 'So far'),
    h('ol', { class: 'log', 'data-scroll-key': 'replay-log', tabindex: 0, 'aria-label': 'The game so far' }, items.slice(-60)));
}

function resultPanel(data: Replay, r: RoomData): HTMLElement {
  const result = data.result ?? {};
  const scores = arr(result.scores);
  const winners = arr(result.winners).filter((x): x is number => typeof x === 'number');
  const name = (s: number) => r.info!.seats[s]?.name ?? `Seat ${s + 1}`;
  return h('section', { class: 'panel results', 'data-testid': 'replay-results' },
    h('h2', null, winners.length ? `${winners.map(name).join(' & ')} won` : 'Game over'),
    scores.length ? h('ol', { class: 'result-list' }, scores.map((sc, seat) => h('li', { class: winners.includes(seat) ? 'winner' : '' },
      h('span', null, name(seat)), h('strong', null, String(num(sc))), winners.includes(seat) ? h('span', { class: 'tag badge' }, 'winner') : ''))) : null);
}

// Every hand at the deal, from reveal.initial. Its shape differs per game, so cards
// are found generically: per-seat arrays of card codes (`hands`, or inside `players`),
// and any other list of cards (the kitty, the undealt rest). Gem Merchants has no
// hands: its shuffled decks are shown instead.
function revealPanel(data: Replay, r: RoomData): HTMLElement {
  const initial = data.reveal!.initial;
  const name = (s: number) => r.info!.seats[s]?.name ?? `Seat ${s + 1}`;
  // Sorted as the game's own hand is: Big Two by its suit order, the others by suit.
  const order = field(data.options, 'suit_order') === 'spades_hearts_diamonds_clubs' ? 'CDHS' : 'DCHS';
  const sorted = (cards: string[]) => (data.kind === 'bigtwo' ? sortBigTwo(cards, order) : sortBySuit(cards));
  const hands = perSeatCards(initial).map(sorted);
  const piles = Object.entries(initial).filter(([k, v]) => k !== 'hands' && isCardList(v) && (v as string[]).length > 0);
  const sections: (HTMLElement | null)[] = [];
  if (hands.length) {
    sections.push(h('div', { class: 'reveal-hands' }, hands.map((cards, seat) => h('div', { class: 'reveal-row', 'data-testid': `reveal-hand-${seat}`, 'data-cards': cards.join(' ') },
      h('span', { class: 'reveal-who' }, name(seat), seat === data.as ? h('span', { class: 'tag' }, 'you') : null),
      h('span', { class: 'inline-cards' }, cards.map((c) => cardEl(c, { small: true })))))));
  }
  for (const [key, cards] of piles) {
    sections.push(h('div', { class: 'reveal-row', 'data-testid': `reveal-${key}` },
      h('span', { class: 'reveal-who' }, PILE_NAMES[key] ?? key.replace(/_/g, ' ')),
      h('span', { class: 'inline-cards' }, sorted(cards as string[]).map((c) => cardEl(c, { small: true })))));
  }
  if (data.kind === 'splendor') {
    const decks = arr(initial.decks);
    decks.forEach((deck, level) => {
      // A deck is drawn from its end: listed top card first.
      const ids = arr(deck).filter((x): x is number => typeof x === 'number').reverse();
      sections.push(h('div', { class: 'reveal-row', 'data-testid': `reveal-deck-${level + 1}` },
        h('span', { class: 'reveal-who' }, `Level ${level + 1} deck`),
        h('span', { class: 'reveal-devs' }, ids.map((id) => {
          const c = devCard(id);
          return c ? h('span', { class: `gem gem-${c.bonus} small square`, title: `level ${c.level} ${c.bonus} card, ${c.points} points` }, String(c.points || '·')) : null;
        }))));
    });
  }
  const moves = data.reveal!.moves;
  return h('section', { class: 'panel reveal', 'data-testid': 'replay-reveal-panel' },
    h('h2', null, data.kind === 'splendor' ? 'The deal, revealed' : 'Every hand at the deal'),
    sections.length ? sections : h('p', { class: 'muted' }, 'No hidden cards in this game.'),
    moves.length ? h('details', null, h('summary', null, `Every move (${moves.length})`),
      h('ol', { class: 'log small', 'data-testid': 'reveal-moves' }, moves.map((m) => h('li', null, `${name(num(m.seat))}: `, describeMove(m.move))))) : null);
}

function isCardList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string' && CARD.test(x));
}

// Per seat, the cards held at the deal: `hands` (an array per seat), or per-seat player
// objects holding a list of cards under any name.
function perSeatCards(initial: JsonObject): string[][] {
  const hands = arr(initial.hands);
  if (hands.length && hands.every(isCardList)) return hands.map((x) => strs(x));
  const players = arr(initial.players);
  if (players.length && players.every((p) => p && typeof p === 'object')) {
    const found = players.map((p) => {
      const list = Object.values(p as Record<string, unknown>).find((v) => isCardList(v) && (v as unknown[]).length > 0);
      return list ? strs(list) : null;
    });
    if (found.some((x) => x !== null)) return found.map((x) => x ?? []);
  }
  return [];
}

// A stand-in room for the table modules: the seats' names from the live room when this
// client knows it (or the lobby list), else "Seat N"; the log is every event so far.
function replayRoom(id: string, data: Replay, at: number): RoomData {
  const live = state.rooms.get(id)?.info ?? state.openRooms.find((x) => x.room === id) ?? null;
  const first = data.steps[0]?.view ?? {};
  const n = live?.seats.length || arr(field(first, 'players')).length || arr(field(first, 'hand_counts')).length
    || arr(field(data.reveal?.initial, 'hands')).length || arr(data.result?.scores).length || num(field(first, 'seats'), 4);
  const seats: (SeatInfo | null)[] = Array.from({ length: n }, (_, i) => {
    const s = live?.seats[i];
    return { seat: i, player: s?.player ?? '', name: s?.name ?? `Seat ${i + 1}`, bot: s?.bot ?? false, connected: true };
  });
  const info: RoomInfo = {
    room: id, kind: data.kind, seats, spectators: 0, you: data.as,
    status: data.finished && at === data.steps.length - 1 ? 'finished' : 'playing',
    options: { ...(live?.options ?? {}), ...data.options },
  };
  const log: RoomData['log'] = [];
  for (let i = 0; i <= at; i++) for (const e of data.steps[i].events) log.push({ seq: data.steps[i].seq, event: e });
  return { info, state: null, chat: [], log, result: null, error: null, errorCode: null, errorSerial: 0, selected: [], watching: true, busy: false, pendingMove: null, epoch: -1 };
}

// Left/Right step, Home/End jump, while a replay is open (not while typing or on a slider).
export function replayKeys(e: KeyboardEvent): void {
  const route = state.route;
  if (route.page !== 'replay' || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target as HTMLElement | null;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
  const d = replayData(route.id, route.seat, route.game);
  if (!d.data) return;
  const last = d.data.steps.length - 1;
  const to = e.key === 'ArrowRight' ? d.step + 1 : e.key === 'ArrowLeft' ? d.step - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? last : null;
  if (to === null) return;
  e.preventDefault();
  replayStep(d, to);
}
