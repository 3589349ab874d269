// The first visit shows the games on offer before it asks for a name. Accessibility: axe-core finds no serious or critical WCAG 2.1 A/AA violation on the
// pages a player meets (the first visit, the lobby, each game's table while it is the
// player's turn, the results and a replay), at a laptop and a phone viewport; a keyboard
// alone reaches and works the controls of a turn (Tab to a card or a prompt button, Enter);
// and a screen reader is told "Your turn" and each move (the live region of announce.ts).

import { axeFindings } from '../lib/a11y.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { VIEWPORTS, resize } from '../lib/layout.mjs';
import { assert } from '../lib/assert.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';
import { actorOf, leaveAll, players, startRoom } from '../lib/rooms.mjs';

const CHECKED = VIEWPORTS.filter((v) => v.name === 'laptop' || v.name === 'phone');

// Runs axe on `page` at each checked viewport; collects failures under `where`.
async function check(env, page, where, failures) {
  const original = page.viewportSize();
  for (const viewport of CHECKED) {
    await resize(page, viewport);
    const { failing, other } = await axeFindings(page);
    for (const f of failing) failures.push(`${where} (${viewport.name}): ${f}`);
    for (const f of other) env.log(`  minor, ${where} (${viewport.name}): ${f}`);
  }
  await resize(page, original);
}

export const scenarios = [
  {
    name: 'accessibility: axe-core finds no serious violation on the first visit, the lobby, every table, the results and a replay',
    timeout: 240,
    async run(env) {
      const failures = [];
      // The first visit: the name is asked for.
      const context = await env.browser.newContext({ viewport: { width: 1366, height: 768 } });
      const first = await context.newPage();
      await first.goto(env.baseUrl);
      await first.getByTestId('name-input').waitFor();
      // The games on offer come before the name: each with its picture, players and length.
      await first.getByTestId('games-on-offer').waitFor();
      for (const kind of ['bigtwo', 'spades', 'bidwhist', 'agram', 'splendor']) {
        assert.match(await first.getByTestId(`game-facts-${kind}`).textContent(), /\d(–\d)? players · about \d+ minutes/, `${kind}'s facts`);
      }
      assert.equal(await first.locator('[data-testid="games-on-offer"] .game-picture').count(), 5, 'a picture per game');
      await saveAndCheckScreenshot(env.browser, first, env.artifacts, 'first-visit');
      await check(env, first, 'first visit', failures);
      await context.close();

      const people = await players(env, 4);
      await people[0].page.getByTestId('lobby').waitFor();
      await check(env, people[0].page, 'lobby', failures);

      for (const kind of ['bigtwo', 'spades', 'bidwhist', 'agram', 'splendor']) {
        const seated = kind === 'splendor' ? people.slice(0, 2) : people;
        await startRoom(env, kind, seated, { seed: 11 });
        const actor = await actorOf(seated);
        await actor.page.getByTestId('prompt').waitFor();
        await check(env, actor.page, `${kind} table`, failures);
        await leaveAll(seated);
      }

      // Big Two against a bot: the first turn by keyboard alone, then to the results and
      // the game's replay.
      const [alice] = people;
      await alice.createRoom('bigtwo', { seats: 2, seed: 11 });
      await alice.page.getByTestId('add-bot-1').click();
      await alice.page.locator('[data-testid="seat-row-1"]').getByText('bot', { exact: true }).waitFor();
      await alice.page.getByTestId('start').click();
      await alice.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
      await alice.page.waitForFunction(() => document.querySelectorAll('[data-testid="hand"] [data-card]').length === 13);
      await alice.page.waitForFunction(() => document.querySelector('[data-testid="prompt"]'));
      for (let i = 0; i < 50 && !(await alice.myTurn()); i++) await alice.page.waitForTimeout(100);
      const announced = () => alice.page.evaluate(() => [...document.querySelectorAll('[data-testid="announcer"] p')].map((p) => p.textContent));
      await alice.page.waitForFunction(() => [...document.querySelectorAll('[data-testid="announcer"] p')].some((p) => p.textContent === 'Your turn'));
      await playByKeyboard(alice);
      // The move is read out: a line naming the player (the announcer keeps the last few).
      await alice.page.waitForFunction(() => [...document.querySelectorAll('[data-testid="announcer"] p')].some((p) => /alice/.test(p.textContent)))
        .catch(async () => { throw new Error(`alice's move was not announced: ${JSON.stringify(await announced())}`); });
      await playToEnd([alice], bigTwoMove, { label: 'big two vs bot' });
      await alice.page.getByTestId('results').waitFor();
      await check(env, alice.page, 'results', failures);
      await alice.page.getByTestId('watch-replay').click();
      await alice.page.locator('[data-testid="replay"][data-loaded="true"]').waitFor();
      await alice.page.getByTestId('replay-forward').click();
      await check(env, alice.page, 'replay', failures);

      assert.deepEqual(failures, [], `serious accessibility violations:\n${failures.join('\n')}`);
    },
  },
];

// Plays a turn of Big Two with the keyboard only. Leading, Tab moves the focus to the lowest
// card (a single of it is always legal, on the first turn too), Enter selects it (its button
// says so with aria-pressed), Tab reaches Play and Enter plays it; following, Tab reaches
// Pass and Enter passes. Either way a move goes to the server.
async function playByKeyboard(player) {
  const page = player.page;
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    return { card: el?.getAttribute('data-card') ?? null, testid: el?.getAttribute('data-testid') ?? null };
  });
  const tabTo = async (wanted, what) => {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      if (wanted(await focused())) return;
    }
    throw new Error(`Tab never reached ${what}`);
  };
  const movesSent = () => player.sent.filter((f) => f.includes('"type":"move"')).length;
  const before = movesSent();
  if (await player.isEnabled('pass')) {
    await tabTo((f) => f.testid === 'pass', 'the Pass button');
    await page.keyboard.press('Enter');
  } else {
    const [lowest] = await player.handCards();
    await tabTo((f) => f.card === lowest, `the lowest card, ${lowest}`);
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="hand"] button[data-card="${lowest}"][aria-pressed="true"]`).waitFor();
    // The hand was drawn again; the focus stays on the card (render.ts keeps it): Tab on to Play.
    await tabTo((f) => f.testid === 'play', 'the Play button');
    await page.keyboard.press('Enter');
  }
  for (let i = 0; i < 50 && movesSent() === before; i++) await page.waitForTimeout(100);
  assert.ok(movesSent() > before, 'the keyboard sent a move');
}
