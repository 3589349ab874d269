// Pieces every table shares: the felt with seats around it, seat boxes, the
// hand, the prompt bar with the server's refusal message, move buttons, the
// trick in the centre and score tables. Game modules compose these from the
// server's view; nothing here decides legality.

import { backEl, cardEl, short } from '../cards';
import { sendMove } from '../api';
import type { JsonObject, Move, Prompt, RoomInfo, StatePush } from '../protocol';
import { arr, field, num, str } from '../protocol';
import { h } from '../render';
import { Arrivals } from '../motion';
import { readable } from '../notation';
import { changed, locked, RoomData, seatName, state } from '../state';

type Child = Parameters<typeof h>[2];

export interface TableCtx {
  id: string;
  r: RoomData;
  info: RoomInfo;
  st: StatePush;
  view: JsonObject;
  me: number | null;
  n: number;
  prompt: Prompt | null;
  myTurn: boolean;
  // The socket is down: nothing can be sent, the turn timer is not known.
  offline: boolean;
  // Controls that send must wait (offline, or a request in flight).
  locked: boolean;
  // A replay: the table is drawn from a past step and nothing can be played.
  readOnly?: boolean;
  name(seat: number): string;
  send(move: Move): void;
  toggle(card: string): void;
  select(cards: string[]): void;
}

export function makeCtx(id: string, r: RoomData, info: RoomInfo, st: StatePush, me: number | null): TableCtx {
  const prompt = me !== null && st.to_act.includes(me) ? st.prompt : null;
  const offline = state.status !== 'connected';
  return {
    id, r, info, st, me, prompt, offline,
    locked: locked(r),
    view: st.view,
    n: info.seats.length || num(field(st.view, 'seats'), 4),
    myTurn: prompt !== null,
    name: (seat) => seatName(r, seat),
    send: (move) => { void sendMove(id, move); },
    toggle: (card) => {
      r.selected = r.selected.includes(card) ? r.selected.filter((c) => c !== card) : [...r.selected, card];
      if (r.errorCode && r.errorCode !== 'disconnected') { r.error = null; r.errorCode = null; }
      changed();
    },
    select: (cards) => {
      r.selected = [...cards];
      if (r.errorCode && r.errorCode !== 'disconnected') { r.error = null; r.errorCode = null; }
      changed();
    },
  };
}

// Legal moves of the prompt with the given action.
export function legalOf(ctx: TableCtx, action?: string): Move[] {
  const legal = (ctx.prompt?.legal ?? []) as Move[];
  return action ? legal.filter((m) => m && m.action === action) : legal;
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

// Where seat `seat` sits on screen: 0 = bottom (you), then clockwise from your left.
export function relative(ctx: TableCtx, seat: number): number {
  const base = ctx.me ?? 0;
  return (seat - base + ctx.n) % ctx.n;
}

// Named places around the felt, per table size, clockwise from you at the bottom.
// Plates hug the felt's edges and the trick's cards sit in a compact group in the
// middle (style.css), so neither runs off a small screen nor covers the other.
const SLOTS: Record<number, string[]> = {
  2: ['bottom', 'top'],
  3: ['bottom', 'top-left', 'top-right'],
  4: ['bottom', 'left', 'top', 'right'],
  5: ['bottom', 'left', 'top-left', 'top-right', 'right'],
};

export function slotOf(ctx: TableCtx, seat: number): string {
  return SLOTS[ctx.n]?.[relative(ctx, seat)] ?? 'ring';
}

// Tables larger than the named layouts: seats around an ellipse.
function ringPosition(ctx: TableCtx, seat: number, radiusX: number, radiusY: number): string | null {
  if (SLOTS[ctx.n]) return null;
  const theta = (relative(ctx, seat) * 2 * Math.PI) / ctx.n;
  const x = 50 - radiusX * Math.sin(theta);
  const y = 50 + radiusY * Math.cos(theta);
  return `left:${x.toFixed(1)}%;top:${y.toFixed(1)}%`;
}

export interface SeatExtras {
  count?: number | null;        // cards held (drawn as backs for others)
  lines?: Child[];             // bids, tricks, scores
  badge?: string | null;        // "dealer", "declarer", ...
  passed?: boolean;
}

export function seatBox(ctx: TableCtx, seat: number, extra: SeatExtras): HTMLElement {
  const s = ctx.info.seats[seat];
  const turn = ctx.st.to_act.includes(seat);
  const cls = ['seat', `rel-${relative(ctx, seat)}`];
  if (turn) cls.push('turn');
  if (seat === ctx.me) cls.push('me');
  if (s && !s.connected) cls.push('offline');
  if (extra.passed) cls.push('passed');
  const count = extra.count;
  const who = s ? s.name : `Seat ${seat + 1} (empty)`;
  return h('div', {
    class: cls.join(' '), style: ringPosition(ctx, seat, 40, 37), 'data-slot': slotOf(ctx, seat), 'data-testid': `seat-${seat}`,
    'data-seat': seat, 'data-turn': turn ? 'true' : 'false', 'aria-current': turn ? 'true' : null,
  },
    h('div', { class: 'seat-name' },
      h('span', { class: `dot ${s?.connected ? 'on' : 'off'}`, title: s ? (s.connected ? 'connected' : 'disconnected') : 'empty' }),
      h('span', { class: 'who', title: who }, who),
      s?.bot ? h('span', { class: 'tag' }, 'bot') : null,
      seat === ctx.me ? h('span', { class: 'tag' }, 'you') : null),
    h('div', { class: 'seat-info small' },
      // On the second line, so a narrow plate still shows the name.
      extra.badge ? h('span', { class: 'tag badge' }, extra.badge) : null,
      typeof count === 'number'
        ? h('span', { class: 'seat-cards', 'data-testid': `seat-${seat}-count`, 'data-count': count, title: `${count} cards` },
          seat !== ctx.me ? h('span', { class: 'fan', 'aria-hidden': 'true' }, Array.from({ length: Math.min(count, 13) }, () => backEl(true))) : null,
          h('span', { class: 'count' }, `${count} card${count === 1 ? '' : 's'}`))
        : null,
      extra.lines?.length ? h('span', { class: 'seat-lines' }, extra.lines) : null,
      turn ? h('span', { class: 'turn-flag' }, '● to act') : null,
      s && !s.connected ? h('span', { class: 'warn' }, 'disconnected') : null,
      extra.passed ? h('span', { class: 'muted' }, 'passed') : null));
}

// The felt: seat boxes around, `centre` in the middle.
export function felt(ctx: TableCtx, extras: (seat: number) => SeatExtras, centre: Child, info: Child = null): HTMLElement {
  const seats: HTMLElement[] = [];
  for (let s = 0; s < ctx.n; s++) seats.push(seatBox(ctx, s, extras(s)));
  return h('div', { class: 'felt-wrap' },
    h('div', { class: 'table-info small', 'data-testid': 'table-info' }, info),
    h('div', { class: `felt n${ctx.n}`, 'data-testid': 'felt' }, h('div', { class: 'centre', 'data-testid': 'centre' }, centre), seats));
}

// What a player acts on, in one screen: the felt takes the height left over by the
// prompt and the hand (see fit.ts), and the hand sits at the bottom, so a prompt that
// grows or shrinks never moves the cards.
export function playArea(feltEl: HTMLElement, prompt: HTMLElement, hand: HTMLElement | null): HTMLElement {
  return h('div', { class: 'play-area', 'data-testid': 'play-area' }, feltEl, prompt, hand);
}

// Cards on the table, each placed in front of the seat that played it.
// The trick in the centre; `winner` set: a completed trick, its winning card marked. A card
// new since the last render slides in from its player's side; a trick just won makes its
// winning card glow once (motion.ts).
export function trickEl(ctx: TableCtx, plays: { seat: number; card: string }[], winner: number | null = null): HTMLElement {
  const arrivals = new Arrivals(ctx.id, winner === null ? 'trick' : 'won');
  const won = winner === null ? null : arrivals.movingFor(plays.map((p) => `${p.seat}:${p.card}`).join(' '));
  const el = h('div', { class: 'trick', 'data-testid': 'trick' }, plays.map((p, i) => {
    const moving = winner === null ? arrivals.movingFor(`${p.seat}:${p.card}`) : winner === p.seat ? won : null;
    return h('div', {
      class: `trick-card${winner === p.seat ? ' winner' : ''}${moving === null ? '' : winner === null ? ' arrive' : ' won-now'}`,
      style: `${ringPosition(ctx, p.seat, 13, 17) ?? ''};z-index:${i + 1}${moving === null ? '' : `;--since:-${moving}ms`}`,
      'data-seat': p.seat, 'data-slot': slotOf(ctx, p.seat),
    }, cardEl(p.card, { small: false, title: `${ctx.name(p.seat)}: ${short(p.card)}` }));
  }));
  arrivals.done();
  return el;
}

export interface HandOptions {
  cards: string[];
  enabled: (card: string) => boolean;
  onClick: (card: string) => void;
  selected?: string[];
  playable?: (card: string) => boolean;
  label?: string;
  // Why the greyed cards cannot be played now ("you must follow ♥"), shown over the hand.
  reason?: string | null;
}

// Your hand: a fixed-height row so nothing below moves when it changes. Cards
// overlap more as the hand grows; a selected card lifts without changing layout.
export function handEl(ctx: TableCtx, opts: HandOptions): HTMLElement {
  if (ctx.me === null) return h('div', { class: 'hand spectator', 'data-testid': 'hand', 'data-spectator': 'true' }, h('p', { class: 'muted' }, 'You are watching: hands are hidden.'));
  const n = Math.max(opts.cards.length, 1);
  return h('div', { class: `hand${ctx.myTurn ? ' my-turn' : ''}`, 'data-testid': 'hand', role: 'group', 'aria-label': opts.label ?? 'Your hand', style: `--n:${n}`, onkeydown: arrowKeys },
    opts.reason ? h('div', { class: 'hand-hint small', 'data-testid': 'hand-hint' }, opts.reason) : null,
    opts.cards.map((c) => {
      const enabled = opts.enabled(c);
      return cardEl(c, {
        selected: opts.selected?.includes(c),
        disabled: !enabled,
        playable: opts.playable ? opts.playable(c) : enabled,
        onClick: () => opts.onClick(c),
        title: !enabled && opts.reason ? opts.reason : undefined,
      });
    }));
}

// Left/Right (and Home/End) move between the cards of the hand; Enter or Space clicks.
function arrowKeys(ev: Event): void {
  const e = ev as KeyboardEvent;
  const group = e.currentTarget as HTMLElement;
  const buttons = [...group.querySelectorAll<HTMLButtonElement>('button[data-card]:not([disabled])')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0) return;
  const to = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : null;
  if (to === null) return;
  e.preventDefault();
  buttons[Math.max(0, Math.min(buttons.length - 1, to))].focus();
}

// The line that says whose turn it is, plus the server's reason for a refusal.
export function promptBar(ctx: TableCtx, text: Child, controls: Child = null): HTMLElement {
  const waiting = ctx.st.to_act.filter((s) => s !== ctx.me).map((s) => ctx.name(s));
  const status = ctx.info.status;
  const line = ctx.myTurn ? text
    : ctx.readOnly ? (ctx.st.to_act.length ? `${ctx.st.to_act.map((s) => (s === ctx.me ? 'You' : ctx.name(s))).join(', ')} to act` : status === 'finished' ? 'The game is over.' : '')
      : status === 'finished' ? 'The game is over.'
      : waiting.length ? `Waiting for ${waiting.join(', ')}…` : status === 'waiting' ? 'Waiting for the game to start.' : '';
  return h('div', { class: `prompt${ctx.myTurn ? ' active' : ''}`, 'data-testid': 'prompt', 'data-my-turn': ctx.myTurn ? 'true' : 'false' },
    h('div', { class: 'prompt-text', 'data-testid': 'prompt-text' }, ctx.myTurn ? h('strong', null, 'Your turn: ') : null, line, turnTimer(ctx)),
    ctx.offline && !ctx.readOnly && ctx.myTurn
      ? h('div', { class: 'prompt-offline', 'data-testid': 'prompt-offline' }, 'Not connected: your cards and buttons come back when the connection does.')
      : null,
    ctx.myTurn ? h('div', { class: 'prompt-controls' }, controls) : null,
    errorLine(ctx));
}

// A countdown for rooms with turn timers; main.ts ticks [data-deadline] elements.
// Offline, the server's clock runs on unseen (it may move for a player who runs out),
// so no countdown is shown rather than one that may be wrong.
function turnTimer(ctx: TableCtx): HTMLElement | null {
  const left = ctx.st.deadline_ms;
  if (typeof left !== 'number' || !ctx.st.to_act.length) return null;
  if (ctx.offline && !ctx.readOnly) return h('span', { class: 'timer stale', 'data-testid': 'turn-timer', 'data-stale': 'true' }, ' · clock unknown while offline');
  const at = (ctx.st.receivedAt ?? Date.now()) + left;
  return h('span', { class: 'timer', 'data-deadline': at, 'data-testid': 'turn-timer' }, formatLeft(at - Date.now()));
}

export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return ` · ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} left`;
}

export function errorLine(ctx: TableCtx): HTMLElement {
  const r = ctx.r;
  // Reserved space: an error appearing does not push the hand down.
  return h('div', { class: 'move-error', role: 'alert', 'data-testid': 'move-error', 'data-code': r.errorCode ?? '', 'data-serial': r.errorSerial },
    r.error ? [r.errorCode === 'stale_state' ? 'The table moved on; showing the latest state. ' : '', readable(r.error, ctx.name)] : '');
}

export function moveButton(ctx: TableCtx, label: Child, move: Move, testid: string, opts: { primary?: boolean; enabled?: boolean; title?: string } = {}): HTMLElement {
  const enabled = opts.enabled ?? true;
  return h('button', {
    type: 'button', class: opts.primary ? 'primary' : '', 'data-testid': testid,
    disabled: !enabled || ctx.locked, title: opts.title ?? null,
    onclick: () => ctx.send(move),
  }, label);
}

// The current trick as [{seat, card}] from the usual shapes engines use.
export function playsOf(v: unknown): { seat: number; card: string }[] {
  const list = Array.isArray(v) ? v : arr(field(v, 'plays') ?? field(v, 'cards'));
  return list.map((p) => ({ seat: num(field(p, 'seat'), -1), card: str(field(p, 'card')) }))
    .filter((p) => p.seat >= 0 && p.card !== '');
}

export function teamName(ctx: TableCtx, team: number): string {
  // Partners sit opposite: team 0 = seats 0+2, team 1 = seats 1+3.
  return `${ctx.name(team)} & ${ctx.name(team + 2)}`;
}

export function scoreTable(headers: Child[], rows: Child[][], testid = 'scores'): HTMLElement {
  return h('table', { class: 'scores', 'data-testid': testid },
    h('thead', null, h('tr', null, headers.map((x) => h('th', null, x)))),
    h('tbody', null, rows.map((row) => h('tr', null, row.map((x) => h('td', null, x))))));
}

export function cardsInline(cards: string[]): HTMLElement {
  return h('span', { class: 'inline-cards' }, cards.map((c) => cardEl(c, { small: true })));
}
