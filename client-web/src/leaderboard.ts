// Ratings in the web client: the leaderboard of a game kind (GET /api/leaderboard) and a
// player's profile (GET /api/players/<id>): ratings per game, latest rated games and how the
// rating went. Both come over plain HTTP; nothing here needs the socket.

import { go } from './api';
import { h } from './render';
import { changed, gameName, state } from './state';

interface BoardEntry {
  place: number;
  player: string;
  name: string;
  bot: boolean;
  games: number;
  rating: number;
  deviation: number;
  conservative: number;
}

interface KindRating {
  kind: string;
  rating: number;
  deviation: number;
  conservative: number;
  games: number;
}

interface RatedGame {
  room: string;
  game: number;
  kind: string;
  finished_ms: number;
  system: string;
  place: number;
  sides: number;
  abandoned: boolean;
  rating_before: number;
  rating_after: number;
  change: number;
}

interface Profile {
  player: string;
  name: string;
  bot: boolean;
  ratings: KindRating[];
  recent: RatedGame[];
  history: Record<string, { finished_ms: number; rating: number }[]>;
}

interface Loaded<T> {
  loading: boolean;
  at: number;
  data: T | null;
  error: string | null;
}

const boards = new Map<string, Loaded<BoardEntry[]>>();
const profiles = new Map<string, Loaded<Profile>>();
// A page shown again after this long asks the server again.
const kFreshMs = 15_000;

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) return body;
  const message = body && typeof body === 'object' && 'message' in body ? String((body as { message: unknown }).message) : `HTTP ${res.status}`;
  throw new Error(message);
}

function load<T>(cache: Map<string, Loaded<T>>, key: string, url: string, read: (body: unknown) => T): Loaded<T> {
  let entry = cache.get(key);
  if (!entry) {
    entry = { loading: false, at: 0, data: null, error: null };
    cache.set(key, entry);
  }
  if (!entry.loading && Date.now() - entry.at > kFreshMs) {
    const e = entry;
    e.loading = true;
    e.at = Date.now();
    getJson(url)
      .then((body) => { e.data = read(body); e.error = null; })
      .catch((err: unknown) => { e.error = err instanceof Error ? err.message : String(err); })
      .finally(() => { e.loading = false; changed(); });
  }
  return entry;
}

function rounded(n: number): string {
  return Math.round(n).toString();
}

function playerLink(id: string, name: string, bot: boolean): HTMLElement {
  return h('a', { href: `#/player/${encodeURIComponent(id)}`, 'data-testid': `player-link-${id}`,
    onclick: (e: Event) => { e.preventDefault(); go({ page: 'player', id }); } },
  name || id, bot ? h('span', { class: 'tag' }, 'bot') : null);
}

function kindTabs(current: string): HTMLElement {
  return h('nav', { class: 'kind-tabs', 'aria-label': 'Game' }, state.games.map((g) => h('button', {
    type: 'button', class: g.kind === current ? 'primary' : '', 'aria-pressed': g.kind === current ? 'true' : 'false',
    'data-testid': `leaderboard-kind-${g.kind}`, onclick: () => go({ page: 'leaderboard', kind: g.kind }),
  }, gameName(g.kind))));
}

export function leaderboardView(kind: string | null): HTMLElement {
  const shown = kind ?? state.games[0]?.kind ?? null;
  if (!shown) return h('main', { class: 'lobby' }, h('section', { class: 'panel' }, h('h2', null, 'Leaderboard'), h('p', { class: 'muted' }, 'Loading games…')));
  const board = load(boards, shown, `api/leaderboard?kind=${encodeURIComponent(shown)}&limit=50`,
    (body) => ((body as { players?: BoardEntry[] }).players ?? []));
  const rows = board.data ?? [];
  return h('main', { class: 'lobby', 'data-testid': 'leaderboard' },
    h('section', { class: 'panel' },
      h('h2', null, `Leaderboard — ${gameName(shown)}`),
      kindTabs(shown),
      h('p', { class: 'muted small' }, 'Rated games only. Ranked by rating minus twice its uncertainty, so a few lucky games do not put a newcomer on top.'),
      board.error ? h('p', { class: 'error', role: 'alert' }, board.error) : null,
      !board.data && !board.error ? h('p', { class: 'muted' }, 'Loading…') : null,
      board.data && rows.length === 0 ? h('p', { class: 'muted', 'data-testid': 'leaderboard-empty' }, 'No rated games of this kind yet. Tick "Rated" in quick play or a new table.') : null,
      rows.length
        ? h('table', { class: 'ratings-table', 'data-testid': 'leaderboard-table' },
          h('thead', null, h('tr', null, h('th', null, '#'), h('th', null, 'Player'), h('th', null, 'Rating'), h('th', null, '±'), h('th', null, 'Games'))),
          h('tbody', null, rows.map((r) => h('tr', { 'data-testid': `leaderboard-row-${r.place}` },
            h('td', null, String(r.place)), h('td', null, playerLink(r.player, r.name, r.bot)),
            h('td', { title: `conservative ${rounded(r.conservative)}` }, rounded(r.rating)), h('td', null, rounded(r.deviation)), h('td', null, String(r.games))))))
        : null,
      h('p', null, h('button', { type: 'button', class: 'link', onclick: () => go({ page: 'lobby' }) }, '← Back to the lobby'))));
}

// The rating after each game as a small line (oldest left), for one kind.
function sparkline(points: { rating: number }[]): HTMLElement | null {
  if (points.length < 2) return null;
  const w = 160;
  const hgt = 32;
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const path = values.map((v, i) => `${((i / (values.length - 1)) * w).toFixed(1)},${(hgt - ((v - lo) / span) * hgt).toFixed(1)}`).join(' ');
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(hgt));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `rating from ${rounded(values[0])} to ${rounded(values[values.length - 1])}`);
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', path);
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', 'currentColor');
  line.setAttribute('stroke-width', '1.5');
  svg.appendChild(line);
  const box = h('span', { class: 'sparkline' });
  box.appendChild(svg);
  return box;
}

export function playerView(id: string): HTMLElement {
  const profile = load(profiles, id, `api/players/${encodeURIComponent(id)}`, (body) => body as Profile);
  const p = profile.data;
  return h('main', { class: 'lobby', 'data-testid': 'player-profile' },
    h('section', { class: 'panel' },
      h('h2', null, p ? p.name || p.player : 'Player', p?.bot ? h('span', { class: 'tag' }, 'bot') : null,
        id === state.player ? h('span', { class: 'muted small' }, ' (you)') : null),
      profile.error ? h('p', { class: 'muted', role: 'alert', 'data-testid': 'player-error' }, profile.error) : null,
      !p && !profile.error ? h('p', { class: 'muted' }, 'Loading…') : null,
      p ? h('table', { class: 'ratings-table', 'data-testid': 'player-ratings' },
        h('thead', null, h('tr', null, h('th', null, 'Game'), h('th', null, 'Rating'), h('th', null, '±'), h('th', null, 'Games'), h('th', null, 'History'))),
        h('tbody', null, p.ratings.map((r) => h('tr', { 'data-testid': `player-rating-${r.kind}` },
          h('td', null, h('a', { href: `#/leaderboard/${encodeURIComponent(r.kind)}`, onclick: (e: Event) => { e.preventDefault(); go({ page: 'leaderboard', kind: r.kind }); } }, gameName(r.kind))),
          h('td', null, rounded(r.rating)), h('td', null, rounded(r.deviation)), h('td', null, String(r.games)),
          h('td', null, sparkline(p.history[r.kind] ?? [])))))) : null,
      p && p.recent.length ? h('h3', null, 'Latest rated games') : null,
      p && p.recent.length ? h('ul', { class: 'room-list', 'data-testid': 'player-recent' }, p.recent.map((g) => h('li', { class: 'room-row' },
        h('div', { class: 'room-title' },
          h('strong', null, gameName(g.kind)), ' ',
          h('span', null, g.abandoned ? 'left the game' : `${ordinal(g.place)} of ${g.sides}`), ' ',
          h('span', { class: g.change >= 0 ? 'gain' : 'loss' }, `${g.change >= 0 ? '+' : ''}${Math.round(g.change)}`),
          h('span', { class: 'muted small' }, ` → ${rounded(g.rating_after)} · ${new Date(g.finished_ms).toLocaleString()}`)),
        h('div', { class: 'room-actions' },
          h('a', { href: `#/replay/${encodeURIComponent(g.room)}?game=${g.game}` }, 'Replay'))))) : null,
      h('p', null,
        h('button', { type: 'button', class: 'link', onclick: () => go({ page: 'leaderboard', kind: p?.ratings[0]?.kind ?? null }) }, 'Leaderboard'), ' · ',
        h('button', { type: 'button', class: 'link', onclick: () => go({ page: 'lobby' }) }, 'Lobby'))));
}

function ordinal(n: number): string {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${tail}`;
}
