// The lobby: who you are, the games and their options, open rooms (live), and
// the form that creates a room.

import { cancelQuickPlay, createRoom, joinRoom, go, quickPlay, renamePlayer, setName, watchRoom } from './api';
import type { GameInfo, Json, JsonObject, OptionSchema, RoomInfo } from './protocol';
import { h } from './render';
import { changed, gameName, state, tableName } from './state';
import { identity } from './socket';
import { optionWords, readable } from './notation';
import { gameCards } from './game_cards';
import { formatLeft } from './tables/common';

export function nameForm(): HTMLElement {
  const renaming = state.drafts.editingName === '1';
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const wanted = (state.drafts.name ?? '').trim();
    if (!wanted) return;
    // A player with an identity is renamed in place: the server stores the name and every
    // table they sit at shows it. A refusal (a name the rules forbid) is shown here.
    if (renaming && wanted !== state.name && identity.token()) {
      const refusal = await renamePlayer(wanted);
      if (refusal) { state.drafts.nameError = refusal; changed(); return; }
    }
    state.drafts.nameError = '';
    setName(wanted);
    state.drafts.editingName = '';
    changed();
  };
  return h('form', { class: 'panel name-form', 'data-testid': 'name-form', onsubmit: (e: Event) => void submit(e) },
    h('h2', null, 'Choose a name'),
    h('p', { class: 'muted' }, 'Other players see it at the table. It is remembered on this device.'),
    renaming ? h('p', { class: 'muted small' }, 'Your tables, seats and ratings stay yours: the new name shows wherever you sit.') : null,
    state.drafts.nameError ? h('p', { class: 'error', role: 'alert', 'data-testid': 'name-error' }, state.drafts.nameError) : null,
    h('div', { class: 'row' },
      h('label', { class: 'sr-only', for: 'name-input' }, 'Name'),
      h('input', { id: 'name-input', 'data-testid': 'name-input', maxlength: 32, required: true, autocomplete: 'nickname',
        placeholder: 'Your name', value: state.drafts.name ?? state.name,
        oninput: (e: Event) => { state.drafts.name = (e.target as HTMLInputElement).value; } }),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'name-save' }, 'Play'),
      renaming ? h('button', { type: 'button', onclick: () => { state.drafts.editingName = ''; changed(); } }, 'Cancel') : null));
}

// A newcomer's first page: the games on offer come first, then the name that seats them.
export function firstVisitView(): HTMLElement {
  return h('main', { class: 'lobby first-visit', 'data-testid': 'first-visit' },
    h('section', { class: 'welcome-intro' },
      h('h1', null, 'Card and board games with friends, or with bots'),
      h('p', { class: 'muted' }, 'Pick a name and play: a table fills with people from the lobby, or bots take the empty seats.')),
    nameForm(),
    state.games.length ? h('section', { class: 'panel', 'data-testid': 'games-on-offer' }, h('h2', null, 'Games on offer'), gameCards(state.games)) : null);
}

export function lobbyView(): HTMLElement {
  return h('main', { class: 'lobby', 'data-testid': 'lobby' },
    state.lobbyError ? h('div', { class: 'banner error', role: 'alert', 'data-testid': 'lobby-error' }, readable(state.lobbyError)) : null,
    h('div', { class: 'lobby-grid' },
      h('div', { class: 'lobby-main' }, myRooms(), openRooms()),
      h('div', { class: 'lobby-side' }, quickPlayPanel(), createForm(), gameList())));
}

// Quick play: one button per game; while waiting, where we stand and a way out.
function quickPlayPanel(): HTMLElement {
  const wait = state.quickPlay;
  if (wait) {
    const left = wait.opensBy ? Math.max(0, wait.opensBy - Date.now()) : 0;
    return h('section', { class: 'panel quick-play', 'data-testid': 'quick-play-waiting', 'aria-live': 'polite' },
      h('h2', null, 'Quick play'),
      h('p', null, `Finding a ${gameName(wait.kind)} table… `,
        h('span', { class: 'muted' }, wait.waiting > 1 ? `${wait.position} of ${wait.waiting} waiting.` : 'You are the first one waiting.')),
      wait.opensBy
        ? h('p', { class: 'muted small' }, 'Bots take the empty seats then',
          h('span', { 'data-deadline': String(wait.opensBy), 'data-testid': 'quick-play-left' }, formatLeft(left)))
        : null,
      h('button', { type: 'button', 'data-testid': 'quick-play-cancel', onclick: () => void cancelQuickPlay() }, 'Cancel'));
  }
  return h('section', { class: 'panel quick-play', 'data-testid': 'quick-play' },
    h('h2', null, 'Quick play'),
    h('p', { class: 'muted small' }, 'Get a seat with other players now, or with bots if nobody comes.'),
    ratedBox('quick-play-rated', 'quick:rated', 'Rated: the result changes your rating (the bots that fill in are rated too)'),
    h('div', { class: 'quick-play-buttons' }, state.games.map((g) => h('button', {
      type: 'button', class: 'primary', 'data-testid': `quick-play-${g.kind}`, onclick: () => void quickPlay(g.kind),
    }, `Quick play ${g.name}`))));
}


function seatSummary(r: RoomInfo): HTMLElement {
  return h('ul', { class: 'seat-chips' }, r.seats.map((s, i) => s
    ? h('li', { class: `chip ${s.connected ? 'on' : 'off'}`, title: s.connected ? 'connected' : 'disconnected' },
      h('span', { class: 'dot', 'aria-hidden': 'true' }), s.name, s.bot ? h('span', { class: 'tag' }, 'bot') : null,
      h('span', { class: 'sr-only' }, s.connected ? ' (connected)' : ' (disconnected)'))
    : h('li', { class: 'chip empty' }, `seat ${i + 1} open`)));
}

function myRooms(): HTMLElement | null {
  const mine = [...state.rooms.entries()].filter(([, r]) => r.info && (typeof r.info.you === 'number' || r.watching));
  if (!mine.length) return null;
  return h('section', { class: 'panel', 'data-testid': 'my-rooms' },
    h('h2', null, 'Your tables'),
    h('ul', { class: 'room-list' }, mine.map(([id, r]) => h('li', { class: 'room-row' },
      h('div', { class: 'room-title', title: `table ${id}` }, h('strong', null, gameName(r.info!.kind)), ' · ', h('span', { 'data-testid': 'table-name' }, tableName(r.info!)), ' ',
        h('span', { class: `status status-${r.info!.status}` }, r.info!.status)),
      seatSummary(r.info!),
      h('div', { class: 'room-actions' }, h('button', { type: 'button', onclick: () => go({ page: 'room', id }) }, 'Open'))))));
}

function openRooms(): HTMLElement {
  const rooms = state.openRooms;
  return h('section', { class: 'panel', 'data-testid': 'room-list' },
    h('h2', null, 'Open tables ', h('span', { class: 'muted small' }, state.roomsLoaded ? `(${rooms.length})` : '…')),
    rooms.length === 0
      ? h('p', { class: 'muted' }, state.roomsLoaded ? 'No tables yet. Create one.' : 'Loading…')
      : h('ul', { class: 'room-list' }, rooms.map((r) => {
        const free = r.seats.findIndex((s) => s === null);
        const seated = state.player !== null && r.seats.some((s) => s?.player === state.player);
        return h('li', { class: 'room-row', 'data-testid': `room-row-${r.room}`, 'data-room': r.room },
          h('div', { class: 'room-title', title: `table ${r.room}` },
            h('strong', null, gameName(r.kind)), ' · ', h('span', { 'data-testid': 'table-name' }, tableName(r)), ' ',
            h('span', { class: `status status-${r.status}` }, r.status),
            r.spectators ? h('span', { class: 'muted small' }, ` · ${r.spectators} watching`) : null),
          optionSummary(r),
          seatSummary(r),
          h('div', { class: 'room-actions' },
            seated ? h('button', { type: 'button', class: 'primary', onclick: () => go({ page: 'room', id: r.room }) }, 'Return')
              : free >= 0 && r.status === 'waiting'
                ? h('button', { type: 'button', class: 'primary', 'data-testid': `join-${r.room}`, onclick: () => void joinRoom(r.room) }, 'Join')
                : null,
            h('button', { type: 'button', 'data-testid': `watch-${r.room}`, onclick: () => { void watchRoom(r.room); go({ page: 'room', id: r.room }); } }, 'Watch')));
      })));
}

function optionSummary(r: RoomInfo): HTMLElement | null {
  const opts = r.options;
  if (!opts || typeof opts !== 'object') return null;
  const game = state.games.find((g) => g.kind === r.kind);
  const parts = Object.entries(opts).filter(([k, v]) => {
    const spec = game?.options[k];
    return !spec || JSON.stringify(spec.default) !== JSON.stringify(v);
  }).map(([k, v]) => `${optionWords(k)}: ${optionWords(v)}`);
  return parts.length ? h('div', { class: 'muted small options-line' }, parts.join(' · ')) : null;
}

function draftKey(kind: string, name: string): string {
  return `opt:${kind}:${name}`;
}

function optionField(game: GameInfo, name: string, spec: OptionSchema): HTMLElement {
  const key = draftKey(game.kind, name);
  const id = `opt-${name}`;
  const current = state.drafts[key] ?? (spec.default === undefined || spec.default === null ? '' : String(spec.default));
  const store = (e: Event) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    state.drafts[key] = el instanceof HTMLInputElement && el.type === 'checkbox' ? String(el.checked) : el.value;
  };
  let control: HTMLElement;
  if (spec.type === 'choice' && spec.choices) {
    control = h('select', { id, 'data-testid': id, onchange: store },
      spec.choices.map((c) => h('option', { value: c.value, selected: c.value === current }, optionWords(c.value) + (c.value === spec.default ? ' (default)' : ''))));
  } else if (spec.type === 'boolean') {
    // A checkbox sits before its label on one line, like every other yes/no choice.
    return h('div', { class: 'field' },
      h('div', { class: 'check-row' },
        h('input', { id, 'data-testid': id, type: 'checkbox', checked: current === 'true', onchange: store }),
        h('label', { for: id }, optionWords(name), spec.variant ? h('span', { class: 'tag' }, 'variant') : null)),
      spec.description ? h('div', { class: 'help' }, spec.description) : null);
  } else {
    control = h('input', { id, 'data-testid': id, type: 'number', min: spec.min ?? null, max: spec.max ?? null, value: current, oninput: store });
  }
  const choiceHelp = spec.type === 'choice' ? spec.choices?.find((c) => c.value === current)?.description : null;
  return h('div', { class: 'field' },
    h('label', { for: id }, optionWords(name), spec.variant ? h('span', { class: 'tag' }, 'variant') : null),
    control,
    spec.description ? h('div', { class: 'help' }, spec.description) : null,
    choiceHelp ? h('div', { class: 'help' }, choiceHelp) : null);
}

function collectOptions(game: GameInfo): JsonObject {
  const out: JsonObject = {};
  for (const [name, spec] of Object.entries(game.options ?? {})) {
    const raw = state.drafts[draftKey(game.kind, name)];
    if (raw === undefined) continue; // untouched: the server fills the default
    let value: Json = raw;
    if (spec.type === 'integer') value = Number.parseInt(raw, 10);
    else if (spec.type === 'boolean') value = raw === 'true';
    if (JSON.stringify(value) !== JSON.stringify(spec.default)) out[name] = value;
  }
  // Room options the server understands besides the game's own (protocol: create_room).
  if (state.drafts['room:private'] === 'true') out.private = true;
  for (const key of ['turn_seconds', 'grace']) {
    const raw = (state.drafts[`room:${key}`] ?? '').trim();
    if (/^\d+$/.test(raw)) out[key] = Number.parseInt(raw, 10);
  }
  if (typeof out.turn_seconds === 'number' && out.turn_seconds > 0 && state.drafts['room:on_timeout']) out.on_timeout = state.drafts['room:on_timeout'];
  const seed = (state.drafts.seed ?? '').trim();
  if (state.dev && seed !== '' && /^-?\d+$/.test(seed)) out.seed = Number.parseInt(seed, 10);
  return out;
}

function createForm(): HTMLElement {
  const game = state.games.find((g) => g.kind === state.createKind) ?? state.games[0];
  if (!game) return h('section', { class: 'panel' }, h('h2', null, 'New table'), h('p', { class: 'muted' }, 'Loading games…'));
  const seatKey = `seats:${game.kind}`;
  const seats = Number.parseInt(state.drafts[seatKey] ?? String(game.default_seats ?? game.max_seats), 10);
  const seatChoices: number[] = [];
  for (let n = game.min_seats; n <= game.max_seats; n++) seatChoices.push(n);
  const submit = (ev: Event) => {
    ev.preventDefault();
    // Read the drafts now: changing a field does not re-render this closure.
    const chosen = Number.parseInt(state.drafts[seatKey] ?? String(seats), 10);
    void createRoom(game.kind, chosen, collectOptions(game), state.drafts['create:rated'] === 'true');
  };
  return h('form', { class: 'panel create', 'data-testid': 'create-form', 'data-kind': game.kind, onsubmit: submit },
    h('h2', null, 'New table'),
    h('div', { class: 'field' },
      h('label', { for: 'create-kind' }, 'Game'),
      h('select', { id: 'create-kind', 'data-testid': 'create-kind', onchange: (e: Event) => { state.createKind = (e.target as HTMLSelectElement).value; changed(); } },
        state.games.map((g) => h('option', { value: g.kind, selected: g.kind === game.kind }, gameName(g.kind))))),
    h('div', { class: 'field' },
      h('label', { for: 'create-seats' }, 'Seats'),
      h('select', { id: 'create-seats', 'data-testid': 'create-seats', onchange: (e: Event) => { state.drafts[seatKey] = (e.target as HTMLSelectElement).value; } },
        seatChoices.map((n) => h('option', { value: n, selected: n === seats }, String(n))))),
    Object.entries(game.options ?? {}).map(([name, spec]) => optionField(game, name, spec)),
    ratedBox('create-rated', 'create:rated', 'Rated: results change ratings (no bots can be added)'),
    h('details', { class: 'advanced', open: state.drafts.tableOpen === '1', ontoggle: (e: Event) => { state.drafts.tableOpen = (e.target as HTMLDetailsElement).open ? '1' : ''; } },
      h('summary', null, 'Table settings'),
      h('div', { class: 'field check-row' },
        h('input', { id: 'room-private', 'data-testid': 'room-private', type: 'checkbox', checked: state.drafts['room:private'] === 'true',
          onchange: (e: Event) => { state.drafts['room:private'] = String((e.target as HTMLInputElement).checked); } }),
        h('label', { for: 'room-private' }, 'Private: not listed in the lobby, join by link')),
      h('div', { class: 'field' },
        h('label', { for: 'room-turn' }, 'Turn timer (seconds, 0 = none)'),
        h('input', { id: 'room-turn', 'data-testid': 'room-turn-seconds', type: 'number', min: 0, max: 3600, value: state.drafts['room:turn_seconds'] ?? '',
          placeholder: '0', oninput: (e: Event) => { state.drafts['room:turn_seconds'] = (e.target as HTMLInputElement).value; } })),
      h('div', { class: 'field' },
        h('label', { for: 'room-timeout' }, 'When the timer runs out'),
        h('select', { id: 'room-timeout', 'data-testid': 'room-on-timeout', onchange: (e: Event) => { state.drafts['room:on_timeout'] = (e.target as HTMLSelectElement).value; } },
          h('option', { value: 'bot', selected: (state.drafts['room:on_timeout'] ?? 'bot') === 'bot' }, 'a bot moves for the player'),
          h('option', { value: 'pass', selected: state.drafts['room:on_timeout'] === 'pass' }, 'the player passes'))),
      h('div', { class: 'field' },
        h('label', { for: 'room-grace' }, 'Seat kept for a disconnected player (seconds)'),
        h('input', { id: 'room-grace', 'data-testid': 'room-grace', type: 'number', min: 0, max: 86400, value: state.drafts['room:grace'] ?? '',
          placeholder: 'server default', oninput: (e: Event) => { state.drafts['room:grace'] = (e.target as HTMLInputElement).value; } }))),
    // A seed deals a chosen game again: for testing, on servers in development mode only.
    state.dev ? h('details', { class: 'advanced', open: state.drafts.advancedOpen === '1', ontoggle: (e: Event) => { state.drafts.advancedOpen = (e.target as HTMLDetailsElement).open ? '1' : ''; } },
      h('summary', null, 'Testing'),
      h('div', { class: 'field' },
        h('label', { for: 'create-seed' }, 'Seed (the same seed deals the same cards)'),
        h('input', { id: 'create-seed', 'data-testid': 'create-seed', type: 'number', value: state.drafts.seed ?? '',
          oninput: (e: Event) => { state.drafts.seed = (e.target as HTMLInputElement).value; } }))) : null,
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-room' }, `Create ${gameName(game.kind)} table`),
    // A refusal shows where the user just clicked, not at the top of the page.
    state.createError ? h('p', { class: 'error', role: 'alert', 'data-testid': 'create-error' }, readable(state.createError)) : null);
}

// A "Rated" checkbox whose state lives in drafts[key].
function ratedBox(id: string, key: string, label: string): HTMLElement {
  return h('div', { class: 'field check-row' },
    h('input', { id, 'data-testid': id, type: 'checkbox', checked: state.drafts[key] === 'true',
      onchange: (e: Event) => { state.drafts[key] = String((e.target as HTMLInputElement).checked); } }),
    h('label', { for: id }, label));
}

function gameList(): HTMLElement {
  return h('section', { class: 'panel', 'data-testid': 'game-list' },
    h('h2', null, 'Games'),
    gameCards(state.games));
}
