// In-app rules: each game's section of docs/RULES.md (the rules Parlor's engines
// implement), bundled at build time and drawn as a sheet over the page. Bullets
// about an option this table plays with other than its default are marked.

import rulesText from '../../docs/RULES.md?raw';
import type { JsonObject } from './protocol';
import { optionWords } from './notation';
import { h } from './render';
import { changed, gameName, state } from './state';

type Child = Parameters<typeof h>[2];

// The bullets of a game's section; continuation lines joined, nesting kept (depth 0 or 1).
export function rulesOf(kind: string): { depth: number; text: string }[] {
  const lines = rulesText.split('\n');
  const start = lines.findIndex((l) => l.startsWith('## ') && l.includes(`(\`${kind}\`)`));
  if (start < 0) return [];
  const items: { depth: number; text: string }[] = [];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i++) {
    const line = lines[i];
    const bullet = /^(\s*)- (.*)$/.exec(line);
    if (bullet) items.push({ depth: bullet[1].length >= 2 ? 1 : 0, text: bullet[2] });
    else if (/^\s+\S/.test(line) && items.length) items[items.length - 1].text += ` ${line.trim()}`;
  }
  return items;
}

const PROTOCOL_NAME = /^[a-z][a-z0-9_]*(?::\s*"?[a-z0-9_]+"?)?$/;

// **bold**, `code`, <https://…> and [text](url) of the rule text.
function inline(text: string): Child[] {
  const out: Child[] = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`|<(https?:[^>]+)>|\[([^\]]+)\]\(([^)]+)\)/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    if (m[1] !== undefined) out.push(h('strong', null, m[1]));
    // A name from the protocol (an option, a choice, a game's kind, or an option set to a
    // choice) in words, as the lobby shows it: `suit_order: "spades_hearts_diamonds_clubs"`
    // reads "suit order: spades hearts diamonds clubs".
    else if (m[2] !== undefined) out.push(PROTOCOL_NAME.test(m[2]) ? h('em', { class: 'term' }, optionWords(m[2].replace(/"/g, ''))) : h('code', null, m[2]));
    else if (m[3] !== undefined) out.push(h('a', { href: m[3], target: '_blank', rel: 'noopener' }, m[3]));
    else out.push(m[4]);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

// Options of this table that differ from the game's defaults.
function changedOptions(kind: string, options: JsonObject | undefined): string[] {
  const game = state.games.find((g) => g.kind === kind);
  if (!options || !game) return [];
  return Object.entries(game.options ?? {})
    .filter(([name, spec]) => name in options && JSON.stringify(options[name]) !== JSON.stringify(spec.default))
    .map(([name]) => name);
}

export function openRules(kind: string, options?: JsonObject): void {
  state.rules = { kind, options: options ?? null };
  changed();
}

// Escape closes the sheet wherever the focus is.
export function rulesKeys(e: KeyboardEvent): void {
  if (e.key === 'Escape' && state.rules) closeRules();
}

export function closeRules(): void {
  state.rules = null;
  changed();
}

export function rulesSheet(): HTMLElement | null {
  const open = state.rules;
  if (!open) return null;
  const items = rulesOf(open.kind);
  const variants = changedOptions(open.kind, open.options ?? undefined);
  const list: HTMLElement[] = [];
  let parent: HTMLElement | null = null;
  for (const item of items) {
    const marked = variants.some((v) => item.text.includes(`\`${v}`));
    const li = h('li', { class: marked ? 'this-table' : '' }, inline(item.text), marked ? h('span', { class: 'tag badge' }, 'this table') : null);
    if (item.depth === 1 && parent) {
      let sub = parent.querySelector(':scope > ul');
      if (!sub) { sub = h('ul', null); parent.appendChild(sub); }
      sub.appendChild(li);
    } else {
      list.push(li);
      parent = li;
    }
  }
  return h('div', { class: 'modal-backdrop', onclick: (e: Event) => { if (e.target === e.currentTarget) closeRules(); } },
    h('section', { class: 'panel modal rules-sheet', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'rules-title', 'data-testid': 'rules-sheet' },
    h('div', { class: 'rules-head' },
      h('h2', { id: 'rules-title' }, `How to play ${gameName(open.kind)}`),
      h('button', { type: 'button', 'data-testid': 'rules-close', onclick: closeRules }, 'Close')),
    // A game without a section (an external game's rules live in its engine): the server's description.
    list.length ? h('ul', { class: 'rules-list' }, list)
      : h('p', { class: 'muted' }, state.games.find((g) => g.kind === open.kind)?.description || 'No rules text for this game.')));
}
