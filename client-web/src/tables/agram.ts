// Agram: six tricks, follow suit if you can, only the sixth trick counts; deals
// continue until someone reaches the target.

import { sortBySuit } from '../cards';
import { arr, num, strs } from '../protocol';
import { h } from '../render';
import { felt, legalOf, moveButton, playArea, playsOf, promptBar, scoreTable, TableCtx } from './common';
import { handCounts } from './bigtwo';
import { lastTrickNote, playHand, trickCentre } from './tricks';

export function agramTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const counts = handCounts(ctx);
  const tricks = arr(v.tricks_won);
  const points = arr(v.scores);
  const trickNo = num(v.trick_number, 0);
  const dealer = num(v.dealer, -1);
  const lastWinner = typeof v.last_deal_winner === 'number' ? v.last_deal_winner : null;
  const info = h('div', { class: 'contract-line', 'data-testid': 'contract' },
    h('span', null, `Deal ${num(v.deal_number, 1)}`),
    trickNo > 0 ? h('span', null, `trick ${Math.min(trickNo, 6)} of 6${trickNo >= 6 ? ' — this one counts!' : ''}`) : null,
    h('span', { class: 'muted' }, `only the sixth trick scores · first to ${num(v.target, 1)}`),
    lastWinner !== null ? h('span', null, `last deal: ${ctx.name(lastWinner)}`) : null,
    lastTrickNote(ctx));

  let text = playsOf(v.trick).length ? 'follow suit if you can' : 'lead any card';
  const controls: HTMLElement[] = [];
  if (legalOf(ctx, 'deal').length) {
    text = 'the deal is over';
    controls.push(moveButton(ctx, 'Deal again', { action: 'deal' }, 'deal', { primary: true }));
  }
  return h('div', { class: 'table agram', 'data-testid': 'table', 'data-game': 'agram' },
    playArea(felt(ctx, (seat) => ({
      count: counts[seat] ?? null,
      badge: seat === dealer ? 'dealer' : null,
      lines: [typeof points[seat] === 'number' ? h('span', null, `${points[seat] as number} pt`) : null, tricks.length ? h('span', null, `${num(tricks[seat])} tricks`) : null],
    }), trickCentre(ctx), info),
    promptBar(ctx, text, controls),
    playHand(ctx, sortBySuit(strs(v.hand), null, '3456789TA'))),
    points.length ? h('section', { class: 'panel score-panel' },
      h('h3', null, 'Points'),
      scoreTable(points.map((_, i) => ctx.name(i)), [points.map((x) => String(num(x)))])) : null);
}

