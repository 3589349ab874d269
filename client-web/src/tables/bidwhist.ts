// Bid Whist: auction (books 3–7 uptown / downtown / no trump, or pass), the
// winner declares trump or direction, takes the kitty and discards six, then
// twelve tricks. Jokers are top trumps in a suit contract.

import { SUIT_SYMBOL, sortBySuit } from '../cards';
import { describeBid } from '../events';
import type { Move } from '../protocol';
import { arr, field, num, str, strs } from '../protocol';
import { h } from '../render';
import { felt, handEl, legalOf, moveButton, playArea, promptBar, scoreTable, TableCtx, teamName } from './common';
import { handCounts } from './bigtwo';
import { lastTrickNote, playHand, trickCentre } from './tricks';

const TYPE_LABEL: Record<string, string> = { uptown: 'Uptown', downtown: 'Downtown', no_trump: 'No trump' };
// What each kind of bid means, from docs/RULES.md, for the bid picker's labels.
const TYPE_HELP: Record<string, string> = {
  uptown: 'Uptown: high cards win (A K Q … 2); you name trump if you win the auction.',
  downtown: 'Downtown: low cards win (A 2 3 … K, the ace still highest); you name trump if you win the auction.',
  no_trump: 'No trump: no trump suit, jokers never win; you choose uptown or downtown. Beats a suit bid of the same number and scores double.',
};

export function bidWhistTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const phase = str(v.phase);
  const contract = v.contract && typeof v.contract === 'object' ? v.contract : null;
  const trump = str(field(contract, 'trump')) || null;
  const downtown = str(field(contract, 'direction')) === 'downtown';
  const hand = sortBySuit(strs(v.hand), trump, downtown ? 'KQJT98765432A' : '23456789TJQKA');
  const counts = handCounts(ctx);
  const bids = arr(v.bids);
  const tricks = arr(v.tricks_won);
  const dealer = num(v.dealer, -1);
  const declarer = contract ? num(field(contract, 'declarer'), -1) : -1;
  const auction = phase === 'bidding';

  let text: string = 'play a card';
  let controls: HTMLElement[] = [];
  let handView: HTMLElement | null = null;
  const choose = ctx.prompt?.choose;
  if (legalOf(ctx, 'bid').length || legalOf(ctx, 'pass').length) {
    text = legalOf(ctx, 'pass').length ? 'bid or pass' : 'you must bid';
    controls = [bidPicker(ctx)];
  } else if (legalOf(ctx, 'declare').length) {
    text = field(contract, 'type') === 'no_trump' ? 'choose the direction' : 'choose trump';
    controls = legalOf(ctx, 'declare').map((m) => {
      const t = str(m.trump), d = str(m.direction);
      const label = t ? `${SUIT_SYMBOL[t] ?? t} trump` : TYPE_LABEL[d] ?? d;
      return moveButton(ctx, label, m, t ? `declare-${t}` : `declare-${d}`, { primary: true });
    });
  } else if (choose) {
    // Any `count` of `from`: select them, then discard.
    const from = new Set(choose.from);
    const sel = ctx.r.selected.filter((c) => from.has(c));
    const ready = sel.length === choose.count;
    text = `discard ${choose.count} cards (they count as your first book)`;
    controls = [
      h('button', { type: 'button', class: 'primary', 'data-testid': 'discard', disabled: !ready || ctx.locked,
        onclick: () => ctx.send({ action: choose.action, [choose.field]: sel } as Move) }, `Discard ${sel.length}/${choose.count}`),
      h('button', { type: 'button', 'data-testid': 'clear-selection', disabled: sel.length === 0, onclick: () => ctx.select([]) }, 'Clear'),
    ];
    const kitty = new Set(strs(v.kitty));
    handView = handEl(ctx, {
      cards: hand,
      selected: sel,
      enabled: (c) => from.has(c) && (sel.includes(c) || sel.length < choose.count),
      playable: (c) => kitty.has(c),
      onClick: (c) => ctx.toggle(c),
      label: 'Your hand and the kitty: choose cards to discard',
      reason: ready ? `You have chosen ${choose.count}: click a chosen card to put it back.` : null,
    });
  } else if (legalOf(ctx, 'deal').length) {
    text = 'the hand is over';
    controls = [moveButton(ctx, 'Deal the next hand', { action: 'deal' }, 'deal', { primary: true })];
  }

  const centreInfo = h('div', { class: 'contract-line small', 'data-testid': 'contract' },
    contract ? contractText(ctx, contract) : v.high_bid ? `High bid: ${describeBid(v.high_bid)} by ${ctx.name(num(field(v.high_bid, 'seat')))}` : 'Auction',
    num(v.kitty_count) > 0 ? h('span', { class: 'muted' }, ` · kitty ${num(v.kitty_count)}`) : null,
    lastTrickNote(ctx));

  return h('div', { class: 'table bidwhist', 'data-testid': 'table', 'data-game': 'bidwhist' },
    playArea(felt(ctx, (seat) => ({
      count: counts[seat] ?? null,
      badge: seat === declarer ? 'declarer' : seat === dealer ? 'dealer' : null,
      // Calls belong to the auction: once it is won, the contract line says what counts.
      passed: auction && bids[seat] === 'pass',
      lines: [
        auction && bids[seat] && bids[seat] !== 'pass' ? h('span', { 'data-testid': `bid-of-${seat}` }, `bid ${describeBid(bids[seat])}`) : null,
        phase === 'playing' || tricks.some((t) => num(t) > 0) ? h('span', null, `${num(tricks[seat])} won`) : null,
      ],
    }), trickCentre(ctx), centreInfo),
    promptBar(ctx, text, controls),
    handView ?? playHand(ctx, hand)),
    scores(ctx));
}

function contractText(ctx: TableCtx, c: object): string {
  const books = num(field(c, 'books'));
  const type = str(field(c, 'type'));
  const trump = str(field(c, 'trump'));
  const dir = str(field(c, 'direction'));
  const who = ctx.name(num(field(c, 'declarer')));
  const what = type === 'no_trump' ? `${books} no trump${dir ? ` (${dir})` : ''}` : `${books} ${dir || type}${trump ? `, ${SUIT_SYMBOL[trump] ?? trump} trump` : ''}`;
  return `Contract: ${what} — ${who}`;
}

// Legal bids as a grid (type × books) plus pass; only legal bids are present.
function bidPicker(ctx: TableCtx): HTMLElement {
  const bids = legalOf(ctx, 'bid');
  const types = ['uptown', 'downtown', 'no_trump'].filter((t) => bids.some((m) => m.type === t));
  return h('div', { class: 'bid-picker whist', role: 'group', 'aria-label': 'Bid' },
    legalOf(ctx, 'pass').length ? moveButton(ctx, 'Pass', { action: 'pass' }, 'pass') : null,
    types.map((t) => h('div', { class: 'bid-row' }, h('span', { class: 'bid-type small', title: TYPE_HELP[t] ?? null }, TYPE_LABEL[t] ?? t),
      bids.filter((m) => m.type === t).map((m) => moveButton(ctx, String(num(m.books)), m, `bid-${num(m.books)}-${t}`,
        { title: `${num(m.books)} ${TYPE_LABEL[t] ?? t}: your team must take ${6 + num(m.books)} of 13 books (the discard counts as one). ${TYPE_HELP[t] ?? ''}` })))));
}

function scores(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const s = arr(v.scores);
  const books = arr(v.books);
  const last = v.last_hand && typeof v.last_hand === 'object' ? v.last_hand : null;
  return h('section', { class: 'panel score-panel' },
    h('h3', null, 'Scores', h('span', { class: 'muted small' }, ` · hand ${num(v.hand_number, 1)} · playing to ${num(v.target, 7)}`)),
    scoreTable(['Team', 'Points', 'Books this hand'], [0, 1].map((t) => [teamName(ctx, t), String(num(s[t])), String(num(books[t]))])),
    last ? h('p', { class: 'small muted', 'data-testid': 'last-hand' },
      `Last hand: ${teamName(ctx, num(field(last, 'team')))} bid ${describeBid(field(last, 'bid'))}, took ${num(field(last, 'books'))} books — ${field(last, 'made') ? 'made it' : 'set'}.`) : null);
}
