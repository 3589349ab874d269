// What the user can do, as protocol requests, and how pushes update the store.

import type { CreateRoomRequest, GetReplayRequest, JoinRoomRequest, MoveRequest, ParlorClient, Push, QuickPlayMessage, QuickPlayRequest, QuickPlayWaiting, Replies, RequestMessage, RequestType } from '@parlor/client';
import { Move, RoomInfo, ServerError, GameInfo, JsonObject, Replay, arr, field, num, readReplay, str } from './protocol';
import { identity, openSocket } from './socket';
import { announce } from './announce';
import { turnChime } from './sound';
import { describeEvent } from './events';
import { changed, locked, ReplayData, RoomData, room, state } from './state';

let socket: ParlorClient | null = null;
let lobbyTimer = 0;
// Whether this connection's lobby subscription is live (the server pushes room changes). A
// subscription ends with its connection; each welcome subscribes again.
let lobbyLive = false;
// Lobby requests a draining server refused (shutting_down: a restart or an upgrade; it closes
// the connection with 1012 shortly). Each is asked again, once, on the next welcome: through
// the cluster's address the new connection reaches a live node.
let askAgain: (() => void)[] = [];
const RESTARTING = 'The server is restarting. Your request goes out again once you are reconnected.';

export function wsUrl(): string {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}/ws`;
}

export function connect(): void {
  if (socket) return;
  socket = openSocket(wsUrl());
  socket.on('status', (status, d) => {
    if (status !== 'connected') lobbyLive = false;
    state.status = status;
    state.retryInMs = d.retryInMs;
    state.attempt = d.attempt;
    changed();
  });
  socket.on('welcome', ({ player, dev }) => {
    state.player = player;
    state.dev = dev;
    state.epoch += 1;
    // Requests lost with the old connection are no longer worth a warning, except a move,
    // which is sent again (see deliverMove).
    for (const [id, r] of state.rooms) {
      if (r.errorCode === 'disconnected') { r.error = null; r.errorCode = null; r.busy = false; }
      const pending = r.pendingMove;
      r.pendingMove = null;
      if (pending) void deliverMove(id, pending);
    }
    void refreshGames();
    // A quick-play wait ends with its connection: ask again on the new one.
    if (state.quickPlay) void quickPlay(state.quickPlay.kind);
    const again = askAgain;
    askAgain = [];
    for (const ask of again) ask();
    // The resume pushes (a room and a state for every room we sit in) come right after
    // welcome, so once the lobby snapshot arrives we know whether the linked room is ours.
    void subscribeLobby().then(() => {
      if (state.route.page === 'room') void ensureInRoom(state.route.id);
    });
    changed();
  });
  socket.on('push', onPush);
  void socket.start();
  // A server without the lobby push (an older node) is polled instead, while the lobby shows.
  window.clearInterval(lobbyTimer);
  lobbyTimer = window.setInterval(() => {
    if (!lobbyLive && state.route.page === 'lobby' && state.status === 'connected' && document.visibilityState === 'visible') void refreshRooms();
  }, 2000);
}

// Subscribes to the lobby push: the snapshot replaces the list, and room_added / room_changed
// / room_removed keep it current (see onPush).
async function subscribeLobby(): Promise<void> {
  try {
    const reply = await req({ type: 'subscribe_lobby' });
    state.openRooms = (Array.isArray(reply.rooms) ? reply.rooms : []) as RoomInfo[];
    state.roomsLoaded = true;
    lobbyLive = true;
    changed();
  } catch {
    await refreshRooms();
  }
}

function applyLobbyPush(type: string, items: unknown[]): void {
  if (type === 'room_removed') {
    const gone = new Set(items.map(String));
    state.openRooms = state.openRooms.filter((r) => !gone.has(r.room));
    return;
  }
  for (const item of items) {
    const info = item as RoomInfo;
    if (!info || typeof info.room !== 'string') continue;
    const i = state.openRooms.findIndex((x) => x.room === info.room);
    if (i >= 0) state.openRooms[i] = info;
    else state.openRooms.push(info);
  }
  state.openRooms.sort((a, b) => (a.room < b.room ? -1 : a.room > b.room ? 1 : 0));
}

export function connected(): boolean {
  return socket?.connected ?? false;
}

// The user asked not to wait for the next retry.
export function reconnectNow(): void {
  socket?.retryNow();
}

function req<T extends RequestType>(msg: RequestMessage<T>): Promise<Replies[T]> {
  if (!socket) return Promise.reject(new ServerError('offline', 'Not connected.'));
  return socket.request(msg);
}

function onPush(msg: Push): void {
  switch (msg.type) {
    case 'room': {
      const info: RoomInfo = msg;
      const r = room(info.room);
      const wasFinished = r.info?.status === 'finished';
      r.info = info;
      r.epoch = state.epoch;
      if (wasFinished && info.status !== 'finished') r.result = null;
      upsertOpenRoom(info);
      break;
    }
    case 'state': {
      const s = msg;
      const r = room(s.room);
      if (r.state && s.seq < r.state.seq) break; // an older push raced a newer one (seq only grows)
      const fresh = !r.state || s.seq !== r.state.seq;
      const wasPrompted = !!r.state?.prompt;
      r.state = { ...s, receivedAt: Date.now(), view: (s.view ?? {}) as JsonObject, to_act: Array.isArray(s.to_act) ? s.to_act : [], prompt: s.prompt ?? null, events: Array.isArray(s.events) ? s.events : [] };
      if (fresh) {
        // A new state supersedes whatever was in flight (its reply may still be on the way).
        r.busy = false;
        logEvents(r.log, s.seq, r.state.events);
        // The table on screen tells a screen reader what happened, and when it is this player's turn.
        if (state.route.page === 'room' && state.route.id === s.room) {
          for (const e of r.state.events) if (e && typeof e === 'object') announce(describeEvent(r, e as JsonObject));
          if (r.state.prompt && !wasPrompted) { announce('Your turn'); turnChime(); }
        }
        // A refusal was about the previous state: the new one settles it (stale_state included).
        if (r.error && r.errorCode !== 'disconnected') { r.error = null; r.errorCode = null; }
        // Keep only selected cards still held.
        r.selected = r.state.prompt ? r.selected.filter((c) => handOf(s.view).includes(c)) : [];
      }
      break;
    }
    case 'chat': {
      const r = room(String(msg.room));
      r.chat.push({ player: String(msg.player ?? ''), name: String(msg.name ?? ''), text: String(msg.text ?? ''), at: Date.now() });
      if (state.route.page === 'room' && state.route.id === String(msg.room)) announce(`${String(msg.name || msg.player || '')} says: ${String(msg.text ?? '')}`);
      if (r.chat.length > 200) r.chat.splice(0, r.chat.length - 200);
      break;
    }
    case 'chat_history': {
      // The room's latest lines, on joining, watching or resuming: they replace what the page
      // had (after a reload it had nothing; after a reconnect the same lines, and maybe more).
      const r = room(String(msg.room));
      const lines = (Array.isArray(msg.messages) ? msg.messages : []) as unknown as Record<string, unknown>[];
      r.chat = lines.map((m) => ({
        player: String(m.player ?? ''), name: String(m.name ?? ''), text: String(m.text ?? ''),
        at: typeof m.at === 'number' ? m.at : Date.now(),
      }));
      break;
    }
    case 'event_history': {
      // The game's play log so far, after the state push on joining, watching or resuming: it
      // replaces what the page had (after a reload nothing; after a reconnect the same moves).
      // Only the log is filled: announcements, motion and sound are for what happens now.
      const r = room(String(msg.room));
      const log: RoomData['log'] = [];
      let upTo = -1;
      for (const entry of arr(msg.entries)) {
        const seq = num(field(entry, 'seq'), -1);
        logEvents(log, seq, arr(field(entry, 'events')));
        upTo = Math.max(upTo, seq);
      }
      // A newer push that came first stays after it.
      upTo = num(msg.seq, upTo);
      r.log = log.concat(r.log.filter((x) => x.seq > upTo)).slice(-200);
      break;
    }
    case 'seat_removed':
    case 'room_closed': {
      // The host took our seat, or an administrator closed the room: it is no longer ours.
      const id = String(msg.room ?? '');
      state.rooms.delete(id);
      state.openRooms = state.openRooms.filter((x) => x.room !== id);
      const reason = String(msg.reason ?? (msg.type === 'room_closed' ? 'The room was closed.' : 'You were removed from the room.'));
      state.lobbyError = reason;
      // The way to the lobby clears its old notices: this one goes along.
      if (state.route.page === 'room' && state.route.id === id) { noticeAfterRoute = reason; go({ page: 'lobby' }); }
      break;
    }
    case 'game_over': {
      const r = room(String(msg.room));
      r.result = msg.result ?? {};
      break;
    }
    case 'quick_play':
      onQuickPlay(msg);
      break;
    case 'room_added':
    case 'room_changed':
    case 'room_removed':
      applyLobbyPush(msg.type, Array.isArray(msg.rooms) ? (msg.rooms as unknown[]) : []);
      break;
    case 'error':
      // An error without `re` is the server telling us about the connection itself.
      state.lobbyError = String(msg.message ?? msg.code ?? 'error');
      break;
    default:
      return;
  }
  changed();
}

// Adds a state's public events to a play log (one line each, drawn by room.ts), which keeps
// its latest 200.
function logEvents(log: RoomData['log'], seq: number, events: unknown[]): void {
  for (const e of events) if (e && typeof e === 'object') log.push({ seq, event: e as JsonObject });
  if (log.length > 200) log.splice(0, log.length - 200);
}

export function handOf(view: unknown): string[] {
  const v = view as Record<string, unknown> | null;
  if (!v || typeof v !== 'object') return [];
  const hand = v.hand;
  return Array.isArray(hand) ? hand.filter((c): c is string => typeof c === 'string') : [];
}

function upsertOpenRoom(info: RoomInfo): void {
  const i = state.openRooms.findIndex((x) => x.room === info.room);
  const summary = { ...info };
  delete summary.you;
  if (i >= 0) state.openRooms[i] = summary;
}

// The games over HTTP (/api/games: the same list list_games answers), for a visitor who has
// not connected yet. A failure leaves the list empty: the lobby asks again once connected.
export async function loadGamesOverHttp(): Promise<void> {
  try {
    const reply = await fetch('/api/games');
    if (!reply.ok) return;
    const body = await reply.json() as { games?: unknown };
    if (!state.games.length && Array.isArray(body.games)) {
      state.games = body.games as GameInfo[];
      changed();
    }
  } catch { /* shown once connected */ }
}

export async function refreshGames(): Promise<void> {
  try {
    const reply = await req({ type: 'list_games' });
    state.games = (Array.isArray(reply.games) ? reply.games : []) as GameInfo[];
    if (!state.createKind && state.games.length) state.createKind = state.games[0].kind;
    changed();
  } catch { /* retried on the next welcome */ }
}

function waitFrom(msg: QuickPlayWaiting): void {
  const estimate = Number(msg.estimate_ms ?? 0);
  state.quickPlay = {
    kind: String(msg.kind ?? ''),
    position: Number(msg.position ?? 0),
    waiting: Number(msg.waiting ?? 0),
    opensBy: estimate > 0 ? Date.now() + estimate : 0,
  };
}

function onQuickPlay(msg: QuickPlayMessage): void {
  if (msg.status === 'waiting') {
    // A standing keeps the promise made when we asked (the estimate only counts down).
    const opensBy = state.quickPlay?.opensBy ?? 0;
    waitFrom(msg);
    if (opensBy && state.quickPlay) state.quickPlay.opensBy = opensBy;
  } else if (msg.status === 'seated' && typeof msg.room === 'string') {
    state.quickPlay = null;
    const r = room(msg.room);
    r.watching = false;
    r.epoch = state.epoch; // we sit there: no need to watch when the page opens
    go({ page: 'room', id: msg.room });
  } else if (msg.status === 'failed') {
    state.quickPlay = null;
    state.lobbyError = String(msg.message ?? 'No table could be opened.');
  }
}

// Asks for a seat at a table of `kind` with the game's default seats and options (rated when
// the lobby's "Rated" box is ticked).
export async function quickPlay(kind: string): Promise<void> {
  const msg: QuickPlayRequest = { type: 'quick_play', kind };
  if (state.drafts['quick:rated'] === 'true') msg.rated = true;
  const reply = await lobbyCall(() => req(msg), 'lobbyError', () => void quickPlay(kind));
  if (reply) waitFrom(reply);
  else state.quickPlay = null;
  changed();
}

export async function cancelQuickPlay(): Promise<void> {
  state.quickPlay = null;
  changed();
  try { await req({ type: 'cancel_quick_play' }); } catch { /* not waiting any more */ }
}

// The open rooms, asked for: only needed while there is no live lobby subscription.
export async function refreshRooms(): Promise<void> {
  if (lobbyLive) return;
  try {
    const reply = await req({ type: 'list_rooms' });
    const rooms = (Array.isArray(reply.rooms) ? reply.rooms : []) as RoomInfo[];
    const same = state.roomsLoaded && JSON.stringify(rooms) === JSON.stringify(state.openRooms);
    state.openRooms = rooms;
    state.roomsLoaded = true;
    if (!same) changed();
  } catch { /* next poll */ }
}

function fail(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Runs a lobby request, reporting a refusal in the lobby banner (or the create form's line).
// `again` sends the request anew: a draining server's refusal (shutting_down) is answered
// with it on the next welcome rather than shown as a failure.
async function lobbyCall<T>(fn: () => Promise<T>, where: 'lobbyError' | 'createError' = 'lobbyError', again?: () => void): Promise<T | null> {
  state[where] = null;
  try {
    return await fn();
  } catch (err) {
    if (again && err instanceof ServerError && err.code === 'shutting_down') {
      askAgain.push(again);
      state[where] = RESTARTING;
    } else {
      state[where] = fail(err);
    }
    changed();
    return null;
  }
}

// Runs a room request, reporting a refusal (the server's message) at the table; a refusal
// whose code is in `quiet` is left to the caller (only its code is kept, nothing is shown).
async function roomCall<T extends RequestType>(id: string, msg: RequestMessage<T>, quiet: string[] = []): Promise<Replies[T] | null> {
  const r = room(id);
  r.busy = true;
  // A new attempt replaces the last refusal.
  r.error = null;
  r.errorCode = null;
  changed();
  try {
    return await req(msg);
  } catch (err) {
    r.errorCode = err instanceof ServerError ? err.code : 'error';
    if (quiet.includes(r.errorCode)) return null;
    r.error = fail(err);
    r.errorSerial += 1;
    return null;
  } finally {
    r.busy = false;
    changed();
  }
}

// Cluster mode: a request for a room between nodes (its node died and another is taking it
// over, which takes about a lease) is answered room_moved: nothing was done, send it again
// shortly. Moves and watching are asked again every MOVED_RETRY_MS for up to MOVED_RETRY_FOR_MS.
const MOVED_RETRY_MS = 500;
const MOVED_RETRY_FOR_MS = 30000;
const pause = (ms: number) => new Promise<void>((resolve) => window.setTimeout(resolve, ms));

// Renames this player on the server (`rename`): null once the new name is stored, else why
// not, in the player's words.
export async function renamePlayer(name: string): Promise<string | null> {
  try {
    await req({ type: 'rename', name });
    return null;
  } catch (e) {
    return e instanceof ServerError ? e.message : 'The name could not be changed; try again.';
  }
}

export function setName(name: string): void {
  const clean = name.trim().slice(0, 32);
  if (!clean) return;
  identity.setName(clean);
  state.name = clean;
  changed();
}

export async function createRoom(kind: string, seats: number, options: JsonObject, rated = false): Promise<void> {
  const msg: CreateRoomRequest = { type: 'create_room', kind, seats, options };
  if (rated) msg.rated = true;
  const reply = await lobbyCall(() => req(msg), 'createError', () => void createRoom(kind, seats, options, rated));
  if (reply && typeof reply.room === 'string') {
    const r = room(reply.room);
    r.watching = false;
    r.epoch = state.epoch; // we sit there: no need to watch when the page opens
    go({ page: 'room', id: reply.room });
    void refreshRooms();
  } else if (state.createError) {
    // The refusal is drawn under the create button by now (drawing is synchronous); on a
    // phone a longer room list above can have pushed it off screen.
    document.querySelector('[data-testid="create-error"]')?.scrollIntoView({ block: 'nearest' });
  }
}

export async function joinRoom(id: string, seat?: number): Promise<void> {
  const msg: JoinRoomRequest = { type: 'join_room', room: id };
  if (seat !== undefined) msg.seat = seat;
  if (state.route.page === 'room' && state.route.id === id) {
    await roomCall(id, msg);
    return;
  }
  const reply = await lobbyCall(() => req(msg));
  if (reply) {
    room(id).epoch = state.epoch;
    go({ page: 'room', id });
  }
}

export async function watchRoom(id: string, since = Date.now(), connection = state.epoch): Promise<void> {
  const r = room(id);
  r.watching = true;
  try {
    await req({ type: 'watch_room', room: id });
  } catch (err) {
    if (err instanceof ServerError && err.code === 'room_moved' && Date.now() - since < MOVED_RETRY_FOR_MS) {
      await pause(MOVED_RETRY_MS);
      // Still wanted: the page still shows the room and no push of it came meanwhile, on the
      // same connection (a new one's welcome asks again by itself).
      if (state.route.page === 'room' && state.route.id === id && r.watching && r.epoch !== state.epoch && state.epoch === connection) {
        return watchRoom(id, since, connection);
      }
      return;
    }
    r.error = fail(err);
    r.errorCode = err instanceof ServerError ? err.code : 'error';
    r.watching = false;
  }
  changed();
}

// Called when a room's page is open: watch it unless we sit there or already watch.
export async function ensureInRoom(id: string): Promise<void> {
  const r = room(id);
  // A room push (or a joined / room_created reply) on this connection means we are there.
  if (r.epoch === state.epoch) return;
  const listed = state.openRooms.find((x) => x.room === id);
  if (listed && state.player && listed.seats.some((s) => s?.player === state.player)) return;
  await watchRoom(id);
}

export async function leaveRoom(id: string): Promise<void> {
  await roomCall(id, { type: 'leave_room', room: id });
  state.rooms.delete(id);
  go({ page: 'lobby' });
  void refreshRooms();
}

export type BotLevel = 'easy' | 'medium' | 'hard';

// The level asked for, then the strategies it stands for and weaker ones: a server that does
// not know a name answers unknown_strategy (one without search bots has no "hard").
const botStrategies: Record<BotLevel, string[]> = {
  easy: ['easy', 'random'],
  medium: ['medium', 'greedy', 'random'],
  hard: ['hard', 'ismcts', 'medium', 'greedy', 'random'],
};

export async function addBot(id: string, seat: number, level: BotLevel = 'medium'): Promise<void> {
  for (const strategy of botStrategies[level]) {
    await roomCall(id, { type: 'add_bot', room: id, seat, strategy });
    if (room(id).errorCode !== 'unknown_strategy') return;
  }
}

// Host controls: only the room's creator may use them, while the room waits.
export async function removeSeat(id: string, seat: number): Promise<void> {
  await roomCall(id, { type: 'remove_seat', room: id, seat });
}

export async function setRoomLocked(id: string, locked: boolean): Promise<void> {
  await roomCall(id, { type: locked ? 'lock_room' : 'unlock_room', room: id });
}

// Stops (or starts again) showing a player's chat; the server filters it for us.
export async function setMuted(id: string, player: string, name: string, muted: boolean): Promise<void> {
  if (await roomCall(id, { type: muted ? 'mute' : 'unmute', player }) === null) return;
  if (muted) {
    state.muted.set(player, name);
    const r = room(id);
    r.chat = r.chat.filter((c) => c.player !== player);
  } else {
    state.muted.delete(player);
  }
  changed();
}

export async function startGame(id: string): Promise<void> {
  await roomCall(id, { type: 'start', room: id });
}

export async function sendChat(id: string, text: string): Promise<boolean> {
  const clean = text.trim();
  if (!clean) return false;
  return (await roomCall(id, { type: 'chat', room: id, text: clean.slice(0, 500) })) !== null;
}

// Sends a move for the state this client is looking at (stale ones are refused).
export async function sendMove(id: string, move: Move): Promise<boolean> {
  const r = room(id);
  if (locked(r)) return false;
  const msg: MoveRequest = { type: 'move', room: id, move };
  if (r.state) msg.seq = r.state.seq;
  return deliverMove(id, msg);
}

async function deliverMove(id: string, msg: MoveRequest, since = Date.now()): Promise<boolean> {
  const r = room(id);
  const reply = await roomCall(id, msg, Date.now() - since < MOVED_RETRY_FOR_MS ? ['room_moved'] : []);
  if (!reply && r.errorCode === 'room_moved' && r.error === null) {
    // The room is moving to another node: the move was not played. The table waits as for any
    // move in flight, then the move goes again with the same seq (played at most once).
    r.errorCode = null;
    r.busy = true;
    changed();
    await pause(MOVED_RETRY_MS);
    r.busy = false;
    // A newer state meanwhile (the table moved on) settles it: the move was for an older one.
    if (r.state && typeof msg.seq === 'number' && r.state.seq > msg.seq) { changed(); return false; }
    return deliverMove(id, msg, since);
  }
  if (reply) r.selected = [];
  if (!reply && r.errorCode === 'disconnected') {
    // The connection dropped before the reply: the move may or may not have arrived. It is
    // sent again after the next welcome with the same seq, so it is played at most once
    // (a copy of a move already played is refused as stale_state, settled below).
    r.pendingMove = msg;
    r.error = 'The connection dropped before the server answered: your move will be sent again as soon as it is back.';
    changed();
  }
  // stale_state: the newer state may already be on screen, in which case it is resolved.
  if (!reply && r.errorCode === 'stale_state' && r.state && typeof msg.seq === 'number' && r.state.seq > msg.seq) {
    r.error = null;
    r.errorCode = null;
    changed();
  }
  return reply !== null;
}

export function clearError(id: string): void {
  const r = room(id);
  r.error = null;
  r.errorCode = null;
  changed();
}

// Routing: "#/room/<id>" opens a room; "#/replay/<id>[/<seat>][?game=<n>]" a replay
// (no seat: the spectator view; no game: the latest); anything else is the lobby.
export function parseRoute(hash: string): typeof state.route {
  const replay = /^#\/replay\/([^/?#]+)(?:\/(\d+))?\/?(?:\?(.*))?$/.exec(hash);
  if (replay) {
    const game = /(?:^|&)game=(\d+)/.exec(replay[3] ?? '');
    return { page: 'replay', id: decodeURIComponent(replay[1]), seat: replay[2] !== undefined ? Number(replay[2]) : null, game: game ? Number(game[1]) : null };
  }
  const board = /^#\/leaderboard(?:\/([^/?#]+))?\/?$/.exec(hash);
  if (board) return { page: 'leaderboard', kind: board[1] !== undefined ? decodeURIComponent(board[1]) : null };
  const profile = /^#\/player\/([^/?#]+)\/?$/.exec(hash);
  if (profile) return { page: 'player', id: decodeURIComponent(profile[1]) };
  const m = /^#\/room\/([^/?#]+)/.exec(hash);
  return m ? { page: 'room', id: decodeURIComponent(m[1]) } : { page: 'lobby' };
}

export function routeHash(route: typeof state.route): string {
  if (route.page === 'room') return `#/room/${encodeURIComponent(route.id)}`;
  if (route.page === 'leaderboard') return `#/leaderboard${route.kind !== null ? `/${encodeURIComponent(route.kind)}` : ''}`;
  if (route.page === 'player') return `#/player/${encodeURIComponent(route.id)}`;
  if (route.page === 'replay') {
    return `#/replay/${encodeURIComponent(route.id)}${route.seat !== null ? `/${route.seat}` : ''}${route.game !== null ? `?game=${route.game}` : ''}`;
  }
  return '#/';
}

export function go(route: typeof state.route): void {
  const hash = routeHash(route);
  if (location.hash !== hash) location.hash = hash; // hashchange re-enters via onRoute
  else onRoute();
}

// A notice for the page the client is taken to (why a room was left), shown once it is there.
let noticeAfterRoute: string | null = null;

export function onRoute(): void {
  state.route = parseRoute(location.hash);
  state.lobbyError = noticeAfterRoute;
  noticeAfterRoute = null;
  state.createError = null;
  if (state.route.page === 'room' && connected()) void ensureInRoom(state.route.id);
  if (state.route.page === 'replay') void loadReplay(state.route.id, state.route.seat, state.route.game);
  if (state.route.page === 'lobby') void refreshRooms();
  changed();
}

// Replays ---------------------------------------------------------------------

export function replayKey(id: string, seat: number | null, game: number | null): string {
  return `${id}|${seat ?? 'spectator'}|${game ?? 'latest'}`;
}

export function replayData(id: string, seat: number | null, game: number | null): ReplayData {
  const key = replayKey(id, seat, game);
  let d = state.replays.get(key);
  if (!d) {
    d = { loading: false, error: null, errorCode: null, data: null, step: 0, reveal: false, seenEnd: false };
    state.replays.set(key, d);
  }
  return d;
}

// Fetches a replay once (again with `force`, e.g. for a game still being played).
export async function loadReplay(id: string, seat: number | null, game: number | null, force = false): Promise<void> {
  const d = replayData(id, seat, game);
  if (d.loading || (d.data && !force)) return;
  d.loading = true;
  d.error = null;
  d.errorCode = null;
  changed();
  try {
    const data = await fetchReplay(id, seat, game);
    const atEnd = d.data !== null && d.step >= d.data.steps.length - 1;
    d.data = data;
    // A refreshed replay of a game still on keeps following its end.
    d.step = atEnd ? data.steps.length - 1 : Math.min(d.step, Math.max(0, data.steps.length - 1));
    if (data.steps.length <= 1) d.seenEnd = true;
  } catch (err) {
    d.error = fail(err);
    d.errorCode = err instanceof ServerError ? err.code : 'error';
  } finally {
    d.loading = false;
    changed();
  }
}

// Finished games come over plain HTTP (GET /api/games/<room>/replay, no size limit on
// the socket's queue, no sign-in needed); a game still on answers 403 there, and is
// asked for over the socket as this player (own seat or the spectator view only).
async function fetchReplay(id: string, seat: number | null, game: number | null): Promise<Replay> {
  const q: string[] = [];
  if (seat !== null) q.push(`as=${seat}`);
  if (game !== null) q.push(`game=${game}`);
  try {
    const res = await fetch(`api/games/${encodeURIComponent(id)}/replay${q.length ? `?${q.join('&')}` : ''}`, { headers: { accept: 'application/json' } });
    const body: unknown = await res.json().catch(() => null);
    if (res.ok && body && typeof body === 'object') return readReplay(body);
    if (res.status !== 403 && body && typeof body === 'object') {
      throw new ServerError(str(field(body, 'error'), `http_${res.status}`), str(field(body, 'message'), `HTTP ${res.status}`));
    }
  } catch (err) {
    if (err instanceof ServerError) throw err;
    // No HTTP API here (a dev proxy, say): the socket may still answer.
  }
  const msg: GetReplayRequest = { type: 'get_replay', room: id };
  if (seat !== null) msg.seat = seat;
  if (game !== null) msg.game = game;
  return readReplay(await req(msg));
}

export function replayStep(d: ReplayData, to: number): void {
  if (!d.data) return;
  const last = d.data.steps.length - 1;
  const step = Math.max(0, Math.min(last, to));
  if (step === d.step) return;
  d.step = step;
  if (step === last) d.seenEnd = true;
  changed();
}
