// The client's single store. Socket pushes and user actions mutate it through
// the functions below; every mutation schedules one re-render.

import type { MoveRequest } from '@parlor/client';
import type { ChatLine, GameInfo, GameResult, JsonObject, Replay, RoomInfo, SeatInfo, StatePush } from './protocol';
import type { Status } from './socket';

export type Route = { page: 'lobby' } | { page: 'room'; id: string }
  // seat null: the spectator view; game null: the room's latest game.
  | { page: 'replay'; id: string; seat: number | null; game: number | null }
  // The ratings of a game kind (null: the first game), and one player's profile.
  | { page: 'leaderboard'; kind: string | null }
  | { page: 'player'; id: string };

// A replay being watched: fetched once per (room, seat, game), stepped locally.
export interface ReplayData {
  loading: boolean;
  error: string | null;
  errorCode: string | null;
  data: Replay | null;
  step: number;
  // The full reveal (every hand at the deal) is shown.
  reveal: boolean;
  // The viewer has reached the last step at least once (the reveal is offered from then on).
  seenEnd: boolean;
}

export interface RoomData {
  info: RoomInfo | null;
  state: StatePush | null;
  chat: ChatLine[];
  log: { seq: number; event: JsonObject }[];
  result: GameResult | null;
  // The reason the server gave for refusing the last request made from this table.
  error: string | null;
  errorCode: string | null;
  // Counts refusals, so a repeated identical message is still a new one.
  errorSerial: number;
  // Cards picked in the hand for a multi-card move, kept across pushes.
  selected: string[];
  // Whether we asked to watch (we may not be seated).
  watching: boolean;
  busy: boolean;
  // A move whose reply was lost with the connection: sent again after the next welcome.
  pendingMove: MoveRequest | null;
  // The connection (state.epoch) on which the last room push arrived.
  epoch: number;
}

export interface AppState {
  status: Status;
  retryInMs: number;
  attempt: number;
  player: string | null;
  // The server runs in development mode (--dev): only then does the create form offer a seed.
  dev: boolean;
  name: string;
  games: GameInfo[];
  openRooms: RoomInfo[];
  roomsLoaded: boolean;
  rooms: Map<string, RoomData>;
  route: Route;
  lobbyError: string | null;
  // The rules sheet on screen: which game, and the table's options (variants are marked).
  rules: { kind: string; options: JsonObject | null } | null;
  // Why the server refused to create a table (shown by the create form).
  createError: string | null;
  // Form state survives re-renders.
  drafts: Record<string, string>;
  createKind: string;
  // Counts welcomes: which connection pushes arrived on.
  epoch: number;
  replays: Map<string, ReplayData>;
  // Waiting for a quick-play table: where we stand, as the server last said.
  quickPlay: QuickPlayWait | null;
  // Players whose chat we muted, by id, with their names (the server keeps the mute per
  // player, in its memory).
  muted: Map<string, string>;
}

export interface QuickPlayWait {
  kind: string;
  position: number;
  waiting: number;
  // When a table opens at the latest (bots fill it), as a Date.now() time; 0: no promise.
  opensBy: number;
}

export const state: AppState = {
  status: 'idle',
  retryInMs: 0,
  attempt: 0,
  player: null,
  dev: false,
  name: '',
  games: [],
  openRooms: [],
  roomsLoaded: false,
  rooms: new Map(),
  route: { page: 'lobby' },
  lobbyError: null,
  createError: null,
  rules: null,
  drafts: {},
  createKind: '',
  epoch: 0,
  replays: new Map(),
  quickPlay: null,
  muted: new Map<string, string>(),
};

let redraw: () => void = () => {};

export function onChange(fn: () => void): void {
  redraw = fn;
}

export function changed(): void {
  redraw();
}

export function room(id: string): RoomData {
  let r = state.rooms.get(id);
  if (!r) {
    r = { info: null, state: null, chat: [], log: [], result: null, error: null, errorCode: null, errorSerial: 0,
      selected: [], watching: false, busy: false, pendingMove: null, epoch: -1 };
    state.rooms.set(id, r);
  }
  return r;
}

// Whether requests from this room's controls must wait: one is in flight, or the
// socket is down (controls are disabled then, rather than taking clicks that
// cannot be sent).
export function locked(r: RoomData): boolean {
  return r.busy || state.status !== 'connected';
}

export function gameName(kind: string): string {
  // Splendor is a trademark: the table is shown under a generic name.
  if (kind === 'splendor') return 'Gem Merchants';
  const g = state.games.find((x) => x.kind === kind);
  if (g) return g.name;
  return ({ bigtwo: 'Big Two', spades: 'Spades', bidwhist: 'Bid Whist', agram: 'Agram', splendor: 'Gem Merchants' } as Record<string, string>)[kind] ?? kind;
}

// A table as players call it: by the people at it ("alice's table", "alice & bob's table",
// "alice, bob & 2 more"), never by its id; a table nobody sits at yet is "an empty table".
export function tableName(info: RoomInfo): string {
  const people = info.seats.filter((s): s is SeatInfo => s !== null && !s.bot).map((s) => s.name || 'a guest');
  if (people.length === 0) return info.seats.some((s) => s?.bot) ? 'a table of bots' : 'an empty table';
  if (people.length === 1) return `${people[0]}'s table`;
  if (people.length === 2) return `${people[0]} & ${people[1]}'s table`;
  return `${people[0]}, ${people[1]} & ${people.length - 2} more`;
}

// The seat this client occupies in a room, or null for a spectator.
export function mySeat(r: RoomData): number | null {
  const you = r.info?.you;
  if (typeof you === 'number') return you;
  if (state.player && r.info) {
    const s = r.info.seats.find((x) => x && x.player === state.player);
    if (s) return s.seat;
  }
  return null;
}

export function seatName(r: RoomData, seat: number): string {
  const s = r.info?.seats[seat];
  return s ? s.name : `Seat ${seat + 1}`;
}
