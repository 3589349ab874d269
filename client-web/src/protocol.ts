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
  status: 'waiting' | 'playing' | 'finished' | string;
  seats: (SeatInfo | null)[];
  spectators: number;
  you?: number | null;
  options?: JsonObject;
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
