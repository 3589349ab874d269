// The messages of the Parlor wire protocol, version 1, as TypeScript types.
// protocol/PROTOCOL.md is the reference; tests/client/protocol_drift_test.mjs checks
// that every request, reply, push and error code it names is here, and nothing more.
//
// Version 1 only grows: the server may send fields and message types that are not
// listed here, so every shape is open (unknown fields are allowed and ignored).

export const PROTOCOL_VERSION = 1;

// Any JSON value.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// A request id: a string of at most 64 bytes or an integer, echoed as `re`.
export type RequestId = string | number;

// A move: an object with an `action`; the other fields depend on the game.
export type Move = JsonObject & { action?: string };

// ---------------------------------------------------------------------------
// Shared shapes

export interface OptionChoice { value: string; description?: string }

export interface OptionSchema {
  type: 'integer' | 'boolean' | 'choice' | (string & {});
  default?: Json;
  description?: string;
  min?: number;
  max?: number;
  choices?: OptionChoice[];
  // A non-default value changes the rules of play.
  variant?: boolean;
}

// One entry of `list_games`.
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

// The statuses of a room, in PROTOCOL.md's order. `frozen`: a recovered game that no longer
// replays identically under the server's rules engine (shown, not played); `paused`: an
// external game's engine (or, in a cluster, the database) is not answering.
export const ROOM_STATUSES = ['waiting', 'playing', 'finished', 'frozen', 'paused'] as const;
export type RoomStatus = (typeof ROOM_STATUSES)[number];

export interface SeatInfo {
  seat: number;
  player: string;
  name: string;
  bot: boolean;
  connected: boolean;
}

// A `list_rooms` entry; the `room` push has the same shape plus `you`.
export interface RoomSummary {
  room: string;
  kind: string;
  // A server newer than this package may add statuses: treat an unknown one as not playable.
  status: RoomStatus | (string & {});
  // One entry per seat, null for a free seat.
  seats: (SeatInfo | null)[];
  spectators: number;
  // The room's options with every default filled in (`rated`: true for a rated room).
  options?: JsonObject;
  // The creator's player id; absent for rooms without a host (quick play's).
  host?: string;
  // Present, true, only while the host has locked the room.
  locked?: boolean;
  // Cluster mode only: the id of the node serving the room (connect with `?node=ID` to play
  // it without a hop between nodes).
  node?: string;
  // Only in the `room` push: your seat, or null when you watch.
  you?: number | null;
}

// Room options besides the game's own (PROTOCOL.md, "Creating and joining").
export interface RoomOptions {
  private?: boolean;
  grace?: number;
  turn_seconds?: number;
  on_timeout?: 'bot' | 'pass';
  // Development servers (--dev) only.
  seed?: number;
  [option: string]: Json | undefined;
}

export interface Choose {
  action: string;
  field: string;
  count: number;
  from: string[];
}

// What the seat to act may do: every legal move (`legal`), or any `count` distinct
// items of `choose.from` when the set is too large to list.
export interface Prompt {
  actions?: string[];
  legal?: Move[];
  choose?: Choose;
  // External games: what a select is about, or the stack a play goes onto.
  name?: string;
  to?: string;
  [key: string]: Json | Move[] | Choose | undefined;
}

export interface GameResult {
  scores?: number[];
  winners?: number[];
  [key: string]: Json | undefined;
}

export interface ChatLine {
  player: string;
  name: string;
  text: string;
  // When the server pushed the line, Unix milliseconds.
  at: number;
}

export interface ReplayStep {
  seq: number;
  seat?: number;
  move?: Move;
  events?: JsonObject[];
  view: JsonObject;
  to_act: number[];
}

// ---------------------------------------------------------------------------
// Requests (client to server). The client adds `id`; these types leave it out.

export interface HelloRequest {
  type: 'hello';
  protocol: number;
  // A new identity: `name`. Resuming: `token`.
  name?: string;
  token?: string;
}
export interface ListGamesRequest { type: 'list_games' }
export interface ListRoomsRequest {
  type: 'list_rooms';
  kind?: string;
  status?: RoomStatus;
  free_seat?: boolean;
  limit?: number;
  after?: string;
}
export interface CreateRoomRequest {
  type: 'create_room';
  kind: string;
  seats?: number;
  options?: RoomOptions;
  rated?: boolean;
}
export interface JoinRoomRequest { type: 'join_room'; room: string; seat?: number }
export interface WatchRoomRequest { type: 'watch_room'; room: string }
export interface LeaveRoomRequest { type: 'leave_room'; room: string }
export interface AddBotRequest { type: 'add_bot'; room: string; seat: number; strategy?: string }
export interface StartRequest { type: 'start'; room: string }
export interface ChatRequest { type: 'chat'; room: string; text: string }
export interface PingRequest { type: 'ping' }
export interface SubscribeLobbyRequest { type: 'subscribe_lobby'; kind?: string }
export interface UnsubscribeLobbyRequest { type: 'unsubscribe_lobby' }
export interface QuickPlayRequest {
  type: 'quick_play';
  kind: string;
  seats?: number;
  options?: JsonObject;
  rated?: boolean;
}
export interface CancelQuickPlayRequest { type: 'cancel_quick_play' }
export interface RenameRequest { type: 'rename'; name: string }
export interface RevokeTokenRequest { type: 'revoke_token' }
export interface RemoveSeatRequest { type: 'remove_seat'; room: string; seat: number }
export interface LockRoomRequest { type: 'lock_room'; room: string }
export interface UnlockRoomRequest { type: 'unlock_room'; room: string }
export interface MuteRequest { type: 'mute'; player: string }
export interface UnmuteRequest { type: 'unmute'; player: string }
export interface MoveRequest {
  type: 'move';
  room: string;
  move: Move;
  // The state the move was made on: a room that moved past it answers stale_state.
  seq?: number;
}
export interface LegalMovesRequest { type: 'legal_moves'; room: string }
export interface GetReplayRequest { type: 'get_replay'; room: string; seat?: number; game?: number }

// Every request, by its type.
export interface Requests {
  hello: HelloRequest;
  list_games: ListGamesRequest;
  list_rooms: ListRoomsRequest;
  create_room: CreateRoomRequest;
  join_room: JoinRoomRequest;
  watch_room: WatchRoomRequest;
  leave_room: LeaveRoomRequest;
  add_bot: AddBotRequest;
  start: StartRequest;
  chat: ChatRequest;
  ping: PingRequest;
  subscribe_lobby: SubscribeLobbyRequest;
  unsubscribe_lobby: UnsubscribeLobbyRequest;
  quick_play: QuickPlayRequest;
  cancel_quick_play: CancelQuickPlayRequest;
  rename: RenameRequest;
  revoke_token: RevokeTokenRequest;
  remove_seat: RemoveSeatRequest;
  lock_room: LockRoomRequest;
  unlock_room: UnlockRoomRequest;
  mute: MuteRequest;
  unmute: UnmuteRequest;
  move: MoveRequest;
  legal_moves: LegalMovesRequest;
  get_replay: GetReplayRequest;
}
export type RequestType = keyof Requests;
export type Request = Requests[RequestType];

// ---------------------------------------------------------------------------
// Replies (server to client, carrying the request's id as `re`)

interface ReplyBase { re?: RequestId }

export interface WelcomeReply extends ReplyBase {
  type: 'welcome';
  player: string;
  // The secret that resumes this identity: keep it, never show or log it.
  token: string;
  protocol: number;
  // Only from a development server (--dev): create_room takes a `seed`.
  dev?: boolean;
  // Cluster mode only: the id of the node holding this connection.
  node?: string;
}
export interface OkReply extends ReplyBase {
  type: 'ok';
  // A move's reply: the number of the new state.
  seq?: number;
}
export interface GamesReply extends ReplyBase { type: 'games'; games: GameInfo[] }
export interface RoomsReply extends ReplyBase {
  type: 'rooms';
  rooms: RoomSummary[];
  // When `limit` cut the list short: send the same request with `after: next`.
  next?: string;
}
export interface RoomCreatedReply extends ReplyBase { type: 'room_created'; room: string }
export interface JoinedReply extends ReplyBase { type: 'joined'; room: string; seat: number }
export interface WatchingReply extends ReplyBase { type: 'watching'; room: string }
export interface LeftReply extends ReplyBase { type: 'left'; room: string }
export interface PongReply extends ReplyBase { type: 'pong' }
export interface LobbyReply extends ReplyBase { type: 'lobby'; kind: string | null; rooms: RoomSummary[] }
export interface TokenReply extends ReplyBase { type: 'token'; player: string; token: string }
export interface LegalMovesReply extends ReplyBase { type: 'legal_moves'; room: string; moves: Move[] }
export interface ReplayReply extends ReplyBase {
  type: 'replay';
  room: string;
  kind: string;
  game: number;
  // The seat replayed, or null for the spectator view.
  as: number | null;
  finished: boolean;
  options: JsonObject;
  steps: ReplayStep[];
  result: GameResult | null;
  reveal: { initial: JsonObject; moves: { seq: number; seat: number; move: Move }[] } | null;
}

// `quick_play`: the answer to the request (status "waiting"), and the pushes that follow
// (without `re`) until the player is seated or no table could be opened.
export interface QuickPlayWaiting extends ReplyBase {
  type: 'quick_play';
  status: 'waiting';
  kind: string;
  seats: number;
  options: JsonObject;
  // 1: next to be seated.
  position: number;
  // Players in this queue.
  waiting: number;
  // How long at most until a table opens (bots fill it then); 0: never with bots.
  estimate_ms: number;
  rated?: boolean;
}
export interface QuickPlaySeated {
  type: 'quick_play';
  status: 'seated';
  kind: string;
  room: string;
  seat: number;
}
export interface QuickPlayFailed {
  type: 'quick_play';
  status: 'failed';
  code: string;
  message: string;
}
export type QuickPlayMessage = QuickPlayWaiting | QuickPlaySeated | QuickPlayFailed;

// An error reply (with `re`), or an error push (without: engine_unavailable, internal_error
// and room_moved about a room the player is in).
export interface ErrorMessage extends ReplyBase {
  type: 'error';
  code: ErrorCode | GameErrorCode | (string & {});
  message: string;
  // room_moved: the room, and the node that holds it when it has a live owner.
  room?: string;
  node?: string;
  // stale_state may say which state the room is at.
  seq?: number;
}

// The success reply of every request, by the request's type.
export interface Replies {
  hello: WelcomeReply;
  list_games: GamesReply;
  list_rooms: RoomsReply;
  create_room: RoomCreatedReply;
  join_room: JoinedReply;
  watch_room: WatchingReply;
  leave_room: LeftReply;
  add_bot: OkReply;
  start: OkReply;
  chat: OkReply;
  ping: PongReply;
  subscribe_lobby: LobbyReply;
  unsubscribe_lobby: OkReply;
  quick_play: QuickPlayWaiting;
  cancel_quick_play: OkReply;
  rename: OkReply;
  revoke_token: TokenReply;
  remove_seat: OkReply;
  lock_room: OkReply;
  unlock_room: OkReply;
  mute: OkReply;
  unmute: OkReply;
  move: OkReply;
  legal_moves: LegalMovesReply;
  get_replay: ReplayReply;
}
export type Reply = Replies[RequestType] | ErrorMessage;

// The type of each request's success reply, at run time. Checked against Replies by the
// compiler (a missing, extra or different entry does not compile) and against
// PROTOCOL.md by the drift test.
export const REPLY_TYPES = {
  hello: 'welcome',
  list_games: 'games',
  list_rooms: 'rooms',
  create_room: 'room_created',
  join_room: 'joined',
  watch_room: 'watching',
  leave_room: 'left',
  add_bot: 'ok',
  start: 'ok',
  chat: 'ok',
  ping: 'pong',
  subscribe_lobby: 'lobby',
  unsubscribe_lobby: 'ok',
  quick_play: 'quick_play',
  cancel_quick_play: 'ok',
  rename: 'ok',
  revoke_token: 'token',
  remove_seat: 'ok',
  lock_room: 'ok',
  unlock_room: 'ok',
  mute: 'ok',
  unmute: 'ok',
  move: 'ok',
  legal_moves: 'legal_moves',
  get_replay: 'replay',
} as const satisfies { [K in RequestType]: Replies[K]['type'] };

export const REQUEST_TYPES = Object.keys(REPLY_TYPES) as RequestType[];

// ---------------------------------------------------------------------------
// Pushes (server to client, never carrying `re`)

// Whenever a room's membership or status changes; after join, watch, resume.
export interface RoomPush extends RoomSummary { type: 'room' }

export interface StatePush {
  type: 'state';
  room: string;
  // Increases by one with each accepted move (and across rematches).
  seq: number;
  // What the receiving seat may see; its shape is the game's (PROTOCOL.md, "Games").
  view: JsonObject;
  to_act: number[];
  // Present only for a seat in to_act.
  prompt: Prompt | null;
  events: JsonObject[];
  // While a turn clock runs: when it runs out (server time, ms since the epoch), and the
  // milliseconds left when the frame was sent.
  deadline?: number;
  deadline_ms?: number;
}
export interface ChatPush { type: 'chat'; room: string; player: string; name: string; text: string }
export interface ChatHistoryPush { type: 'chat_history'; room: string; messages: ChatLine[] }
// One accepted move's public events (the deal's first), as its state push carried them.
export interface EventHistoryEntry { seq: number; events: JsonObject[] }
// The current game's latest public events (at most 200 moves), oldest first, up to state `seq`:
// after the state push on join, watch and resume; never sent while the room has no game.
export interface EventHistoryPush { type: 'event_history'; room: string; game: number; seq: number; entries: EventHistoryEntry[] }
export interface GameOverPush { type: 'game_over'; room: string; result: GameResult }
export interface RoomAddedPush { type: 'room_added'; rooms: RoomSummary[] }
export interface RoomChangedPush { type: 'room_changed'; rooms: RoomSummary[] }
export interface RoomRemovedPush { type: 'room_removed'; rooms: string[] }
export interface SeatRemovedPush { type: 'seat_removed'; room: string; seat: number; reason: string }
export interface RoomClosedPush { type: 'room_closed'; room: string; reason: string }

export interface Pushes {
  room: RoomPush;
  state: StatePush;
  chat: ChatPush;
  chat_history: ChatHistoryPush;
  event_history: EventHistoryPush;
  game_over: GameOverPush;
  room_added: RoomAddedPush;
  room_changed: RoomChangedPush;
  room_removed: RoomRemovedPush;
  quick_play: QuickPlayMessage;
  seat_removed: SeatRemovedPush;
  room_closed: RoomClosedPush;
  error: ErrorMessage;
}
export type PushType = keyof Pushes;
export type Push = Pushes[PushType];

// Every push type at run time (the compiler holds it to Pushes, the drift test to PROTOCOL.md).
const PUSH_TYPE_SET = {
  room: true,
  state: true,
  chat: true,
  chat_history: true,
  event_history: true,
  game_over: true,
  room_added: true,
  room_changed: true,
  room_removed: true,
  quick_play: true,
  seat_removed: true,
  room_closed: true,
  error: true,
} as const satisfies { [K in PushType]: true };

export const PUSH_TYPES = Object.keys(PUSH_TYPE_SET) as PushType[];

// ---------------------------------------------------------------------------
// Error codes

// The codes of PROTOCOL.md's "Errors" table, in its order.
export const ERROR_CODES = [
  'bad_request',
  'hello_required',
  'unsupported_protocol',
  'invalid_token',
  'unknown_game',
  'already_queued',
  'not_queued',
  'already_seated',
  'bad_options',
  'no_such_room',
  'room_full',
  'seat_taken',
  'not_seated',
  'not_started',
  'already_started',
  'game_over',
  'not_your_turn',
  'illegal_move',
  'card_not_held',
  'must_follow_suit',
  'does_not_beat',
  'wrong_combination',
  'stale_state',
  'rate_limited',
  'too_many_rooms',
  'not_allowed',
  'unknown_strategy',
  'shutting_down',
  'room_locked',
  'seat_empty',
  'banned',
  'rated_no_bots',
  'no_such_player',
  'internal_error',
  'engine_unavailable',
  'room_moved',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

// The games' own rejection codes (PROTOCOL.md, each game's rejection table) that the
// Errors table does not list. A rules engine of an external game may answer codes of its
// own too: a client treats any code it does not know as a refused request.
export const GAME_ERROR_CODES = [
  // Big Two
  'must_include_lowest',
  'cannot_pass',
  // Spades, Bid Whist, Agram
  'wrong_phase',
  'illegal_bid',
  'spades_not_broken',
  'bid_too_low',
  'must_bid',
  'wrong_discard_count',
  // Gem Merchants (Splendor)
  'bad_move',
  'unknown_action',
  'must_return_tokens',
  'must_choose_noble',
  'unknown_color',
  'cannot_take_gold',
  'bad_take',
  'not_enough_gems',
  'stack_too_small',
  'too_few_gems',
  'unknown_card',
  'card_not_available',
  'bad_level',
  'empty_deck',
  'too_many_reserved',
  'cannot_afford',
  'bad_payment',
  'bad_return',
  'unknown_noble',
  'noble_not_eligible',
] as const;
export type GameErrorCode = (typeof GAME_ERROR_CODES)[number];

// WebSocket close codes the server uses (PROTOCOL.md, "Limits").
export const CLOSE_CODES = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  invalidPayload: 1007,
  policy: 1008,
  tooBig: 1009,
  serviceRestart: 1012,
  tryAgainLater: 1013,
  replaced: 4000,
  kicked: 4001,
  banned: 4002,
} as const;
