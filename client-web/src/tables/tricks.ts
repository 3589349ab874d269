// Shared by the trick-taking tables (Spades, Bid Whist, Agram): a hand whose
// legal cards play on click, and the trick (or the last one, dimmed) in the centre.

import type { Move } from '../protocol';
import { field, num, str } from '../protocol';
import { h } from '../render';
import { handEl, legalOf, playsOf, TableCtx, trickEl } from './common';

// Cards the prompt allows to play ({"action":"play","card":C}).
export function playableCards(ctx: TableCtx): Set<string> {
  return new Set(legalOf(ctx, 'play').map((m) => str(m.card)).filter((c) => c !== ''));
}

export function playHand(ctx: TableCtx, cards: string[], label = 'Your hand'): HTMLElement {
  const legal = playableCards(ctx);
  return handEl(ctx, {
    cards,
    enabled: (c) => legal.has(c) && !ctx.r.busy,
    playable: (c) => legal.has(c),
    onClick: (c) => ctx.send({ action: 'play', card: c } as Move),
    label: legal.size ? `${label}: choose a card to play` : label,
  });
}

// The trick being played; when it is empty, the last completed one, dimmed, with its winner.
export function trickCentre(ctx: TableCtx): HTMLElement {
  const plays = playsOf(ctx.view.trick);
  const last = ctx.view.last_trick;
  if (plays.length || !last || typeof last !== 'object') {
    return h('div', { class: 'trick-area' }, trickEl(ctx, plays));
  }
  const winner = num(field(last, 'winner'), -1);
  return h('div', { class: 'trick-area last' }, h('div', { class: 'dim' }, trickEl(ctx, playsOf(last), winner)));
}

// For the info line above the felt: who took the last trick, while it is still shown.
export function lastTrickNote(ctx: TableCtx): HTMLElement | null {
  const last = ctx.view.last_trick;
  if (playsOf(ctx.view.trick).length || !last || typeof last !== 'object') return null;
  const winner = num(field(last, 'winner'), -1);
  return winner >= 0 ? h('span', { class: 'trick-note', 'data-testid': 'last-trick-winner' }, `${ctx.name(winner)} took the last trick`) : null;
}
