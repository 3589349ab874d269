// The player's notation for text and moves that come from the server: card
// codes ("3D", "TS", "BJ") read as on the cards ("3♦", "10♠", "Big joker"),
// seat numbers as names, and a move as words rather than its JSON fields.

import { short } from './cards';
import { describeBid } from './events';
import type { Move } from './protocol';
import { num, str, strs } from './protocol';
import { devCard, GEM_NAME, noble } from './tables/splendor_catalogue';

const CARD_CODE = /\b(?:[2-9TJQKA][CDHS]|BJ|LJ)\b/g;
const SUIT_WORD: Record<string, string> = { S: '♠', H: '♥', D: '♦', C: '♣' };

// A refusal or notice from the server, for a player: "3D 5D is not a pair" reads
// "3♦ 5♦ is not a pair", "it is seat 2's turn" names the player at seat 2.
export function readable(text: string, seatName?: (seat: number) => string): string {
  let out = text.replace(CARD_CODE, (code) => short(code));
  if (seatName) out = out.replace(/\bseat (\d+)(?='s|\b)/g, (_, n: string) => seatName(Number(n)));
  return out.charAt(0).toUpperCase() + out.slice(1);
}

function cards(list: unknown): string {
  return strs(list).map(short).join(' ');
}

function gems(list: unknown): string {
  if (Array.isArray(list)) return list.map((c) => GEM_NAME[String(c)] ?? String(c)).join(', ');
  if (list && typeof list === 'object') {
    return Object.entries(list).filter(([, n]) => num(n) > 0).map(([c, n]) => `${num(n)} ${GEM_NAME[c] ?? c}`).join(', ');
  }
  return 'gems';
}

function devCardText(id: unknown): string {
  const c = devCard(id);
  return c ? `a level ${c.level} ${GEM_NAME[c.bonus] ?? c.bonus} card${c.points ? ` (${c.points} ★)` : ''}` : 'a card';
}

// A move as the player would say it: "play 10♠", "bid 4 uptown", "buy a level 1 sapphire card".
export function describeMove(m: Move | null | undefined): string {
  if (!m || typeof m !== 'object') return '';
  const action = str(m.action, 'move');
  switch (action) {
    case 'play':
      if (m.value !== undefined) return `play ${cards(m.value) || 'nothing'}`;
      return m.cards !== undefined ? `play ${cards(m.cards) || 'nothing'}` : `play ${short(str(m.card))}`;
    case 'pass': return 'pass';
    case 'look': return 'look at the cards';
    case 'deal': return 'deal the next hand';
    case 'discard': return `discard ${cards(m.cards ?? m.discard ?? m.value)}`;
    // An external game's answer to a prompt_select: the options chosen, as the engine wrote them.
    case 'select': return `choose ${strs(m.value).join(', ')}`;
    case 'bid':
      if (m.blind_nil === true) return 'bid blind nil';
      return `bid ${describeBid(m.books !== undefined ? { books: m.books, type: m.type ?? '' } : typeof m.tricks === 'number' ? m.tricks : m)}`;
    case 'declare': {
      const trump = str(m.trump);
      const direction = str(m.direction);
      return `declare ${[trump ? `${SUIT_WORD[trump] ?? trump} trump` : '', direction].filter(Boolean).join(', ')}`;
    }
    case 'take': return `take ${gems(m.gems)}`;
    case 'return': return `give back ${gems(m.gems)}`;
    case 'reserve': return m.card !== undefined ? `reserve ${devCardText(m.card)}` : `reserve blind from level ${num(m.level, 1)}`;
    // "gold" says which gems gold stands in for.
    case 'buy': return `buy ${devCardText(m.card)}${m.gold && typeof m.gold === 'object' ? `, gold for ${gems(m.gold)}` : ''}`;
    case 'noble': return `invite a noble (${noble(m.noble)?.points ?? 3} ★)`;
    default: {
      const rest = Object.entries(m).filter(([k]) => k !== 'action')
        .map(([k, v]) => (typeof v === 'string' && new RegExp(`^${CARD_CODE.source}$`).test(v) ? short(v) : `${k.replace(/_/g, ' ')} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`));
      return [action.replace(/_/g, ' '), ...rest].join(' ');
    }
  }
}

// An option's name or a choice as words: `suit_order` reads "suit order", `true` "yes".
export function optionWords(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value.replace(/_/g, ' ');
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
