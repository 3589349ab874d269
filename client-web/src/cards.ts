// Playing cards: wire strings ("3D", "TS", "AH", "BJ", "LJ"), their names,
// sort orders, and the CSS-drawn card element used by every table.

import { h } from './render';

export const SUIT_SYMBOL: Record<string, string> = { S: '♠', H: '♥', D: '♦', C: '♣' };
export const SUIT_NAME: Record<string, string> = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
const RANK_LABEL: Record<string, string> = { T: '10' };
const RANK_NAME: Record<string, string> = {
  A: 'Ace', K: 'King', Q: 'Queen', J: 'Jack', T: 'Ten', '9': 'Nine', '8': 'Eight', '7': 'Seven',
  '6': 'Six', '5': 'Five', '4': 'Four', '3': 'Three', '2': 'Two',
};

export interface Card {
  code: string;
  rank: string; // "2".."9","T","J","Q","K","A" or "J" for jokers (see joker)
  suit: string; // C D H S, or "" for jokers
  joker: 'big' | 'little' | null;
}

export function parse(code: string): Card {
  if (code === 'BJ') return { code, rank: 'BJ', suit: '', joker: 'big' };
  if (code === 'LJ') return { code, rank: 'LJ', suit: '', joker: 'little' };
  return { code, rank: code.slice(0, -1), suit: code.slice(-1), joker: null };
}

export function isRed(code: string): boolean {
  const c = parse(code);
  return c.joker ? c.joker === 'big' : c.suit === 'H' || c.suit === 'D';
}

export function rankLabel(code: string): string {
  const c = parse(code);
  if (c.joker) return 'Joker';
  return RANK_LABEL[c.rank] ?? c.rank;
}

// Short text like "10♥", used in logs and buttons.
export function short(code: string): string {
  const c = parse(code);
  if (c.joker) return c.joker === 'big' ? 'Big joker' : 'Little joker';
  return `${RANK_LABEL[c.rank] ?? c.rank}${SUIT_SYMBOL[c.suit] ?? c.suit}`;
}

export function longName(code: string): string {
  const c = parse(code);
  if (c.joker) return c.joker === 'big' ? 'Big joker' : 'Little joker';
  return `${RANK_NAME[c.rank] ?? c.rank} of ${SUIT_NAME[c.suit] ?? c.suit}`;
}

const HIGH_ACE = '23456789TJQKA';
const BIG_TWO = '3456789TJQKA2';

// Big Two: by rank 3..2, then suit ♦ ♣ ♥ ♠ (the default suit order).
export function sortBigTwo(cards: string[], suitOrder = 'DCHS'): string[] {
  return [...cards].sort((a, b) => {
    const pa = parse(a), pb = parse(b);
    return BIG_TWO.indexOf(pa.rank) - BIG_TWO.indexOf(pb.rank) || suitOrder.indexOf(pa.suit) - suitOrder.indexOf(pb.suit);
  });
}

// Trick-taking games: grouped by suit with colours alternating (♠ ♥ ♣ ♦), jokers
// first, trump suit first when known, high to low within a suit.
export function sortBySuit(cards: string[], trump: string | null = null, rankOrder = HIGH_ACE): string[] {
  const suits = ['S', 'H', 'C', 'D'];
  const order = trump && suits.includes(trump) ? rotateTo(suits, trump) : suits;
  const key = (code: string): [number, number] => {
    const c = parse(code);
    if (c.joker) return [-1, c.joker === 'big' ? 0 : 1];
    return [order.indexOf(c.suit), -rankOrder.indexOf(c.rank)];
  };
  return [...cards].sort((a, b) => {
    const ka = key(a), kb = key(b);
    return ka[0] - kb[0] || ka[1] - kb[1];
  });
}

function rotateTo(suits: string[], first: string): string[] {
  // Keep colours alternating: trump, then the others in the usual order.
  return [first, ...suits.filter((s) => s !== first)];
}

export interface CardOptions {
  selected?: boolean;
  disabled?: boolean;
  playable?: boolean;
  small?: boolean;
  onClick?: () => void;
  testid?: string;
  title?: string;
}

// One face-up card. A <button> when it can be clicked (keyboard: Tab, Enter, Space).
export function cardEl(code: string, opts: CardOptions = {}): HTMLElement {
  const c = parse(code);
  const suitClass = c.joker ? `joker joker-${c.joker}` : `suit-${c.suit}`;
  const cls = ['card', suitClass, isRed(code) ? 'red' : 'black'];
  if (opts.selected) cls.push('selected');
  if (opts.playable) cls.push('playable');
  if (opts.small) cls.push('small');
  const sym = c.joker ? '★' : SUIT_SYMBOL[c.suit] ?? '?';
  const rank = c.joker ? (c.joker === 'big' ? 'BIG' : 'LITTLE') : rankLabel(code);
  const face = [
    h('span', { class: 'corner tl', 'aria-hidden': 'true' }, h('span', { class: 'rank' }, rank), h('span', { class: 'sym' }, sym)),
    h('span', { class: 'pip', 'aria-hidden': 'true' }, c.joker ? 'JOKER' : sym),
    h('span', { class: 'corner br', 'aria-hidden': 'true' }, h('span', { class: 'rank' }, rank), h('span', { class: 'sym' }, sym)),
  ];
  const label = longName(code) + (opts.selected ? ', selected' : '');
  if (opts.onClick) {
    // The button's name is its text, the card's long name in a visually hidden span (the
    // drawn face is hidden from assistive technology): a name given by aria-label would not
    // contain the visible "3♦" (WCAG 2.5.3, label in name).
    return h('button', {
      type: 'button', class: cls.join(' '), 'data-card': code, 'data-testid': opts.testid ?? `card-${code}`,
      'aria-pressed': opts.selected ? 'true' : 'false', title: opts.title ?? longName(code),
      disabled: opts.disabled ?? false, onclick: () => opts.onClick?.(),
    }, face, h('span', { class: 'sr-only' }, label));
  }
  return h('div', { class: cls.join(' '), 'data-card': code, 'data-testid': opts.testid ?? null, role: 'img', 'aria-label': label, title: opts.title ?? longName(code) }, face);
}

// A face-down card (other seats' hands, the kitty, decks).
export function backEl(small = true): HTMLElement {
  return h('div', { class: `card back${small ? ' small' : ''}`, 'aria-hidden': 'true' });
}
