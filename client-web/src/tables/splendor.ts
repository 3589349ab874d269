// Gem Merchants (Splendor): a bank of gem tokens, three rows of development
// cards, nobles, and each merchant's purse. Every button maps to a legal move of
// the prompt; gems are picked one by one and "Take" is enabled when the pick
// equals a legal take.

import type { Json, Move } from '../protocol';
import { arr, field, num, str } from '../protocol';
import { h } from '../render';
import { changed, state } from '../state';
import { legalOf, moveButton, promptBar, sameSet, TableCtx } from './common';
import { devCard, GEM_NAME, noble as nobleDef } from './splendor_catalogue';

const COLORS = ['white', 'blue', 'green', 'red', 'black'];
const TOKENS = [...COLORS, 'gold'];

function gem(color: string, n: number | string, cls = ''): HTMLElement {
  return h('span', { class: `gem gem-${color} ${cls}`, title: `${n} ${GEM_NAME[color] ?? color}` }, String(n));
}

function costEl(cost: unknown): HTMLElement {
  return h('div', { class: 'cost' }, COLORS.filter((c) => num(field(cost, c)) > 0).map((c) => gem(c, num(field(cost, c)), 'small')));
}

function pickKey(ctx: TableCtx): string { return `gems:${ctx.id}`; }

function picked(ctx: TableCtx): string[] {
  const raw = state.drafts[pickKey(ctx)];
  return raw ? raw.split(',').filter((x) => x) : [];
}

export function splendorTable(ctx: TableCtx): HTMLElement {
  const v = ctx.view;
  const phase = str(v.phase);
  const legal = legalOf(ctx);
  const buys = legal.filter((m) => m.action === 'buy');
  const reserves = legal.filter((m) => m.action === 'reserve');
  const takes = legal.filter((m) => m.action === 'take');
  const pick = ctx.myTurn ? picked(ctx) : [];
  const pickLegal = pick.length > 0 && takes.some((m) => sameMulti(arr(m.gems).map(String), pick));

  const setPick = (p: string[]) => { state.drafts[pickKey(ctx)] = p.join(','); changed(); };
  const bank = h('div', { class: 'bank', 'data-testid': 'bank', role: 'group', 'aria-label': 'Bank' },
    TOKENS.map((c) => {
      const n = num(field(v.bank, c));
      const canPick = ctx.myTurn && c !== 'gold' && takes.some((m) => arr(m.gems).includes(c));
      const chosen = pick.filter((x) => x === c).length;
      return h('button', { type: 'button', class: `bank-gem${chosen ? ' chosen' : ''}`, 'data-testid': `bank-${c}`, disabled: !canPick,
        'aria-label': `${GEM_NAME[c]}: ${n} in the bank${chosen ? `, ${chosen} picked` : ''}`,
        onclick: () => setPick(pick.length >= 3 ? [c] : [...pick, c]) },
      gem(c, n, 'big'), chosen ? h('span', { class: 'pick-count' }, `+${chosen}`) : null);
    }));

  const buyMove = (id: number) => buys.find((m) => m.card === id && m.gold === undefined) ?? buys.find((m) => m.card === id);
  const cardTile = (ref: unknown, where: string): HTMLElement => {
    const card = devCard(ref);
    if (!card) return h('div', { class: 'dev empty' });
    const id = card.id;
    const bonus = card.bonus;
    const buy = buyMove(id);
    const reserve = reserves.find((m) => m.card === id);
    const why = ctx.myTurn && !buy ? ' — not affordable yet' : '';
    return h('div', { class: `dev bonus-${bonus}`, 'data-testid': `dev-${id}`, 'data-card-id': id, title: `level ${card.level} ${GEM_NAME[bonus] ?? bonus} card${why}` },
      h('div', { class: 'dev-top' }, h('span', { class: 'points' }, card.points ? String(card.points) : ''), gem(bonus, '', 'bonus')),
      costEl(card.cost),
      ctx.myTurn ? h('div', { class: 'dev-actions' },
        buy ? moveButton(ctx, 'Buy', buy, `buy-${id}`, { primary: true }) : null,
        where === 'table' && reserve ? moveButton(ctx, 'Reserve', reserve, `reserve-${id}`) : null) : null);
  };

  const rows = arr(v.rows);
  const decks = arr(v.decks);
  const market = h('div', { class: 'market', 'data-testid': 'market' }, [2, 1, 0].map((level) => h('div', { class: 'market-row' },
    h('div', { class: 'deck', 'data-testid': `deck-${level + 1}` },
      h('span', null, `Level ${level + 1}`), h('span', { class: 'small' }, `${num(decks[level])} left`),
      ctx.myTurn && reserves.some((m) => m.level === level + 1) ? moveButton(ctx, 'Reserve blind', { action: 'reserve', level: level + 1 }, `reserve-deck-${level + 1}`) : null),
    arr(rows[level]).map((c) => cardTile(c, 'table')))));

  const nobleChoices = arr(v.noble_choices);
  const nobles = h('div', { class: 'nobles', 'data-testid': 'nobles' }, arr(v.nobles).map((ref) => {
    const n = nobleDef(ref);
    if (!n) return null;
    const id = n.id;
    return h('div', { class: `noble${nobleChoices.includes(id) ? ' choosable' : ''}`, 'data-testid': `noble-${id}`, title: 'noble: visits the first merchant with these bonuses' },
      h('span', { class: 'points' }, String(n.points)), costEl(n.requires),
      ctx.myTurn && phase === 'noble' && legal.some((m) => m.action === 'noble' && m.noble === id) ? moveButton(ctx, 'Invite', { action: 'noble', noble: id }, `noble-choose-${id}`, { primary: true }) : null);
  }));

  const players = h('div', { class: 'merchants' }, arr(v.players).map((p, seat) => merchant(ctx, p, seat, buyMove)));

  let text = 'take gems, reserve a card or buy one';
  let controls: (HTMLElement | null)[] = [];
  if (phase === 'return') {
    text = `return ${num(v.return_count)} token${num(v.return_count) === 1 ? '' : 's'} (you may hold 10)`;
    controls = legal.filter((m) => m.action === 'return').slice(0, 40).map((m, i) => moveButton(ctx,
      h('span', null, Object.entries((m.gems ?? {}) as Record<string, Json>).map(([c, n]) => gem(c, num(n), 'small'))), m, `return-${i}`));
  } else if (phase === 'noble') {
    text = 'choose the noble who visits you';
  } else {
    controls = [
      h('button', { type: 'button', class: 'primary', 'data-testid': 'take', disabled: !pickLegal || ctx.locked,
        title: pickLegal ? null : pick.length ? 'Not a legal take: three different colours, or two of one colour whose stack has at least 4' : 'Pick gems from the bank first',
        onclick: () => { const gems = pick; state.drafts[pickKey(ctx)] = ''; ctx.send({ action: 'take', gems } as Move); } },
      pick.length ? h('span', null, 'Take ', pick.map((c) => gem(c, 1, 'small'))) : 'Take gems'),
      h('button', { type: 'button', 'data-testid': 'clear-gems', disabled: pick.length === 0, onclick: () => setPick([]) }, 'Clear'),
      // Why "Take" is not enabled yet, where the player is looking.
      takes.length && !pickLegal ? h('span', { class: 'small muted sel-note', 'data-testid': 'take-note' },
        pick.length ? 'Not a take yet: three different colours, or two of one colour from a stack of 4 or more.' : 'Pick gems in the bank, or buy or reserve a card.') : null,
      legal.some((m) => m.action === 'pass') ? moveButton(ctx, 'Pass', { action: 'pass' }, 'pass') : null,
    ];
  }

  // The prompt first: on a small screen the market and the bank follow it in view.
  return h('div', { class: 'table splendor', 'data-testid': 'table', 'data-game': 'splendor' },
    promptBar(ctx, text, controls),
    h('div', { class: 'splendor-board' },
      h('div', { class: 'board-left' }, nobles, market),
      h('div', { class: 'board-right' }, h('h3', null, 'Bank'), bank,
        h('p', { class: 'small muted' }, `Round ${num(v.round, 1)}`, v.final_round ? ' · final round' : ''))),
    players);
}

function sameMulti(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join() && sameSet(a, b);
}

function merchant(ctx: TableCtx, p: unknown, seat: number, buyMove: (id: number) => Move | undefined): HTMLElement {
  const s = ctx.info.seats[seat];
  const turn = ctx.st.to_act.includes(seat);
  const reserved = arr(field(p, 'reserved'));
  return h('section', { class: `merchant panel${turn ? ' turn' : ''}${seat === ctx.me ? ' me' : ''}`, 'data-testid': `seat-${seat}`, 'data-turn': turn ? 'true' : 'false' },
    h('div', { class: 'seat-name' },
      h('span', { class: `dot ${s?.connected ? 'on' : 'off'}` }), h('strong', null, ctx.name(seat)),
      seat === ctx.me ? h('span', { class: 'tag' }, 'you') : null,
      turn ? h('span', { class: 'turn-flag small' }, '● to act') : null,
      h('span', { class: 'prestige', title: 'prestige' }, `${num(field(p, 'points'))} ★`)),
    h('div', { class: 'purse small' }, 'Tokens ', TOKENS.map((c) => gem(c, num(field(field(p, 'tokens'), c)), 'small')),
      h('span', { class: 'muted' }, ` (${num(field(p, 'token_count'))}/10)`)),
    h('div', { class: 'purse small' }, 'Bonuses ', COLORS.map((c) => gem(c, num(field(field(p, 'bonuses'), c)), 'small square'))),
    h('div', { class: 'small muted' }, `${num(field(p, 'cards_bought'))} cards · ${arr(field(p, 'nobles')).length} nobles · ${num(field(p, 'reserved_count'))} reserved`),
    reserved.length ? h('div', { class: 'reserved' }, reserved.map((r) => {
      const card = devCard(field(r, 'card'));
      if (!card) return h('div', { class: 'dev back small', title: 'reserved unseen' }, `L${num(field(r, 'level'))}`);
      const id = card.id;
      const buy = seat === ctx.me && ctx.myTurn ? buyMove(id) : undefined;
      return h('div', { class: `dev small bonus-${card.bonus}`, 'data-testid': `reserved-${id}` },
        h('div', { class: 'dev-top' }, h('span', { class: 'points' }, card.points ? String(card.points) : ''), gem(card.bonus, '', 'bonus')),
        costEl(card.cost), buy ? moveButton(ctx, 'Buy', buy, `buy-${id}`, { primary: true }) : null);
    })) : null,
    arr(field(p, 'nobles')).length ? h('div', { class: 'small' }, 'Nobles: ', arr(field(p, 'nobles')).map((x) => `${nobleDef(x)?.points ?? 3}★`).join(' ')) : null);
}
