// The wire types of Parlor protocol v1 (see protocol/PROTOCOL.md). Everything
// the server sends is read defensively: unknown fields are ignored.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Message { type: string; [key: string]: unknown }

export type Move = JsonObject & { action?: string };

export interface OptionSchema {
  type: 'integer' | 'choice' | 'boolean' | string;
  default?: Json;
  description?: string;
  min?: number;
  max?: number;
  choices?: { value: string; description?: string }[];
  variant?: boolean;
}

export interface GameInfo {
  kind: string;
  name: string;
  description?: string;
  rules?: string;
  min_seats: number;
  max_seats: number;
  default_seats?: number;
  options: Record<string, OptionSchema>;
}

export interface SeatInfo {
  seat: number;
  player: string;
  name: string;
  bot: boolean;
  connected: boolean;
}

export interface RoomInfo {
  room: string;
  kind: string;
  // 'paused': an external game's engine is not answering; 'frozen': the game was stopped.
  status: 'waiting' | 'playing' | 'finished' | 'paused' | 'frozen' | string;
  seats: (SeatInfo | null)[];
  spectators: number;
  you?: number | null;
  options?: JsonObject;
  // The creator's player id (host controls); absent for quick play's tables.
  host?: string;
  // The host locked the room: nobody new may sit down.
  locked?: boolean;
}

export interface Choose {
  action: string;
  field: string;
  count: number;
  from: string[];
}

export interface Prompt {
  actions?: string[];
  legal?: Move[];
  choose?: Choose;
  [key: string]: unknown;
}

export interface StatePush {
  room: string;
  seq: number;
  view: JsonObject;
  to_act: number[];
  prompt: Prompt | null;
  events: JsonObject[];
  // Milliseconds left on the turn timer when the server made the frame (turn timers only).
  deadline_ms?: number;
  // Local time the push arrived: the turn timer counts down from here.
  receivedAt?: number;
}

export interface GameResult {
  scores?: number[];
  winners?: number[];
  [key: string]: unknown;
}

export interface ChatLine {
  player: string;
  name: string;
  text: string;
  at: number;
}

export class ServerError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

// Reads a field of an unknown object without trusting its shape.
export function field(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined;
}

export function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : fallback;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function strs(v: unknown): string[] {
  return arr(v).filter((x): x is string => typeof x === 'string');
}

// One step of a replay: the state after a move (step 0: the deal) as the replaying seat saw it.
export interface ReplayStep {
  seq: number;
  seat?: number;
  // Only the replaying seat's own moves; others' show through their public events.
  move?: Move;
  events: JsonObject[];
  view: JsonObject;
  to_act: number[];
}

// {"type":"replay"} from get_replay or GET /api/games/<room>/replay.
export interface Replay {
  room: string;
  kind: string;
  game: number;
  as: number | null;
  finished: boolean;
  options: JsonObject;
  steps: ReplayStep[];
  result: GameResult | null;
  // Once the game is over: the full state at the deal and every move.
  reveal: { initial: JsonObject; moves: { seq: number; seat: number; move: Move }[] } | null;
}

// Reads a replay defensively (steps without a view are dropped).
export function readReplay(msg: unknown): Replay {
  const steps = arr(field(msg, 'steps')).filter((s) => field(s, 'view') && typeof field(s, 'view') === 'object').map((s) => ({
    seq: num(field(s, 'seq')),
    seat: typeof field(s, 'seat') === 'number' ? field(s, 'seat') as number : undefined,
    move: (field(s, 'move') && typeof field(s, 'move') === 'object' ? field(s, 'move') : undefined) as Move | undefined,
    events: arr(field(s, 'events')).filter((e) => e && typeof e === 'object') as JsonObject[],
    view: field(s, 'view') as JsonObject,
    to_act: arr(field(s, 'to_act')).filter((x): x is number => typeof x === 'number'),
  }));
  const reveal = field(msg, 'reveal');
  const initial = field(reveal, 'initial');
  return {
    room: str(field(msg, 'room')),
    kind: str(field(msg, 'kind')),
    game: num(field(msg, 'game'), 1),
    as: typeof field(msg, 'as') === 'number' ? field(msg, 'as') as number : null,
    finished: field(msg, 'finished') === true,
    options: (field(msg, 'options') ?? {}) as JsonObject,
    steps,
    result: (field(msg, 'result') && typeof field(msg, 'result') === 'object' ? field(msg, 'result') : null) as GameResult | null,
    reveal: initial && typeof initial === 'object'
      ? { initial: initial as JsonObject, moves: arr(field(reveal, 'moves')) as { seq: number; seat: number; move: Move }[] }
      : null,
  };
}
