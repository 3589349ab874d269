// External games: a rules engine behind HTTP (docs/ENGINES.md) that the operator
// registered with `--engine NAME=URL`. Nothing about the game is compiled in, so one
// generic table draws every such kind from the shapes the server gives all of them
// (protocol/PROTOCOL.md, "External games"): the seat's hand, every stack (label,
// orientation, alignment, cards), the info lines, each player's decorations and card
// count, and the prompt — options as buttons, cards to click when one card is asked
// for (`legal`), a selection of `count` entries when several are (`choose`).

import { cardEl, sortBySuit } from '../cards';
import type { JsonObject, Move } from '../protocol';
import { arr, field, num, str, strs } from '../protocol';
import { h } from '../render';
import { felt, handEl, legalOf, moveButton, playArea, promptBar, TableCtx } from './common';

type Child = Parameters<typeof h>[2];

interface ExtPlayer {
  seat: number;
  team: number | null;
  cards: number;
  decorations: [string, string][];
}

interface ExtStack {
  id: string;
  label: string;
  orientation: string;
  alignment: string;
  cards: string[];
}

interface ExtInfo {
  id: string;
  label: string;
  value: string;
}

// Whether a view has the external games' shape (stacks, info lines and players with decorations).
export function isExternalView(view: JsonObject): boolean {
  return Array.isArray(view.stacks) && Array.isArray(view.info) && Array.isArray(view.players) && typeof view.deck === 'number';
}

function playersOf(view: JsonObject): ExtPlayer[] {
  return arr(view.players).map((p, i) => ({
    seat: num(field(p, 'seat'), i),
    team: typeof field(p, 'team') === 'number' ? field(p, 'team') as number : null,
    cards: num(field(p, 'cards')),
    decorations: Object.entries((field(p, 'decorations') ?? {}) as Record<string, unknown>)
      .map(([name, value]): [string, string] => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
  }));
}

function stacksOf(view: JsonObject): ExtStack[] {
  return arr(view.stacks).map((s) => ({
    id: str(field(s, 'id')),
    label: str(field(s, 'label')),
    orientation: str(field(s, 'orientation')) === 'vertical' ? 'vertical' : 'horizontal',
    alignment: ['start', 'end'].includes(str(field(s, 'alignment'))) ? str(field(s, 'alignment')) : 'center',
    cards: strs(field(s, 'cards')),
  }));
}

function infoOf(view: JsonObject): ExtInfo[] {
  return arr(view.info).map((x) => {
    const value = field(x, 'value');
    return { id: str(field(x, 'id')), label: str(field(x, 'label')), value: typeof value === 'number' ? String(value) : str(value) };
  });
}

// A test id fragment from an engine's option text ("3 no trump" -> "3-no-trump").
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'x';
}

export function externalTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const players = playersOf(v);
  const stacks = stacksOf(v);
  // Partners are worth showing only when some players share a team.
  const teams = players.map((p) => p.team).filter((t): t is number => t !== null);
  const showTeams = new Set(teams).size < teams.length;
  const paused = ctx.info.status === 'paused';
  // While the engine is not answering a move would only be refused: the controls wait.
  const act: TableCtx = paused ? { ...ctx, locked: true } : ctx;
  const { text, controls, hand } = promptParts(act, stacks);

  return h('div', { class: 'table external', 'data-testid': 'table', 'data-game': ctx.info.kind, 'data-external': 'true', 'data-phase': str(v.phase) },
    paused ? h('p', { class: 'engine-paused warn', role: 'status', 'data-testid': 'engine-paused' },
      'The game\'s rules engine is not answering: the table waits, and play goes on as soon as it is back.') : null,
    playArea(felt(ctx, (seat) => {
      const p = players.find((x) => x.seat === seat);
      if (!p) return { count: null };
      // One line whatever the engine sets (a plate must not grow into the stacks): the team and
      // every decoration, cut short with an ellipsis when it is long, in full as its title.
      const marks = p.decorations.map(([name, value]) => (value === name || value === '' ? name : `${name}: ${value}`));
      const team = showTeams && p.team !== null ? `team ${p.team + 1}` : null;
      const parts: Child[] = [];
      if (team) parts.push(h('span', { class: 'muted' }, team));
      p.decorations.forEach(([name], i) => {
        if (parts.length) parts.push(' · ');
        parts.push(h('span', { class: 'decoration', 'data-testid': `decoration-${seat}-${slug(name)}`, 'data-name': name }, marks[i]));
      });
      return {
        count: p.cards,
        lines: parts.length ? [h('span', { class: 'decorations', title: [team, ...marks].filter(Boolean).join(' · ') }, parts)] : [],
      };
    }, stackArea(stacks), infoLine(v)),
    promptBar(act, text, controls),
    hand));
}

// The info lines above the felt, with the cards left in the deck.
function infoLine(v: JsonObject): HTMLElement {
  return h('div', { class: 'ext-info', 'data-testid': 'ext-info' },
    infoOf(v).map((x) => h('span', { class: 'ext-info-item', 'data-testid': `info-${slug(x.id)}`, 'data-value': x.value },
      h('span', { class: 'muted' }, `${x.label}: `), h('strong', null, x.value === '' ? '–' : x.value))),
    num(v.deck) > 0 ? h('span', { class: 'ext-info-item muted', 'data-testid': 'deck-count' }, `${num(v.deck)} in the deck`) : null);
}

// Every stack, face up, in the middle of the felt; the last card of a stack is its top.
function stackArea(stacks: ExtStack[]): HTMLElement {
  return h('div', { class: 'ext-stacks', 'data-testid': 'stacks' }, stacks.map((s) =>
    h('div', { class: `ext-stack ${s.orientation}`, 'data-testid': `stack-${s.id}`, 'data-count': s.cards.length, 'data-orientation': s.orientation },
      h('div', { class: 'ext-stack-label small' }, s.label || s.id, s.cards.length > 1 ? h('span', { class: 'ext-stack-count' }, ` · ${s.cards.length}`) : null),
      h('div', { class: `ext-stack-cards align-${s.alignment}`, style: `--n:${Math.max(s.cards.length, 1)}` },
        s.cards.length ? s.cards.map((c) => cardEl(c, { small: true })) : h('span', { class: 'ext-stack-empty' }, 'empty')))));
}

const ACTION_WORD: Record<string, string> = { select: 'Choose', play: 'Play', discard: 'Discard' };

// The prompt line, its controls and the hand, from the seat's open prompt.
function promptParts(ctx: TableCtx, stacks: ExtStack[]): { text: Child; controls: Child; hand: HTMLElement } {
  const hand = sortBySuit(strs(ctx.view.hand));
  const prompt = ctx.prompt;
  const action = str(arr(prompt?.actions)[0]) || str(prompt?.choose?.action) || str(legalOf(ctx)[0]?.action);
  const name = str(prompt?.name);
  const to = str(prompt?.to);
  const onto = to ? ` onto ${stacks.find((s) => s.id === to)?.label || to}` : '';
  const idle = handEl(ctx, { cards: hand, enabled: () => false, onClick: () => {} });
  if (!prompt) return { text: '', controls: null, hand: idle };

  const choose = prompt.choose;
  if (choose) return chooseParts(ctx, hand, choose.action || action, name, onto, choose.count, choose.from);

  // One entry: a card to click (play, discard), or an option button (select).
  const legal = legalOf(ctx).filter((m) => Array.isArray(m.value) && m.value.length === 1);
  const valueOf = (m: Move) => str(arr(m.value)[0]);
  if (action === 'select') {
    return {
      text: name ? `choose: ${name}` : 'choose one',
      controls: h('div', { class: 'ext-options', role: 'group', 'aria-label': name || 'Options' },
        legal.map((m, i) => moveButton(ctx, valueOf(m), m, `option-${slug(valueOf(m))}`, { primary: i === 0 && legal.length === 1 }))),
      hand: idle,
    };
  }
  const byCard = new Map(legal.map((m) => [valueOf(m), m]));
  return {
    text: action === 'discard' ? 'discard a card' : `play a card${onto}`,
    controls: ctx.info.status === 'paused' ? null : h('span', { class: 'small muted', 'data-testid': 'ext-hint' }, 'Click a card in your hand.'),
    hand: handEl(ctx, {
      cards: hand,
      enabled: (c) => byCard.has(c) && !ctx.locked,
      playable: (c) => byCard.has(c),
      onClick: (c) => { const m = byCard.get(c); if (m) ctx.send(m); },
      label: action === 'discard' ? 'Your hand: choose a card to discard' : 'Your hand: choose a card to play',
      reason: byCard.size && byCard.size < hand.length ? 'The greyed cards cannot be played now.' : null,
    }),
  };
}

// Several entries at once: cards picked in the hand (play, discard), or options toggled
// (select), then sent together once there are exactly `count` of them.
function chooseParts(ctx: TableCtx, hand: string[], action: string, name: string, onto: string, count: number, fromList: string[]): { text: Child; controls: Child; hand: HTMLElement } {
  const from = new Set(fromList);
  const sel = ctx.r.selected.filter((x) => from.has(x));
  const ready = sel.length === count;
  const send = () => ctx.send({ action, value: sel } as Move);
  const verb = ACTION_WORD[action] ?? action;
  const controls: Child[] = [
    h('button', { type: 'button', class: 'primary', 'data-testid': 'submit-choice', disabled: !ready || ctx.locked, onclick: send,
      title: ready ? null : `Choose ${count} first` }, `${verb} ${sel.length}/${count}`),
    h('button', { type: 'button', 'data-testid': 'clear-selection', disabled: sel.length === 0, onclick: () => ctx.select([]) }, 'Clear'),
  ];
  if (action === 'select') {
    const options = h('div', { class: 'ext-options', role: 'group', 'aria-label': name || 'Options' }, fromList.map((o) => {
      const on = sel.includes(o);
      return h('button', { type: 'button', class: on ? 'chosen' : '', 'aria-pressed': on ? 'true' : 'false', 'data-testid': `option-${slug(o)}`,
        disabled: !on && sel.length >= count, onclick: () => ctx.toggle(o) }, o);
    }));
    return { text: `choose ${count}${name ? `: ${name}` : ''}`, controls: [options, ...controls],
      hand: handEl(ctx, { cards: hand, enabled: () => false, onClick: () => {} }) };
  }
  return {
    text: action === 'discard' ? `discard ${count} cards` : `play ${count} cards${onto}`,
    controls,
    hand: handEl(ctx, {
      cards: hand,
      selected: sel,
      enabled: (c) => from.has(c) && (sel.includes(c) || sel.length < count),
      playable: (c) => from.has(c),
      onClick: (c) => ctx.toggle(c),
      label: `Your hand: choose ${count} cards`,
      reason: ready ? `You have chosen ${count}: click a chosen card to put it back.` : null,
    }),
  };
}
