// Big Two: pick one or more cards and play them, or pass. The last play and who
// passed since sit in the centre.
//
// Selection policy (documented in README): on your turn every card can be
// selected; "Play" is enabled whenever at least one card is selected, and is
// marked legal (data-legal="true") only when the selection equals one of
// prompt.legal's card sets. An illegal selection may still be sent: the server
// refuses it and its message is shown. "Hint" cycles through the legal plays.

import { short, sortBigTwo } from '../cards';
import type { Move } from '../protocol';
import { arr, field, num, str, strs } from '../protocol';
import { h } from '../render';
import { Arrivals } from '../motion';
import { state } from '../state';
import { cardsInline, felt, handEl, legalOf, moveButton, playArea, promptBar, sameSet, scoreTable, slotOf, TableCtx } from './common';

export function bigTwoTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const hand = sortBigTwo(strs(v.hand), suitOrder(ctx));
  const counts = handCounts(ctx);
  const plays = legalOf(ctx, 'play');
  const playSets = plays.map((m) => strs(m.cards ?? (m.card ? [m.card] : [])));
  const canPass = legalOf(ctx, 'pass').length > 0;
  const inSomePlay = new Set(playSets.flat());
  const sel = ctx.r.selected;
  const selLegal = sel.length > 0 && playSets.some((s) => sameSet(s, sel));
  const passed = passedSeats(ctx);
  // When a deal ends the engine clears the table: show the winning play from the log instead.
  const last = lastPlay(ctx) ?? (str(v.phase) === 'finished' ? lastLoggedPlay(ctx) : null);

  // A play new since the last render slides in from its player's side (motion.ts).
  const arrivals = new Arrivals(ctx.id, 'play');
  const moving = last === null ? null : arrivals.movingFor(`${last.seat}:${last.cards.join(',')}`);
  arrivals.done();
  const centre = h('div', { class: 'bigtwo-centre', 'data-testid': 'last-play' },
    last
      ? [h('div', { class: `play-cards${moving === null ? '' : ' arrive'}`, 'data-seat': last.seat, 'data-from': slotOf(ctx, last.seat), style: `--n:${last.cards.length}${moving === null ? '' : `;--since:-${moving}ms`}` }, last.cards.map((c) => cardsInline([c]))),
        h('div', { class: 'play-by small' }, `${ctx.name(last.seat)}${last.combo ? ` · ${last.combo.replace(/_/g, ' ')}` : ''}`)]
      : h('div', { class: 'muted' }, str(v.phase) === 'finished' ? 'Deal over' : 'Fresh lead: any combination'),
    passed.length ? h('div', { class: 'passed-line small', 'data-testid': 'passed' }, `Passed: ${passed.map((s) => ctx.name(s)).join(', ')}`) : null);

  const hintKey = `hint:${ctx.id}`;
  const hint = () => {
    if (!playSets.length) return;
    const i = (Number.parseInt(state.drafts[hintKey] ?? '-1', 10) + 1) % playSets.length;
    state.drafts[hintKey] = String(i);
    ctx.select(playSets[i]);
  };
  const play = () => ctx.send({ action: 'play', cards: sortBigTwo(sel, suitOrder(ctx)) } as Move);
  const controls = [
    h('button', { type: 'button', class: `primary${selLegal ? '' : ' dubious'}`, 'data-testid': 'play', 'data-legal': selLegal ? 'true' : 'false',
      disabled: sel.length === 0 || ctx.locked || plays.length === 0, onclick: play,
      title: selLegal ? null : sel.length ? 'Not one of your legal plays: the server will say why' : 'Select cards first' },
    sel.length ? `Play ${sel.length} card${sel.length === 1 ? '' : 's'}` : 'Play'),
    moveButton(ctx, 'Pass', { action: 'pass' }, 'pass', { enabled: canPass, title: canPass ? undefined : 'You lead: a fresh lead cannot be passed' }),
    h('button', { type: 'button', 'data-testid': 'hint', disabled: playSets.length === 0, onclick: hint }, 'Hint'),
    h('button', { type: 'button', 'data-testid': 'clear-selection', disabled: sel.length === 0, onclick: () => ctx.select([]) }, 'Clear'),
    h('span', { class: 'small muted sel-note', 'data-testid': 'selection-note' },
      sel.length === 0 ? (playSets.length ? `${playSets.length} legal play${playSets.length === 1 ? '' : 's'}` : '') : selLegal ? 'legal play' : 'not a legal play'),
  ];

  return h('div', { class: 'table bigtwo', 'data-testid': 'table', 'data-game': 'bigtwo' },
    playArea(felt(ctx, (seat) => ({
      count: counts[seat] ?? null,
      passed: passed.includes(seat),
      lines: scoreLine(ctx, seat),
    }), centre),
    promptBar(ctx, [
      plays.length ? (canPass ? 'beat the last play or pass' : 'lead any combination') : 'pass',
      str(v.must_include) ? h('span', { class: 'muted' }, ` (the opening play must include ${short(str(v.must_include))})`) : null,
    ], controls),
    handEl(ctx, {
      cards: hand,
      enabled: () => ctx.myTurn && !ctx.locked && plays.length > 0,
      playable: (c) => ctx.myTurn && inSomePlay.has(c),
      selected: sel,
      onClick: (c) => ctx.toggle(c),
      label: 'Your hand, lowest to highest',
    })),
    scores(ctx));
}

// Default ♠ ♥ ♣ ♦ (diamonds lowest); the variant ♠ ♥ ♦ ♣ has clubs lowest.
function suitOrder(ctx: TableCtx): string {
  const value = field(ctx.view, 'suit_order') ?? field(ctx.info.options, 'suit_order');
  return value === 'spades_hearts_diamonds_clubs' ? 'CDHS' : 'DCHS';
}

export function handCounts(ctx: TableCtx): number[] {
  const v = ctx.view;
  const direct = v.hand_counts ?? v.counts ?? v.card_counts;
  if (Array.isArray(direct)) return direct.map((x) => num(x, 0));
  const players = arr(v.players ?? v.seats);
  if (players.length) return players.map((p) => num(field(p, 'cards') ?? field(p, 'count') ?? field(p, 'hand_count'), 0));
  return [];
}

function passedSeats(ctx: TableCtx): number[] {
  const v = ctx.view;
  const p = v.passed ?? v.passes;
  if (Array.isArray(p)) {
    if (p.every((x) => typeof x === 'boolean')) return p.map((x, i) => (x ? i : -1)).filter((i) => i >= 0);
    return p.filter((x): x is number => typeof x === 'number');
  }
  return [];
}

function lastPlay(ctx: TableCtx): { seat: number; cards: string[]; combo: string } | null {
  const v = ctx.view;
  const t = v.last_play ?? v.table ?? v.current ?? v.top;
  if (!t || typeof t !== 'object') return null;
  const cards = strs(field(t, 'cards'));
  if (!cards.length) return null;
  return { seat: num(field(t, 'seat'), 0), cards: sortBigTwo(cards, suitOrder(ctx)), combo: str(field(t, 'combo') ?? field(t, 'combination') ?? field(t, 'type')) };
}

function lastLoggedPlay(ctx: TableCtx): { seat: number; cards: string[]; combo: string } | null {
  for (let i = ctx.r.log.length - 1; i >= 0; i--) {
    const e = ctx.r.log[i].event;
    if (e.type === 'play' && Array.isArray(e.cards)) {
      return { seat: num(e.seat), cards: sortBigTwo(strs(e.cards), suitOrder(ctx)), combo: str(e.combination) };
    }
  }
  return null;
}

function scoreLine(ctx: TableCtx, seat: number): string[] {
  const s = arr(ctx.view.scores);
  return typeof s[seat] === 'number' ? [`score ${s[seat] as number}`] : [];
}

function scores(ctx: TableCtx): HTMLElement | null {
  const s = arr(ctx.view.scores);
  if (!s.length) return null;
  const deal = field(ctx.view, 'deal');
  const deals = field(ctx.view, 'deals');
  const last = field(ctx.view, 'last_deal');
  const lastScores = arr(field(last, 'scores'));
  const left = arr(field(last, 'cards_left'));
  return h('section', { class: 'panel score-panel' },
    h('h3', null, 'Scores', typeof deal === 'number' ? h('span', { class: 'muted small' }, ` · deal ${deal}${typeof deals === 'number' ? ` of ${deals}` : ''}`) : null),
    scoreTable(['', ...s.map((_, i) => ctx.name(i))], [
      ['Total', ...s.map((x) => String(num(x)))],
      ...(last ? [[`Deal ${num(field(last, 'deal'), 1)}`, ...s.map((_, i) => `${num(lastScores[i])} (${num(left[i])} left)`)]] : []),
    ]),
    countedHands(ctx));
}

// The cards each loser held when the last deal ended, laid face up to be counted: from the
// deal_over event this page saw or, once the game is over, from the view (after a reload).
function countedHands(ctx: TableCtx): HTMLElement | null {
  const last = field(ctx.view, 'last_deal');
  if (!last) return null;
  const deal = num(field(last, 'deal'), 1);
  let hands = arr(field(last, 'hands'));
  if (!hands.length) {
    const end = [...ctx.r.log].reverse().find((x) => x.event.type === 'deal_over')?.event;
    if (end && num(end.deal, 1) === deal) hands = arr(end.hands);
  }
  const losers = hands.map((cards, seat) => ({ seat, cards: sortBigTwo(strs(cards), suitOrder(ctx)) })).filter((x) => x.cards.length > 0);
  if (!losers.length) return null;
  const points = arr(field(last, 'scores'));
  return h('div', { class: 'counted-hands', 'data-testid': 'counted-hands', 'data-deal': deal },
    h('h4', null, `Cards left at the end of deal ${deal}`),
    h('ul', null, losers.map(({ seat, cards }) => h('li', { 'data-seat': seat },
      h('span', { class: 'counted-name' }, `${ctx.name(seat)}: `), cardsInline(cards),
      h('span', { class: 'muted small' }, ` ${cards.length} left, ${num(points[seat])}`)))));
}
