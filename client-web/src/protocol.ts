// The wire types of Parlor protocol v1 come from @parlor/client (../client-ts), whose
// drift test holds them to protocol/PROTOCOL.md. This module adds what the web client
// keeps on top of them, and defensive readers: unknown fields are ignored.

import type { GameResult, JsonObject, Move, ReplayReply, ReplayStep as WireReplayStep, RoomSummary, StatePush as WireStatePush } from '@parlor/client';

export type { ChatLine, Choose, GameInfo, GameResult, Json, JsonObject, Move, OptionSchema, Prompt, SeatInfo } from '@parlor/client';
export { ServerError } from '@parlor/client';

// A room as the lobby lists it, or as its `room` push shows it (with `you`).
export type RoomInfo = RoomSummary;

// The latest state of a room, as kept by the store (and drawn by replays).
export interface StatePush extends Omit<WireStatePush, 'type' | 'events'> {
  events: JsonObject[];
  // Local time the push arrived: the turn timer counts down from here.
  receivedAt?: number;
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

// A replay (get_replay, or GET /api/games/<room>/replay) as the web client keeps it: the
// wire reply with every step's events present (readReplay fills them in).
export interface ReplayStep extends Omit<WireReplayStep, 'events'> { events: JsonObject[] }
export interface Replay extends Omit<ReplayReply, 'type' | 're' | 'steps'> { steps: ReplayStep[] }

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
