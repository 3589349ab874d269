// The published Splendor cards and nobles, from the engine's own data file
// (games/splendor/splendor.json): views, moves and events name them by id.
// Vite bundles only the arrays used here.

import { cards, nobles } from '../../../games/splendor/splendor.json';

export interface DevCard { id: number; level: number; bonus: string; points: number; cost: Record<string, number> }
export interface Noble { id: number; points: number; requires: Record<string, number> }

// What players call each token colour.
export const GEM_NAME: Record<string, string> = { white: 'diamond', blue: 'sapphire', green: 'emerald', red: 'ruby', black: 'onyx', gold: 'gold' };

const CARDS = new Map<number, DevCard>((cards as unknown as DevCard[]).map((c) => [c.id, c]));
const NOBLES = new Map<number, Noble>((nobles as unknown as Noble[]).map((n) => [n.id, n]));

// Accepts an id or (older servers) the full object.
export function devCard(x: unknown): DevCard | null {
  if (typeof x === 'number') return CARDS.get(x) ?? null;
  if (x && typeof x === 'object' && typeof (x as DevCard).id === 'number') return x as DevCard;
  return null;
}

export function noble(x: unknown): Noble | null {
  if (typeof x === 'number') return NOBLES.get(x) ?? null;
  if (x && typeof x === 'object' && typeof (x as Noble).id === 'number') return x as Noble;
  return null;
}
