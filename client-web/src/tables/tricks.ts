// Shared by the trick-taking tables (Spades, Bid Whist, Agram): a hand whose
// legal cards play on click, and the trick (or the last one, dimmed) in the centre.

import type { Move } from '../protocol';
import { field, num, str } from '../protocol';
import { SUIT_SYMBOL } from '../cards';
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
    reason: greyedReason(ctx, cards, legal),
    enabled: (c) => legal.has(c) && !ctx.locked,
    playable: (c) => legal.has(c),
    onClick: (c) => ctx.send({ action: 'play', card: c } as Move),
    label: legal.size ? `${label}: choose a card to play` : label,
  });
}

// Why some cards are greyed, read from what the server allows (never decided here):
// under way, a trick whose legal cards share one suit means following it; on a lead
// that leaves out every spade in hand, spades are not broken yet.
export function greyedReason(ctx: TableCtx, hand: string[], legal: Set<string>): string | null {
  if (!ctx.myTurn || legal.size === 0 || legal.size === hand.length) return null;
  const suitOf = (c: string) => (c === 'BJ' || c === 'LJ' ? '' : c.slice(-1));
  const suits = new Set([...legal].map(suitOf).filter((s) => s !== ''));
  if (playsOf(ctx.view.trick).length) {
    return suits.size === 1 ? `You must follow ${SUIT_SYMBOL[[...suits][0]]}: the greyed cards cannot be played.` : null;
  }
  const spades = hand.filter((c) => suitOf(c) === 'S');
  if (spades.length && spades.every((c) => !legal.has(c)) && ctx.view.spades_broken === false) {
    return 'Spades are not broken yet: you cannot lead a spade until one has been played.';
  }
  return null;
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
