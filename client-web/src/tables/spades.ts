// Spades: bid 0 (nil) to 13 tricks, then play; partners sit opposite.

import { sortBySuit } from '../cards';
import { describeBid } from '../events';
import type { Move } from '../protocol';
import { arr, field, num, str, strs } from '../protocol';
import { h } from '../render';
import { felt, legalOf, moveButton, playArea, promptBar, scoreTable, TableCtx, teamName } from './common';
import { handCounts } from './bigtwo';
import { lastTrickNote, playHand, trickCentre } from './tricks';

export function spadesTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const phase = str(v.phase);
  const bids = arr(v.bids);
  const tricks = arr(v.tricks_won);
  const counts = handCounts(ctx);
  const hand = sortBySuit(strs(v.hand), 'S');
  const dealer = num(v.dealer, -1);

  const bidMoves = legalOf(ctx, 'bid');
  const controls: HTMLElement[] = [];
  let text = 'play a card';
  if (legalOf(ctx, 'look').length) {
    text = 'look at your cards, or bid blind nil before looking';
    controls.push(moveButton(ctx, 'Look at my cards', { action: 'look' }, 'look', { primary: true }));
  }
  if (bidMoves.length) {
    if (!legalOf(ctx, 'look').length) text = 'bid how many tricks you will take (0 = nil)';
    controls.push(h('div', { class: 'bid-picker', role: 'group', 'aria-label': 'Bid' }, bidMoves.map((m: Move) => {
      if (field(m, 'blind_nil')) return moveButton(ctx, 'Blind nil', m, 'bid-blind-nil', { title: 'Blind nil: before looking at your cards, promise to take no trick (±200)' });
      const n = num(m.tricks, -1);
      return moveButton(ctx, n === 0 ? 'Nil' : String(n), m, `bid-${n}`, {
        title: n === 0 ? 'Nil: you promise to take no trick (+100 if you take none, −100 otherwise)'
          : `${n}: you expect to take ${n} trick${n === 1 ? '' : 's'}; your team scores 10 per trick bid if you and your partner make it together, minus that if not` });
    })));
  }

  if (legalOf(ctx, 'deal').length) {
    text = 'the hand is over';
    controls.push(moveButton(ctx, 'Deal the next hand', { action: 'deal' }, 'deal', { primary: true }));
  }

  const contracts = arr(v.contracts);
  const info = h('div', { class: 'contract-line small', 'data-testid': 'contract' },
    [0, 1].map((team) => h('span', { class: 'team-contract' },
      `${teamName(ctx, team)}: `, typeof contracts[team] === 'number' ? `bid ${contracts[team] as number} · ${tricksTaken(num(arr(v.team_tricks)[team]))}` : 'bidding…')),
    v.spades_broken ? h('span', { class: 'tag' }, '♠ broken') : null,
    lastTrickNote(ctx));

  return h('div', { class: 'table spades', 'data-testid': 'table', 'data-game': 'spades' },
    playArea(felt(ctx, (seat) => ({
      count: counts[seat] ?? null,
      badge: seat === dealer ? 'dealer' : null,
      lines: [
        h('span', { 'data-testid': `bid-of-${seat}` }, bids[seat] === null || bids[seat] === undefined ? (phase === 'bid' || phase === 'look' ? 'bid: …' : '') : `bid ${describeBid(bids[seat])}`),
        phase === 'play' || tricks.some((t) => num(t) > 0) ? h('span', null, `${num(tricks[seat])} won`) : null,
      ],
    }), trickCentre(ctx), info),
    promptBar(ctx, text, controls),
    v.hand === null && ctx.me !== null
      ? h('div', { class: 'hand', 'data-testid': 'hand' }, h('p', { class: 'muted' }, 'Your cards are face down until you look.'))
      : playHand(ctx, hand)),
    scores(ctx));
}

function tricksTaken(n: number): string {
  return `${n} trick${n === 1 ? '' : 's'} taken`;
}

function scores(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const s = arr(v.scores);
  const rows = [0, 1].map((team) => [teamName(ctx, team), String(num(field(s[team], 'points'))), String(num(field(s[team], 'bags')))]);
  const hands = arr(field(v.score_table, 'hands'));
  return h('section', { class: 'panel score-panel' },
    h('h3', null, 'Scores', h('span', { class: 'muted small' }, ` · hand ${num(v.hand_number, 1)} · playing to ${num(v.target, 500)}`)),
    scoreTable(['Team', 'Points', 'Bags'], rows),
    lastHandSummary(ctx),
    hands.length ? h('details', null, h('summary', null, 'Hand by hand'),
      scoreTable(['Hand', teamName(ctx, 0), teamName(ctx, 1)], hands.map((row) => [String(num(field(row, 'hand'))),
        ...[0, 1].map((t) => `${num(arr(field(row, 'points'))[t])} (${num(arr(field(row, 'totals'))[t])})`)]), 'hand-scores')) : null);
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

// The hand just scored, from its hand_end event (the play log of this page): for each team
// the bid against the tricks won, made or set, nil results, bags and the points it brought.
function lastHandSummary(ctx: TableCtx): HTMLElement | null {
  const end = [...ctx.r.log].reverse().find((x) => x.event.type === 'hand_end')?.event;
  if (!end) return null;
  const bids = arr(end.bids);
  const tricks = arr(end.tricks);
  const rows = [0, 1].map((team) => {
    const seats = [team, team + 2];
    // A bid is a number of tricks, "nil" or "blind_nil".
    const nilNotes = seats.filter((s) => bids[s] === 'nil' || bids[s] === 'blind_nil')
      .map((s) => `${ctx.name(s)} ${describeBid(bids[s])}: ${num(tricks[s]) === 0 ? 'made' : `failed (${num(tricks[s])} won)`}`);
    const contract = num(arr(end.contracts)[team]);
    const won = seats.reduce((sum, s) => sum + num(tricks[s]), 0);
    const bagsTaken = num(arr(end.bags_taken)[team]);
    const penalty = num(arr(end.bag_penalty)[team]);
    return [
      teamName(ctx, team),
      seats.map((s) => `${ctx.name(s)} ${describeBid(bids[s])}`).join(', '),
      String(won),
      contract === 0 ? '—' : arr(end.made)[team] ? 'made' : 'set',
      nilNotes.length ? `${nilNotes.join('; ')} (${signed(num(arr(end.nil_points)[team]))})` : '—',
      `${bagsTaken}${penalty ? `, ${signed(-penalty)} for 10 bags` : ''}`,
      signed(num(arr(end.points)[team])),
    ];
  });
  return h('div', { class: 'hand-summary', 'data-testid': 'hand-summary', 'data-hand': num(end.hand, 1) },
    h('h4', null, `Hand ${num(end.hand, 1)}`),
    scoreTable(['Team', 'Bids', 'Won', 'Contract', 'Nil', 'Bags', 'Points'], rows, 'hand-summary-table'));
}
