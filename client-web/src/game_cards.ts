// The games on offer as a player meets them: a picture, the name, how many play, about how
// long a game lasts, a line on what it is, its variants in words and the way to its rules.
// Shown on the first visit (from /api/games, before any name is asked) and in the lobby.

import { cardEl } from './cards';
import type { GameInfo } from './protocol';
import { h } from './render';
import { gameName } from './state';
import { optionWords } from './notation';
import { openRules } from './rules';

// About how long a game with its default options lasts among people who know the rules:
// Big Two is one deal; Spades is played to 500 over several hands; Bid Whist to 7 points;
// Agram is one deal of six tricks; Gem Merchants is the board game's half hour. A game an
// engine serves has no figure here.
const MINUTES: Record<string, string> = {
  bigtwo: 'about 10 minutes',
  spades: 'about 45 minutes',
  bidwhist: 'about 30 minutes',
  agram: 'about 5 minutes',
  splendor: 'about 30 minutes',
};

// Three cards that stand for the game (the picture is decoration: hidden from screen readers).
const PICTURE_CARDS: Record<string, string[]> = {
  bigtwo: ['3D', '2S', 'AH'],
  spades: ['QS', 'AS', 'KS'],
  bidwhist: ['LJ', 'BJ', 'AH'],
  agram: ['6C', 'AC', '9C'],
};
const GEMS = ['white', 'blue', 'green', 'red', 'black'];

function picture(kind: string): HTMLElement {
  const cards = PICTURE_CARDS[kind];
  if (kind === 'splendor') {
    return h('div', { class: 'game-picture gems', 'aria-hidden': 'true' }, GEMS.map((g) => h('span', { class: `gem gem-${g}` })));
  }
  return h('div', { class: 'game-picture fan', 'aria-hidden': 'true' },
    (cards ?? []).map((c) => cardEl(c, { small: true })),
    cards ? null : h('span', { class: 'game-initial' }, gameName(kind).slice(0, 1)));
}

function players(g: GameInfo): string {
  return g.min_seats === g.max_seats ? `${g.min_seats} players` : `${g.min_seats}–${g.max_seats} players`;
}

// The variants a table may choose, by name in words.
function variants(g: GameInfo): string | null {
  const names = Object.entries(g.options ?? {}).filter(([, spec]) => spec.variant).map(([name]) => optionWords(name));
  return names.length ? `Variants: ${names.join(', ')}` : null;
}

export function gameCard(g: GameInfo): HTMLElement {
  const facts = [players(g), MINUTES[g.kind]].filter(Boolean).join(' · ');
  const variantLine = variants(g);
  return h('li', { class: 'game-card', 'data-testid': `game-${g.kind}` },
    picture(g.kind),
    h('div', { class: 'game-card-text' },
      h('h3', null, gameName(g.kind)),
      h('div', { class: 'muted small', 'data-testid': `game-facts-${g.kind}` }, facts),
      g.description ? h('p', { class: 'small' }, g.description) : null,
      variantLine ? h('div', { class: 'muted small' }, variantLine) : null,
      h('button', { type: 'button', class: 'link small', 'data-testid': `rules-${g.kind}`, onclick: () => openRules(g.kind) }, 'How to play')));
}

export function gameCards(games: GameInfo[]): HTMLElement {
  return h('ul', { class: 'game-list' }, games.map(gameCard));
}
