// The live lobby: a table opened in one browser appears in another's list, and its seats
// fill there as they fill, from the server's lobby push; the list is never polled.

import { Player } from '../lib/player.mjs';
import { assert } from '../lib/assert.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';

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
    // The server of this run fills quick-play tables with bots after 3 s.
    name: 'quick play: a newcomer presses "Quick play Big Two", is seated with bots after the wait and plays to the end',
    timeout: 120,
    async run(env) {
      const ivy = await Player.create(env.browser, env.baseUrl, 'ivy');
      env.cleanups.push(() => ivy.close());
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
      assert.deepEqual(ivy.errors, [], 'no script errors');
    },
  },
];
