// One connection to a Parlor server, kept up: `hello` on every (re)connect (with the
// token once there is one, so the server resumes the same player and seats), requests
// with `id` matched to their replies by `re`, pushes handed to subscribers, a ping when
// the line is quiet, and reconnection with capped exponential backoff plus jitter.
//
// It runs wherever a WebSocket constructor does: browsers, Node 22 and later (a global
// WebSocket), Node 20 with --experimental-websocket, or any constructor passed in.

import {
  ErrorCode,
  ErrorMessage,
  GameErrorCode,
  PROTOCOL_VERSION,
  Push,
  Pushes,
  PushType,
  Replies,
  Requests,
  RequestType,
  WelcomeReply,
} from './protocol.js';

// The part of the WHATWG WebSocket this client uses.
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;

// Codes this client gives to requests that got no reply from the server.
export type ClientErrorCode =
  | 'timeout' // no reply within requestTimeoutMs
  | 'disconnected' // the connection dropped before the reply (the request may have arrived)
  | 'closed'; // close() was called

// A refused request: the server's error reply (its `code` and `message`), or one of the
// client's own codes when no reply came.
export class ServerError extends Error {
  constructor(
    readonly code: ErrorCode | GameErrorCode | ClientErrorCode | (string & {}),
    message: string,
    // The whole error reply (room_moved carries `room` and `node`).
    readonly reply?: ErrorMessage,
  ) {
    super(message);
    this.name = 'ServerError';
  }
}

export type Status = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface StatusDetail {
  // Connection attempts since the last welcome.
  attempt: number;
  // When reconnecting: the wait before the next attempt.
  retryInMs: number;
  // Why the last connection ended (the close reason, or a description).
  reason: string;
}

export interface Welcome {
  player: string;
  // The server resumed the identity of the token this client held.
  resumed: boolean;
  // The server runs in development mode (create_room takes a `seed`).
  dev: boolean;
}

// Where the identity lives: in memory by default; a browser keeps it in localStorage so a
// reload resumes the same player.
export interface IdentityStore {
  token(): string | null;
  setToken(token: string | null): void;
  // The name a new identity says hello with.
  name(): string;
}

export interface ClientOptions {
  // ws://host:port/ws or wss://host/ws.
  url: string;
  // The name for a new identity (ignored when `identity` is given).
  name?: string;
  // A token from an earlier connection, to resume that player (ignored when `identity` is given).
  token?: string | null;
  identity?: IdentityStore;
  // Defaults to the global WebSocket.
  WebSocket?: WebSocketConstructor;
  // Reconnect after a dropped connection (default true).
  reconnect?: boolean;
  backoffMinMs?: number; // default 250
  backoffMaxMs?: number; // default 8000
  requestTimeoutMs?: number; // default 15000
  // Ping after this long; close and reconnect when nothing was heard for silenceLimitMs.
  pingEveryMs?: number; // default 20000
  silenceLimitMs?: number; // default 45000
}

export interface ClientEvents {
  status: (status: Status, detail: StatusDetail) => void;
  welcome: (welcome: Welcome) => void;
  // A new token (a new identity, or revoke_token), or null when the server forgot the old one.
  token: (token: string | null) => void;
  // Every push, whatever its type.
  push: (push: Push) => void;
}

// A request as the caller writes it: the type and its fields, no id.
export type RequestMessage<T extends RequestType> = { type: T } & Omit<Requests[T], 'type'>;

interface Pending {
  resolve(msg: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

function memoryIdentity(name: string, token: string | null): IdentityStore {
  let current = token;
  return { token: () => current, setToken: (t) => { current = t; }, name: () => name };
}

export class ParlorClient {
  private ws: WebSocketLike | null = null;
  private state: Status = 'idle';
  private nextId = 1;
  private pending = new Map<string, Pending>();
  private queue: { id: string; msg: object; p: Pending }[] = [];
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private lastHeard = 0;
  private welcomed = false;
  private helloId = '';
  private wanted = false;
  private welcome: Welcome | null = null;
  private readonly identity: IdentityStore;
  private readonly Ws: WebSocketConstructor;
  private readonly listeners: { [K in keyof ClientEvents]: Set<ClientEvents[K]> } = {
    status: new Set(), welcome: new Set(), token: new Set(), push: new Set(),
  };
  private readonly pushListeners = new Map<string, Set<(push: never) => void>>();

  constructor(private readonly options: ClientOptions) {
    this.identity = options.identity ?? memoryIdentity(options.name ?? 'guest', options.token ?? null);
    const ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!ctor) {
      throw new Error('No WebSocket here: use Node 22 or later, run Node 20 with --experimental-websocket, or pass options.WebSocket');
    }
    this.Ws = ctor;
  }

  // Whether the server has welcomed this connection (requests go out at once).
  get connected(): boolean { return this.welcomed; }
  get status(): Status { return this.state; }
  // The player id of the last welcome.
  get playerId(): string | null { return this.welcome?.player ?? null; }
  // The token that resumes this player (keep it secret).
  get token(): string | null { return this.identity.token(); }

  // Connects (and keeps reconnecting until close()). Resolves at the first welcome.
  start(): Promise<Welcome> {
    this.wanted = true;
    const first = new Promise<Welcome>((resolve) => {
      if (this.welcomed && this.welcome) {
        resolve(this.welcome);
        return;
      }
      const off = this.on('welcome', (w) => { off(); resolve(w); });
    });
    if (!this.ws) this.open();
    return first;
  }

  // Closes the connection for good; requests waiting for a reply are refused with `closed`.
  close(): void {
    this.wanted = false;
    clearTimeout(this.retryTimer);
    const ws = this.ws;
    this.ws = null;
    this.dropConnection('closed', 'The client closed the connection.');
    this.failQueue('closed', 'The client closed the connection.');
    if (ws && ws.readyState <= OPEN) ws.close(1000, 'bye');
    this.setStatus('closed', 0, 'closed by the client');
  }

  // Skips the rest of the backoff wait (the network is back, or the user asked).
  retryNow(): void {
    if (this.wanted && !this.ws && this.state === 'reconnecting') this.open();
  }

  // Sends a request; resolves with its success reply, rejects with ServerError on an error
  // reply (or `timeout` / `disconnected` / `closed`). Requests made before the welcome wait
  // for it.
  request<T extends RequestType>(msg: RequestMessage<T>): Promise<Replies[T]> {
    const id = `c${this.nextId++}`;
    return new Promise<Replies[T]>((resolve, reject) => {
      if (!this.wanted && this.state === 'closed') {
        reject(new ServerError('closed', 'The client is closed.'));
        return;
      }
      const p: Pending = { resolve: resolve as (msg: unknown) => void, reject, timer: undefined };
      p.timer = setTimeout(() => {
        this.pending.delete(id);
        this.queue = this.queue.filter((q) => q.id !== id);
        reject(new ServerError('timeout', 'The server did not answer in time.'));
      }, this.options.requestTimeoutMs ?? 15000);
      if (this.welcomed && this.ws?.readyState === OPEN) this.sendNow(id, msg, p);
      else this.queue.push({ id, msg, p });
    });
  }

  on<K extends keyof ClientEvents>(event: K, fn: ClientEvents[K]): () => void {
    const set = this.listeners[event] as Set<ClientEvents[K]>;
    set.add(fn);
    return () => { set.delete(fn); };
  }

  // Subscribes to one type of push; returns the unsubscribe function.
  onPush<K extends PushType>(type: K, fn: (push: Pushes[K]) => void): () => void {
    let set = this.pushListeners.get(type);
    if (!set) { set = new Set(); this.pushListeners.set(type, set); }
    const entry = fn as (push: never) => void;
    set.add(entry);
    return () => { set.delete(entry); };
  }

  private emit<K extends keyof ClientEvents>(event: K, ...args: Parameters<ClientEvents[K]>): void {
    for (const fn of [...this.listeners[event]]) (fn as (...a: Parameters<ClientEvents[K]>) => void)(...args);
  }

  private sendNow(id: string, msg: object, p: Pending): void {
    this.pending.set(id, p);
    // `id` first: an error about a later field can still echo it (PROTOCOL.md, "Transport").
    this.ws!.send(JSON.stringify({ id, ...msg }));
  }

  private open(): void {
    clearTimeout(this.retryTimer);
    this.setStatus(this.attempt === 0 ? 'connecting' : 'reconnecting', 0, '');
    let ws: WebSocketLike;
    try {
      ws = new this.Ws(this.options.url);
    } catch (err) {
      this.scheduleRetry(`cannot open a socket: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      this.sendHello(true);
    };
    ws.onmessage = (ev) => { if (this.ws === ws) this.onFrame(ev.data); };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.afterClose(ev.reason || `closed (${ev.code})`);
    };
    ws.onerror = () => { /* onclose follows and handles it */ };
  }

  private sendHello(useToken: boolean): void {
    const token = useToken ? this.identity.token() : null;
    this.helloId = `h${this.nextId++}`;
    const hello = token
      ? { id: this.helloId, type: 'hello', token, protocol: PROTOCOL_VERSION }
      : { id: this.helloId, type: 'hello', name: this.identity.name() || 'guest', protocol: PROTOCOL_VERSION };
    this.ws?.send(JSON.stringify(hello));
  }

  private onFrame(data: unknown): void {
    this.lastHeard = Date.now();
    let msg: { type?: unknown; re?: unknown; [key: string]: unknown };
    try {
      msg = JSON.parse(String(data)) as typeof msg;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    if (msg.re === undefined || msg.re === null) {
      this.deliverPush(msg as unknown as Push);
      return;
    }
    const re = String(msg.re);
    if (re === this.helloId) {
      this.onHelloReply(msg);
      return;
    }
    const p = this.pending.get(re);
    // A reply nobody waits for (a ping's, or one that came after its timeout) is dropped:
    // pushes never carry `re`.
    if (!p) return;
    this.pending.delete(re);
    clearTimeout(p.timer);
    if (msg.type === 'error') {
      const err = msg as unknown as ErrorMessage;
      p.reject(new ServerError(String(err.code ?? 'error'), String(err.message ?? err.code ?? 'error'), err));
    } else {
      p.resolve(msg);
    }
  }

  private deliverPush(push: Push): void {
    this.emit('push', push);
    const set = this.pushListeners.get(push.type);
    if (set) for (const fn of [...set]) (fn as (p: Push) => void)(push);
  }

  private onHelloReply(msg: { [key: string]: unknown }): void {
    if (msg.type === 'welcome') {
      const w = msg as unknown as WelcomeReply;
      const before = this.identity.token();
      const resumed = before !== null && before === w.token;
      if (typeof w.token === 'string' && w.token !== before) {
        this.identity.setToken(w.token);
        this.emit('token', w.token);
      }
      this.welcome = { player: String(w.player ?? ''), resumed, dev: w.dev === true };
      this.welcomed = true;
      this.attempt = 0;
      this.setStatus('connected', 0, '');
      this.startPing();
      this.emit('welcome', this.welcome);
      const queued = this.queue;
      this.queue = [];
      for (const q of queued) this.sendNow(q.id, q.msg, q.p);
      return;
    }
    if (msg.type === 'error' && msg.code === 'invalid_token') {
      // The server no longer knows the token (never issued, revoked, expired): start a new
      // identity by name on the same connection.
      this.identity.setToken(null);
      this.emit('token', null);
      this.sendHello(false);
      return;
    }
    // Any other refusal of hello: give up on this connection and try again later.
    this.ws?.close(4000, String(msg.message ?? msg.code ?? 'hello refused').slice(0, 120));
  }

  private afterClose(reason: string): void {
    this.dropConnection('disconnected', 'Connection lost; retrying.');
    if (this.wanted) this.scheduleRetry(reason);
    else this.setStatus('idle', 0, reason);
  }

  // Replies to requests in flight will never come: fail them now.
  private dropConnection(code: ClientErrorCode, message: string): void {
    this.welcomed = false;
    clearInterval(this.pingTimer);
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(new ServerError(code, message));
    }
  }

  private failQueue(code: ClientErrorCode, message: string): void {
    const queued = this.queue;
    this.queue = [];
    for (const q of queued) {
      clearTimeout(q.p.timer);
      q.p.reject(new ServerError(code, message));
    }
  }

  private scheduleRetry(reason: string): void {
    if (this.options.reconnect === false) {
      this.wanted = false;
      this.failQueue('disconnected', 'Connection lost.');
      this.setStatus('idle', 0, reason);
      return;
    }
    this.attempt += 1;
    const min = this.options.backoffMinMs ?? 250;
    const max = this.options.backoffMaxMs ?? 8000;
    const base = Math.min(max, min * 2 ** (this.attempt - 1));
    const delay = Math.round(base / 2 + (Math.random() * base) / 2);
    this.setStatus('reconnecting', delay, reason);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  private startPing(): void {
    clearInterval(this.pingTimer);
    const silence = this.options.silenceLimitMs ?? 45000;
    this.pingTimer = setInterval(() => {
      const ws = this.ws;
      if (!ws || ws.readyState !== OPEN) return;
      if (Date.now() - this.lastHeard > silence) {
        ws.close(4001, 'server silent');
        return;
      }
      ws.send(JSON.stringify({ id: `p${this.nextId++}`, type: 'ping' }));
    }, this.options.pingEveryMs ?? 20000);
  }

  private setStatus(status: Status, retryInMs: number, reason: string): void {
    this.state = status;
    this.emit('status', status, { attempt: this.attempt, retryInMs, reason });
  }
}
