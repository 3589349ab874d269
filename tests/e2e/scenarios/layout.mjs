// The action is always in view: at every supported viewport, the player whose
// turn it is sees the hand, the prompt and its buttons without scrolling, and
// seat plates, the cards on the table and the hand never overlap. Checked by
// bounding boxes in each game at the moments that crowd the table most (the
// bidding, a trick with three cards, a play in the centre, the market).

import { Player } from '../lib/player.mjs';
import { bigTwoMove, playToEnd, trickMove } from '../lib/play.mjs';
import { layoutProblems, resize, settle, VIEWPORTS } from '../lib/layout.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { actorOf, leaveAll, players, startRoom } from '../lib/rooms.mjs';

const DEFAULT_VIEWPORT = { width: 1280, height: 900 };

// Checks everyone's page at every viewport (the actor's prompt and buttons; everyone's
// plates, table cards and hand: a seat that has played sees its own card at the bottom),
// adding what is wrong to `problems` (a scenario reports every moment's problems together
// at its end). The actor's page is kept as a screenshot per viewport.
async function checkEveryViewport(env, people, label, problems) {
  const actor = await actorOf(people);
  if (!(await actor.myTurn())) throw new Error(`${label}: nobody is prompted`);
  for (const person of people) {
    try {
      for (const vp of VIEWPORTS) {
        await resize(person.page, vp);
        for (const p of await layoutProblems(person.page)) problems.push(`${label}, ${person.name}'s page at ${vp.width}×${vp.height}: ${p}`);
        if (person === actor) await saveAndCheckScreenshot(env.browser, actor.page, env.artifacts, `layout-${label}-${vp.name}`, { fullPage: false });
      }
    } finally {
      await resize(person.page, DEFAULT_VIEWPORT);
    }
  }
  return actor;
}

function report(problems) {
  if (problems.length) throw new Error(`layout problems:\n  ${problems.join('\n  ')}`);
}

// Moves one at a time until `ready` holds for whoever is to act next.
async function playUntil(people, act, ready, label, limit = 30) {
  for (let i = 0; i < limit; i++) {
    const actor = await actorOf(people);
    if (await actor.myTurn() && await ready(actor)) return actor;
    await playToEnd(people, act, { label, stopAfter: 1 });
  }
  throw new Error(`${label}: the wanted position did not come within ${limit} moves`);
}

const trickOf = (n) => async (p) => (await p.page.locator('[data-testid="trick"] [data-card]').count()) === n;

export const scenarios = [
  {
    name: 'layout: Spades at every viewport, bidding and with three cards in the trick',
    timeout: 180,
    async run(env) {
      const people = await players(env, 4);
      await startRoom(env, 'spades', people, { seed: 5 });
      const problems = [];
      await checkEveryViewport(env, people, 'spades-bidding', problems);
      await playUntil(people, trickMove, trickOf(3), 'spades');
      await checkEveryViewport(env, people, 'spades-trick', problems);
      await leaveAll(people);
      report(problems);
    },
  },
  {
    name: 'layout: Bid Whist at every viewport, the auction and a trick; "passed" leaves the plates once tricks start',
    timeout: 180,
    async run(env) {
      const people = await players(env, 4);
      await startRoom(env, 'bidwhist', people, { seed: 7 });
      const problems = [];
      await checkEveryViewport(env, people, 'bidwhist-auction', problems);
      const actor = await playUntil(people, trickMove, trickOf(3), 'bid whist');
      await checkEveryViewport(env, people, 'bidwhist-trick', problems);
      const passedShown = await actor.page.locator('[data-testid="felt"] .seat', { hasText: 'passed' }).count();
      if (passedShown) problems.push(`${passedShown} seat plate(s) still say "passed" during the trick play`);
      await leaveAll(people);
      report(problems);
    },
  },
  {
    name: 'layout: Big Two at every viewport, a fresh lead and a play in the centre',
    timeout: 120,
    async run(env) {
      const people = await players(env, 4);
      await startRoom(env, 'bigtwo', people, { seed: 1 });
      const problems = [];
      await checkEveryViewport(env, people, 'bigtwo-lead', problems);
      await playToEnd(people, bigTwoMove, { label: 'big two', stopAfter: 1 });
      await checkEveryViewport(env, people, 'bigtwo-play', problems);
      await leaveAll(people);
      report(problems);
    },
  },
  {
    name: 'layout: Agram with five seats at every viewport, with four cards in the trick',
    timeout: 150,
    async run(env) {
      const people = await players(env, 5);
      await startRoom(env, 'agram', people, { seed: 6 });
      const problems = [];
      await playUntil(people, trickMove, trickOf(4), 'agram');
      await checkEveryViewport(env, people, 'agram-five', problems);
      await leaveAll(people);
      report(problems);
    },
  },
  {
    name: 'layout: Gem Merchants at every viewport; a card\'s buttons stay on the card',
    timeout: 120,
    async run(env) {
      const people = await players(env, 2);
      await startRoom(env, 'splendor', people, { seed: 2 });
      const problems = [];
      await checkEveryViewport(env, people, 'splendor', problems);
      await leaveAll(people);
      report(problems);
    },
  },
  {
    name: 'layout: the lobby fits every viewport (no sideways scrolling)',
    timeout: 60,
    async run(env) {
      const visitor = await Player.create(env.browser, env.baseUrl, 'visitor', { viewport: { width: 390, height: 844 } });
      try {
        await visitor.page.getByTestId('create-form').waitFor();
        const problems = [];
        for (const vp of VIEWPORTS) {
          await resize(visitor.page, vp);
          await settle(visitor.page);
          for (const p of await layoutProblems(visitor.page)) problems.push(`lobby at ${vp.width}×${vp.height}: ${p}`);
        }
        await resize(visitor.page, VIEWPORTS[2]);
        await saveAndCheckScreenshot(env.browser, visitor.page, env.artifacts, 'layout-lobby-phone');
        if (problems.length) throw new Error(`layout problems:\n  ${problems.join('\n  ')}`);
      } finally {
        await visitor.close();
      }
    },
  },
];
