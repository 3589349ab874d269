// One line of the play log per public event. Unknown events still show their type.

import { short } from './cards';
import type { JsonObject } from './protocol';
import { arr, field, num, str, strs } from './protocol';
import { RoomData, seatName } from './state';
import { devCard, noble } from './tables/splendor_catalogue';

const SUITS: Record<string, string> = { S: '♠', H: '♥', D: '♦', C: '♣' };

export function describeBid(bid: unknown): string {
  if (bid === null || bid === undefined) return 'pass';
  if (typeof bid === 'number') return bid === 0 ? 'nil' : String(bid);
  if (typeof bid === 'string') return bid.replace(/_/g, ' ');
  const books = field(bid, 'books');
  const type = str(field(bid, 'type'));
  if (typeof books === 'number') return `${books} ${type.replace(/_/g, ' ')}`.trim();
  const value = field(bid, 'bid') ?? field(bid, 'value');
  if (typeof value === 'number') return (field(bid, 'blind') ? 'blind ' : '') + (value === 0 ? 'nil' : String(value));
  return JSON.stringify(bid);
}

export function describeEvent(r: RoomData, e: JsonObject): string {
  const type = str(e.type);
  const seat = typeof e.seat === 'number' ? e.seat : null;
  const who = seat !== null ? seatName(r, seat) : '';
  const cards = strs(e.cards);
  const card = str(e.card);
  switch (type) {
    case 'play':
      if (cards.length) {
        const combo = str(e.combination ?? e.combo);
        return `${who} played ${cards.map(short).join(' ')}${combo && cards.length > 1 ? ` (${combo.replace(/_/g, ' ')})` : ''}`;
      }
      if (card) return `${who} played ${short(card)}`;
      return `${who} played`;
    case 'pass': return `${who} passed`;
    case 'bid': return `${who} bid ${describeBid(e.bid ?? e)}`;
    case 'trick': {
      const w = field(e, 'winner');
      return typeof w === 'number' ? `${seatName(r, w)} won the trick` : 'Trick complete';
    }
    case 'trick_won': return `${seatName(r, num(e.winner ?? e.seat))} won the trick`;
    case 'table_cleared': case 'clear': return `Table cleared${typeof e.leader === 'number' ? `: ${seatName(r, e.leader)} leads` : ''}`;
    case 'deal': return `New deal${typeof e.dealer === 'number' ? ` (${seatName(r, e.dealer)} deals)` : typeof e.leader === 'number' ? ` (${seatName(r, e.leader)} leads)` : ''}`;
    case 'deal_end': return typeof e.winner === 'number' ? `${seatName(r, e.winner)} took the sixth trick and the deal` : 'Deal over';
    case 'deal_over': return typeof e.winner === 'number' ? `${seatName(r, e.winner)} won deal ${num(e.deal, 1)}` : 'Deal over';
    case 'auction_won': return `${who} won the auction with ${describeBid(e.bid)}`;
    case 'declare': return `${who} declared ${e.trump ? `${SUITS[str(e.trump)] ?? str(e.trump)} trump, ` : ''}${str(e.direction)}`;
    case 'kitty_taken': return `${who} took the kitty`;
    case 'discard': return `${who} discarded ${num(e.count, cards.length)} cards`;
    case 'hand_scored': case 'scored': return 'Hand scored';
    case 'game_over': return 'Game over';
    case 'spades_broken': return `${who} broke spades`;
    case 'contracts': return 'Bidding complete';
    case 'hand_end': return `Hand ${num(e.hand, 1)} scored`;
    case 'look': return `${who} looked at their cards`;
    case 'out': case 'went_out': return `${who} is out of cards`;
    case 'start': case 'started': return 'Game started';
    case 'take': return `${who} took ${gemList(e.gems)}`;
    case 'reserve': {
      const c = devCard(e.card);
      return `${who} reserved ${c ? `a level ${c.level} ${c.bonus} card` : `blind from level ${num(e.level, 1)}`}${num(e.gold) > 0 ? ' (+1 gold)' : ''}`;
    }
    case 'buy': {
      const c = devCard(e.card);
      return c ? `${who} bought a level ${c.level} ${c.bonus} card${c.points ? ` (${c.points} ★)` : ''}` : `${who} bought a card`;
    }
    case 'return': return `${who} returned ${gemList(e.gems)}`;
    case 'noble': return `A noble visited ${who} (${noble(e.noble)?.points ?? 3} ★)`;
    case 'refill': return '';
    case 'final_round': return `${who} reached 15: final round`;
    // External games (docs/ENGINES.md): the engine's events as the server carried them out.
    case 'engine_ready': return 'Game started';
    case 'select': return `${who} chose ${strs(e.value).join(', ')}${str(e.name) ? ` (${str(e.name)})` : ''}`;
    case 'draw': return `${who} drew ${num(e.count, 1)} card${num(e.count, 1) === 1 ? '' : 's'}`;
    case 'set_info': return `${infoLabel(r, str(e.id))}: ${typeof e.value === 'number' ? e.value : str(e.value) || '–'}`;
    case 'end_game': return 'Game over';
    // Prompts show in the prompt bar; decorations on the seat plates; a new info line in the info bar.
    case 'prompt': case 'add_decoration': case 'clear_decoration': case 'add_info': return '';
    default:
      return who ? `${who}: ${type.replace(/_/g, ' ')}` : type.replace(/_/g, ' ');
  }
}

function gemList(gems: unknown): string {
  if (Array.isArray(gems)) return gems.map(String).join(', ');
  if (gems && typeof gems === 'object') return Object.entries(gems).map(([c, n]) => `${String(n)} ${c}`).join(', ');
  return 'gems';
}

// An external game's info line by id, named by its label in the latest view.
function infoLabel(r: RoomData, id: string): string {
  const line = arr(r.state?.view.info).find((x) => field(x, 'id') === id);
  return str(field(line, 'label')) || id;
}
