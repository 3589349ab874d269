// The replay viewer: a finished Big Two game (alice against a bot) opened from its
// results with "Watch replay", stepped with buttons and arrow keys, its deal checked
// against the hand alice was dealt, and the reveal of every hand; the replay link
// opened by a visitor (the spectator view, then the other seat); an earlier game by
// number; and a game still being played (own seat only).

import { assert, sameCards } from '../lib/assert.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';

const loaded = (page, extra = '') => page.locator(`[data-testid="replay"][data-loaded="true"]${extra}`).waitFor();
const atStep = (page, n) => page.locator(`[data-testid="replay"][data-step="${n}"]`).waitFor();

async function info(page) {
  return page.evaluate(() => {
    const el = document.querySelector('[data-testid="replay"]');
    return { step: Number(el.dataset.step), steps: Number(el.dataset.steps), seat: el.dataset.seat, finished: el.dataset.finished, game: Number(el.dataset.game) };
  });
}

async function hand(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid="replay-table"] [data-testid="hand"] [data-card]')].map((e) => e.getAttribute('data-card')));
}

async function events(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid="replay-events"] li')].map((e) => e.textContent));
}

export const scenarios = [
  {
    name: 'replay viewer: "Watch replay" after Big Two; step forward and back by buttons and arrow keys; the deal matches; reveal every hand',
    needs: ['botGame'],
    timeout: 90,
    async run(env) {
      const { room, alice, dealt } = env.shared.botGame;
      const page = alice.page;
      // Later scenarios took alice elsewhere: back to that table, whose results offer the replay.
      await page.evaluate((id) => { location.hash = `#/room/${id}`; }, room);
      await page.locator(`[data-testid="room"][data-room="${room}"] [data-testid="results"]`).waitFor();
      await page.getByTestId('watch-replay').click();
      await page.waitForURL(new RegExp(`#/replay/${room}/0$`));
      await loaded(page);
      let at = await info(page);
      env.log(`replay of ${room}: ${at.steps} steps, game ${at.game}`);
      assert.deepEqual([at.step, at.seat, at.finished], [0, '0', 'true'], 'opens at the deal, as seat 0, finished');
      assert.ok(at.steps > 10, 'a whole game of steps');
      assert.ok(sameCards(await hand(page), dealt), `the hand at step 0 is the dealt hand (${dealt.join(' ')})`);
      assert.match(await page.getByTestId('replay-counter').textContent(), /deal/i);
      assert.equal(await page.locator('[data-testid="replay-table"] [data-testid="hand"] button[data-card]:not([disabled])').count(), 0, 'read-only: no card can be played');
      assert.equal(await page.locator('[data-testid="replay-table"] [data-testid="prompt"] .prompt-controls').count(), 0, 'no move controls');
      assert.equal(await page.getByTestId('replay-reveal').count(), 0, 'no reveal before the end');

      // Buttons.
      await page.getByTestId('replay-forward').click();
      await atStep(page, 1);
      const first = await events(page);
      assert.ok(first.some((l) => /played|passed/.test(l)), `step 1 lists its events (${first})`);
      assert.match(await page.getByTestId('replay-counter').textContent(), new RegExp(`Move 1 of ${at.steps - 1}`));
      // Arrow keys.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await atStep(page, 3);
      await page.keyboard.press('ArrowLeft');
      await atStep(page, 2);
      await page.getByTestId('replay-back').click();
      await atStep(page, 1);
      await page.keyboard.press('Home');
      await atStep(page, 0);
      assert.ok(sameCards(await hand(page), dealt), 'back at the deal, the same hand');
      assert.equal(await page.getByTestId('replay-back').isDisabled(), true, 'nothing before the deal');

      // A step in the middle, by the slider.
      const mid = Math.floor(at.steps / 2);
      await page.getByTestId('replay-slider').fill(String(mid));
      await atStep(page, mid);
      const midHand = await hand(page);
      assert.ok(midHand.length < dealt.length && midHand.every((c) => dealt.includes(c)), `mid-game the hand is a part of the deal (${midHand.length} cards)`);
      await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'replay-bigtwo');

      // The end: results, and the reveal of every hand at the deal.
      await page.getByTestId('replay-end').click();
      await atStep(page, at.steps - 1);
      await page.getByTestId('replay-results').waitFor();
      assert.equal(await page.getByTestId('replay-forward').isDisabled(), true, 'nothing after the end');
      await page.getByTestId('replay-reveal').click();
      await page.getByTestId('replay-reveal-panel').waitFor();
      const revealed = await page.evaluate(() => [0, 1].map((s) => (document.querySelector(`[data-testid="reveal-hand-${s}"]`)?.getAttribute('data-cards') ?? '').split(' ').filter(Boolean)));
      assert.ok(sameCards(revealed[0], dealt), 'the reveal shows alice\'s dealt hand');
      assert.equal(revealed[1].length, 13, 'and the bot\'s 13 cards');
      assert.ok(revealed[1].every((c) => !dealt.includes(c)), 'two different hands');
      await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'replay-bigtwo-reveal');
      // Stepping back keeps the reveal open (the end has been seen).
      await page.keyboard.press('Home');
      await atStep(page, 0);
      await page.getByTestId('replay-reveal-panel').waitFor();
      env.shared.botReplay = { room, bot: revealed[1], steps: at.steps };
      assert.deepEqual(alice.errors, [], 'no page errors');
    },
  },
  {
    name: 'replay viewer: a visitor opens the replay link (spectator view, no hand), switches to the other seat; a Gem Merchants replay',
    needs: ['botReplay'],
    timeout: 60,
    async run(env) {
      const { room, bot, steps } = env.shared.botReplay;
      // No name and no token: a finished game's replay comes over plain HTTP.
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
      env.cleanups.push(() => context.close());
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${env.baseUrl}/#/replay/${room}`);
      await loaded(page, '[data-seat="spectator"]');
      assert.equal((await info(page)).steps, steps, 'the same game');
      await page.locator('[data-testid="replay-table"] [data-testid="hand"][data-spectator="true"]').waitFor();
      assert.equal((await hand(page)).length, 0, 'a spectator sees no hand');
      await page.getByTestId('replay-seat').selectOption('1');
      await page.waitForURL(new RegExp(`#/replay/${room}/1(\\?game=\\d+)?$`));
      await loaded(page, '[data-seat="1"]');
      await atStep(page, 0);
      assert.ok(sameCards(await hand(page), bot), 'seat 1 at the deal: the bot\'s hand');
      await page.getByTestId('replay-end').click();
      await page.getByTestId('replay-results').waitFor();
      // Other games' replays over HTTP: their sizes, and Gem Merchants in the viewer (no hands:
      // the reveal shows the shuffled decks).
      const { spades, splendor } = env.shared.rooms ?? {};
      const sizes = await page.evaluate(async (rooms) => Promise.all(rooms.map(async (r) => {
        const res = await fetch(`/api/games/${r}/replay`);
        return `${res.status} ${(await res.text()).length} bytes`;
      })), [spades, splendor].filter(Boolean));
      env.log(`replay sizes over HTTP (spades, gem merchants): ${sizes.join('; ')}`);
      if (splendor) {
        await page.evaluate((id) => { location.hash = `#/replay/${id}/0`; }, splendor);
        await loaded(page, '[data-kind="splendor"][data-seat="0"]');
        await page.locator('[data-testid="replay-table"] [data-testid="market"] [data-card-id]').first().waitFor();
        await page.getByTestId('replay-end').click();
        await page.getByTestId('replay-results').waitFor();
        await page.getByTestId('replay-reveal').click();
        await page.getByTestId('reveal-deck-1').waitFor();
        // Every move in words, as players say them: no card ids, no JSON.
        const moves = await page.locator('[data-testid="reveal-moves"] li').allTextContents();
        assert.ok(moves.some((m) => /: buy a level [123] (diamond|sapphire|emerald|ruby|onyx) card/.test(m)), `purchases named (${moves.slice(0, 5).join(' | ')})`);
        assert.ok(moves.some((m) => /: take (diamond|sapphire|emerald|ruby|onyx)/.test(m)), 'gems named');
        const raw = moves.filter((m) => /\bcard \d+|[{}[\]"]/.test(m));
        assert.deepEqual(raw, [], 'no move in developer notation');
        await page.getByTestId('replay-start').click();
        await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'replay-splendor');
      }
      assert.deepEqual(errors, [], 'no page errors');
      await context.close();
    },
  },
  {
    name: 'replay viewer: an earlier game by number (four players), and a game still on (own seat only)',
    needs: ['bigtwo', 'bigtwoFinished'],
    timeout: 60,
    async run(env) {
      const { room, players, dealt } = env.shared.bigtwo;
      const bob = players[1];
      const page = bob.page;
      // Game 1 ended before "play again": its deal is the one dealt in the first scenario.
      await page.evaluate((id) => { location.hash = `#/replay/${id}/1?game=1`; }, room);
      await loaded(page, '[data-seat="1"][data-game="1"]');
      assert.equal((await info(page)).finished, 'true');
      assert.ok(sameCards(await hand(page), dealt[1]), 'game 1, seat 1, at the deal');
      // Game 2 is still on: bob may replay his own seat (over the socket), without a reveal.
      // The table, not the replay still on screen (its deal is 13 cards too), shows the hand.
      await page.evaluate((id) => { location.hash = `#/room/${id}`; }, room);
      await page.waitForFunction(() => !document.querySelector('[data-testid="replay"]') &&
        document.querySelectorAll('[data-testid="room"] [data-testid="hand"] [data-card]').length === 13);
      const now = await bob.handCards();
      await page.evaluate((id) => { location.hash = `#/replay/${id}/1`; }, room);
      await loaded(page, '[data-seat="1"][data-finished="false"]');
      const on = await info(page);
      assert.ok(on.game >= 2, `the latest game (${on.game})`);
      if (await page.getByTestId('replay-end').isEnabled()) await page.getByTestId('replay-end').click();
      await atStep(page, on.steps - 1);
      assert.ok(sameCards(await hand(page), now), 'the last step is the hand bob holds');
      assert.equal(await page.getByTestId('replay-reveal').count(), 0, 'no reveal while the game is on');
      // Another seat's replay is refused while the game is on.
      await page.evaluate((id) => { location.hash = `#/replay/${id}/2`; }, room);
      await page.locator('[data-testid="replay-error"][data-code="not_allowed"]').waitFor();
      await page.evaluate(() => { location.hash = '#/'; });
      assert.deepEqual(bob.errors, [], 'no page errors');
    },
  },
];
