// The one connection to parlor-server, through @parlor/client (hello on every (re)connect,
// `id`/`re` request matching, ping, reconnect with capped exponential backoff and jitter).
// What is the browser's own lives here: the token and name in localStorage, so a reload or
// a dropped connection resumes the same player and seats, and retrying at once when the
// network comes back or the page is shown again.

import { ParlorClient, type IdentityStore } from '@parlor/client';

export type { Status } from '@parlor/client';

const TOKEN_KEY = 'parlor.token';
const NAME_KEY = 'parlor.name';

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

// A new identity says hello with the chosen name, or "guest".
const stored: IdentityStore = {
  token: identity.token,
  setToken: identity.setToken,
  name: () => identity.name() || 'guest',
};

export function openSocket(url: string): ParlorClient {
  const client = new ParlorClient({ url, identity: stored });
  window.addEventListener('online', () => client.retryNow());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') client.retryNow();
  });
  return client;
}
