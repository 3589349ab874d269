// The live lobby: a table opened in one browser appears in another's list, and its seats
// fill there as they fill, from the server's lobby push; the list is never polled.

import { Player } from '../lib/player.mjs';
import { assert } from '../lib/assert.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';

// Calls `probe` every 200 ms until it returns something truthy, or null after `timeoutMs`.
async function waitFor(probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found || Date.now() > deadline) return found || null;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// The requests of these types the page sent since `from` (an index into player.sent).
function sentOfType(player, type, from) {
  return player.sent.slice(from).filter((text) => {
    try { return JSON.parse(text).type === type; } catch { return false; }
  });
}

export const scenarios = [
  {
    name: 'lobby: a second browser sees a new table appear and fill live, without polling',
    timeout: 60,
    async run(env) {
      const gina = await Player.create(env.browser, env.baseUrl, 'gina');
      const hal = await Player.create(env.browser, env.baseUrl, 'hal');
      env.cleanups.push(() => gina.close(), () => hal.close());
      await hal.page.getByTestId('room-list').waitFor();
      assert.equal(sentOfType(hal, 'subscribe_lobby', 0).length, 1, 'the lobby subscribes once per connection');
      const from = hal.sent.length;
      const began = Date.now();

      const room = await gina.createRoom('spades', { seats: 4 });
      const row = hal.page.getByTestId(`room-row-${room}`);
      await row.waitFor({ timeout: 3000 });
      env.log(`room ${room} listed in the other browser ${Date.now() - began} ms after its creation began`);
      // The table is named by the people at it, not by its id.
      await hal.page.waitForFunction((id) => document.querySelector(`[data-testid="room-row-${id}"] [data-testid="table-name"]`)?.textContent === "gina's table", room, { timeout: 3000 });
      assert.ok(!(await row.textContent()).includes(room), 'the row does not show the room id');
      const seatsBefore = await row.textContent();

      // A bot takes seat 1 at gina's table: hal's row changes with it.
      await gina.page.getByTestId('add-bot-1').click();
      await hal.page.waitForFunction(([id, text]) => {
        const el = document.querySelector(`[data-testid="room-row-${id}"]`);
        return el && el.textContent !== text;
      }, [room, seatsBefore], { timeout: 3000 });

      // Long enough for a 2 s poll to have fired twice: none did.
      await hal.page.waitForTimeout(Math.max(0, 4500 - (Date.now() - began)));
      assert.deepEqual(sentOfType(hal, 'list_rooms', from), [], 'the lobby list was polled');
      assert.deepEqual(hal.errors, [], 'no script errors');
      assert.deepEqual(gina.errors, [], 'no script errors');
    },
  },
  {
    // The server of this run fills quick-play tables with bots after 3 s. The game is rated:
    // afterwards she finds herself on the Big Two leaderboard, and her profile lists the game.
    name: 'quick play: a newcomer ticks "Rated", presses "Quick play Big Two", is seated with bots after the wait, plays to the end and is on the leaderboard',
    timeout: 120,
    async run(env) {
      const ivy = await Player.create(env.browser, env.baseUrl, 'ivy');
      env.cleanups.push(() => ivy.close());
      await ivy.page.getByTestId('quick-play-rated').check();
      const began = Date.now();
      await ivy.page.getByTestId('quick-play-bigtwo').click();
      await ivy.page.getByTestId('quick-play-waiting').waitFor({ timeout: 2000 });
      assert.match(await ivy.page.getByTestId('quick-play-waiting').textContent(), /Finding a Big Two table/);
      await ivy.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor({ timeout: 8000 });
      const waited = Date.now() - began;
      env.log(`ivy seated ${waited} ms after pressing Quick play`);
      assert.ok(waited >= 2500 && waited <= 6000, `seated with bots after the 3 s wait (${waited} ms)`);
      assert.equal((await ivy.handCards()).length, 13, 'a Big Two hand');
      const { moves } = await playToEnd([ivy], bigTwoMove, { label: 'quick play' });
      env.log(`ivy made ${moves} moves to the end of the game`);
      assert.ok(moves > 0, 'ivy played');

      // The rating is stored with the finished game, just after game_over: wait for the API
      // to have it, then look as a player would.
      const rated = await waitFor(async () => {
        const res = await fetch(`${env.baseUrl}/api/leaderboard?kind=bigtwo`);
        const board = await res.json();
        return (board.players ?? []).find((p) => p.name === 'ivy' && !p.bot) ?? null;
      }, 5000);
      assert.ok(rated, 'ivy is on the Big Two leaderboard of /api/leaderboard');
      assert.equal(rated.games, 1, 'one rated game');
      await ivy.page.getByTestId('leaderboard-link').click();
      await ivy.page.getByTestId('leaderboard-kind-bigtwo').click();
      const row = ivy.page.locator('[data-testid^="leaderboard-row-"]', { hasText: 'ivy' });
      await row.waitFor({ timeout: 5000 });
      const cells = await row.locator('td').allTextContents();
      assert.equal(cells[2], String(Math.round(rated.rating)), `the page shows her rating (${cells.join(' | ')})`);
      assert.equal(cells[4], '1', 'and one game');
      assert.ok(await ivy.page.locator('[data-testid^="leaderboard-row-"]', { hasText: 'bot' }).count() > 0,
        'the bots that filled the table are rated too');
      // Her profile: the Big Two rating and the game, with a link to its replay.
      await row.getByTestId(`player-link-${rated.player}`).click();
      await ivy.page.getByTestId('player-profile').waitFor();
      await ivy.page.getByTestId('player-rating-bigtwo').waitFor({ timeout: 5000 });
      const recent = ivy.page.getByTestId('player-recent');
      await recent.waitFor({ timeout: 5000 });
      assert.equal(await recent.locator('li').count(), 1, 'one recent game');
      assert.match(await recent.locator('a', { hasText: 'Replay' }).getAttribute('href'), /^#\/replay\/[^/?]+\?game=1$/);
      assert.deepEqual(ivy.errors, [], 'no script errors');
    },
  },
];
