// The one WebSocket to parlor-server: hello on every (re)connect, requests with
// `id` matched to replies by `re`, pushes forwarded to the app, and reconnect
// with capped exponential backoff plus jitter. The token lives in localStorage,
// so a reload or a dropped connection resumes the same player and seats.

import { Message, ServerError } from './protocol';

export type Status = 'idle' | 'connecting' | 'connected' | 'reconnecting';

export interface SocketEvents {
  onStatus(status: Status, detail: { attempt: number; retryInMs: number; reason: string }): void;
  // `dev`: the server runs in development mode (it takes a room's seed).
  onWelcome(player: string, resumed: boolean, dev: boolean): void;
  onPush(msg: Message): void;
}

const TOKEN_KEY = 'parlor.token';
const NAME_KEY = 'parlor.name';
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 8000;
const PING_EVERY_MS = 20000;
const SILENCE_LIMIT_MS = 45000;
const REQUEST_TIMEOUT_MS = 15000;

export const identity = {
  token: (): string | null => safeGet(TOKEN_KEY),
  name: (): string => safeGet(NAME_KEY) ?? '',
  setName(name: string): void { safeSet(NAME_KEY, name); },
  setToken(token: string | null): void { token ? safeSet(TOKEN_KEY, token) : safeRemove(TOKEN_KEY); },
};

function safeGet(key: string): string | null {
  try { return localStorage.getItem(key); } catch { return null; }
}
function safeSet(key: string, value: string): void {
  try { localStorage.setItem(key, value); } catch { /* private mode: identity lasts one page */ }
}
function safeRemove(key: string): void {
  try { localStorage.removeItem(key); } catch { /* ignore */ }
}

interface Pending {
  resolve(msg: Message): void;
  reject(err: Error): void;
  timer: number;
}

export class Socket {
  private ws: WebSocket | null = null;
  private status: Status = 'idle';
  private nextId = 1;
  private pending = new Map<string, Pending>();
  private queue: { msg: Message; p: Pending; id: string }[] = [];
  private attempt = 0;
  private retryTimer = 0;
  private pingTimer = 0;
  private lastHeard = 0;
  private welcomed = false;
  private helloId = '';
  private wanted = false;

  constructor(private readonly url: string, private readonly events: SocketEvents) {
    window.addEventListener('online', () => this.retryNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.retryNow();
    });
  }

  get connected(): boolean { return this.welcomed; }

  start(): void {
    this.wanted = true;
    if (!this.ws) this.open();
  }

  // Sends a request and resolves with its success reply; rejects with ServerError
  // on an error reply. Requests made while offline wait for the next welcome.
  request(msg: Message): Promise<Message> {
    const id = `c${this.nextId++}`;
    return new Promise<Message>((resolve, reject) => {
      const p: Pending = { resolve, reject, timer: 0 };
      p.timer = window.setTimeout(() => {
        this.pending.delete(id);
        this.queue = this.queue.filter((q) => q.id !== id);
        reject(new ServerError('timeout', 'The server did not answer in time.'));
      }, REQUEST_TIMEOUT_MS);
      if (this.welcomed && this.ws?.readyState === WebSocket.OPEN) this.sendNow(id, msg, p);
      else this.queue.push({ msg, p, id });
    });
  }

  private sendNow(id: string, msg: Message, p: Pending): void {
    this.pending.set(id, p);
    this.ws!.send(JSON.stringify({ ...msg, id }));
  }

  private open(): void {
    window.clearTimeout(this.retryTimer);
    this.setStatus(this.attempt === 0 ? 'connecting' : 'reconnecting', 0, '');
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry('cannot open socket');
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      this.sendHello(true);
    };
    ws.onmessage = (ev) => this.onFrame(ev.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.afterClose(ev.reason || `closed (${ev.code})`);
    };
    ws.onerror = () => { /* onclose follows and handles it */ };
  }

  private sendHello(useToken: boolean): void {
    const token = useToken ? identity.token() : null;
    this.helloId = `h${this.nextId++}`;
    const hello = token
      ? { type: 'hello', token, protocol: 1, id: this.helloId }
      : { type: 'hello', name: identity.name() || 'guest', protocol: 1, id: this.helloId };
    this.ws?.send(JSON.stringify(hello));
  }

  private onFrame(data: unknown): void {
    this.lastHeard = Date.now();
    let msg: Message;
    try {
      msg = JSON.parse(String(data)) as Message;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    const re = msg.re === undefined || msg.re === null ? null : String(msg.re);
    if (re !== null && re === this.helloId) {
      this.onHelloReply(msg);
      return;
    }
    if (re !== null && this.pending.has(re)) {
      const p = this.pending.get(re)!;
      this.pending.delete(re);
      window.clearTimeout(p.timer);
      if (msg.type === 'error') p.reject(new ServerError(String(msg.code ?? 'error'), String(msg.message ?? msg.code ?? 'error')));
      else p.resolve(msg);
      return;
    }
    if (msg.type === 'pong') return;
    this.events.onPush(msg);
  }

  private onHelloReply(msg: Message): void {
    if (msg.type === 'welcome') {
      const resumed = Boolean(identity.token()) && identity.token() === msg.token;
      if (typeof msg.token === 'string') identity.setToken(msg.token);
      this.welcomed = true;
      this.attempt = 0;
      this.setStatus('connected', 0, '');
      this.startPing();
      this.events.onWelcome(String(msg.player ?? ''), resumed, msg.dev === true);
      const queued = this.queue;
      this.queue = [];
      for (const q of queued) this.sendNow(q.id, q.msg, q.p);
      return;
    }
    if (msg.type === 'error' && msg.code === 'invalid_token') {
      // The server forgot us (restart, expiry): start a fresh identity by name.
      identity.setToken(null);
      this.sendHello(false);
      return;
    }
    // Any other refusal of hello: give up on this socket and retry later.
    this.ws?.close(4000, String(msg.message ?? msg.code ?? 'hello refused'));
  }

  private afterClose(reason: string): void {
    this.welcomed = false;
    window.clearInterval(this.pingTimer);
    // Replies to in-flight requests will never come: fail them now.
    for (const [, p] of this.pending) {
      window.clearTimeout(p.timer);
      p.reject(new ServerError('disconnected', 'Connection lost; retrying.'));
    }
    this.pending.clear();
    if (this.wanted) this.scheduleRetry(reason);
  }

  private scheduleRetry(reason: string): void {
    this.attempt += 1;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (this.attempt - 1));
    const delay = Math.round(base / 2 + Math.random() * base / 2);
    this.setStatus('reconnecting', delay, reason);
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.open(), delay);
  }

  // Skips the remaining backoff (the browser says the network is back, or the user asked).
  retryNow(): void {
    if (this.wanted && !this.ws && this.status === 'reconnecting') this.open();
  }

  private startPing(): void {
    window.clearInterval(this.pingTimer);
    this.pingTimer = window.setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) {
        this.ws.close(4001, 'server silent');
        return;
      }
      this.ws.send(JSON.stringify({ type: 'ping', id: `p${this.nextId++}` }));
    }, PING_EVERY_MS);
  }

  private setStatus(status: Status, retryInMs: number, reason: string): void {
    this.status = status;
    this.events.onStatus(status, { attempt: this.attempt, retryInMs, reason });
  }
}
