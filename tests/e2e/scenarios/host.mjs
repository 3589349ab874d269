// The host's controls in the browser (protocol: "Host controls"): only the player who
// created a waiting room sees Remove and Lock; removing a bot opens its seat for everyone;
// a locked room refuses a newcomer's seat with the reason; a removed player is taken back to
// the lobby and told why; and a Mute beside a chat line hides that player's later lines from
// the one who muted them only (a spectator still reads them) until Unmute.

import { Player } from '../lib/player.mjs';
import { assert } from '../lib/assert.mjs';
import { players } from '../lib/rooms.mjs';

export const scenarios = [
  {
    name: 'host controls: remove a bot and a player, lock the room against a newcomer, mute and unmute a chatter',
    timeout: 90,
    async run(env) {
      const [alice, bob] = await players(env, 2);
      const room = await alice.createRoom('bigtwo', { seats: 4 });
      await bob.joinFromLobby(room);
      await alice.page.getByTestId('add-bot-2-easy').click();
      await alice.page.locator('[data-testid="seat-row-2"]').getByText('bot', { exact: true }).waitFor();
      // A spectator, to read the chat the host mutes.
      const carol = await Player.create(env.browser, env.baseUrl, 'carol', { hash: `#/room/${room}` });
      env.cleanups.push(() => carol.close());
      await carol.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor();

      // Only the host has the controls.
      await alice.page.getByTestId('remove-seat-1').waitFor();
      await alice.page.getByTestId('lock-toggle').waitFor();
      assert.equal(await bob.page.locator('[data-testid^="remove-seat-"]').count(), 0, 'a guest removes nobody');
      assert.equal(await bob.page.getByTestId('lock-toggle').count(), 0, 'a guest does not lock');

      // The bot goes: its seat is open on every page.
      await alice.page.getByTestId('remove-seat-2').click();
      for (const p of [alice, bob]) await p.page.locator('[data-testid="seat-row-2"]', { hasText: 'open' }).waitFor();

      // Mute: bob's next line reaches the spectator, not the host.
      await bob.page.getByTestId('chat-input').fill('first line');
      await bob.page.getByTestId('chat-send').click();
      await alice.page.getByTestId('chat-log').getByText('first line').waitFor();
      await alice.page.getByTestId('chat-log').getByRole('button', { name: 'Mute bob' }).click();
      await alice.page.getByTestId('muted-list').waitFor();
      await bob.page.getByTestId('chat-input').fill('muted line');
      await bob.page.getByTestId('chat-send').click();
      await carol.page.getByTestId('chat-log').getByText('muted line').waitFor();
      await alice.page.waitForTimeout(500);
      assert.equal(await alice.page.getByTestId('chat-log').getByText('muted line').count(), 0, 'the host does not see a muted line');
      await alice.page.getByTestId('unmute').click();
      await alice.page.getByTestId('muted-list').waitFor({ state: 'detached' });
      await bob.page.getByTestId('chat-input').fill('heard again');
      await bob.page.getByTestId('chat-send').click();
      await alice.page.getByTestId('chat-log').getByText('heard again').waitFor();

      // Locked: the newcomer's seat is refused with the reason; the guest sees the lock.
      await alice.page.getByTestId('lock-toggle').click();
      await alice.page.locator('[data-testid="lock-toggle"][aria-pressed="true"]').waitFor();
      await bob.page.getByTestId('room-locked').waitFor();
      await carol.page.getByTestId('sit-3').click();
      await carol.page.getByText(/locked/).first().waitFor();
      assert.equal(await carol.page.locator('[data-testid="room"][data-seat="spectator"]').count(), 1, 'still a spectator');

      // Bob is removed: his page returns to the lobby and says why.
      await alice.page.getByTestId('remove-seat-1').click();
      await bob.page.getByTestId('lobby').waitFor();
      assert.match(await bob.page.getByTestId('lobby-error').textContent(), /removed/);
      await alice.page.locator('[data-testid="seat-row-1"]', { hasText: 'open' }).waitFor();
      for (const p of [alice, bob, carol]) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
      await alice.page.getByTestId('leave').click();
      await alice.page.getByTestId('lobby').waitFor();
    },
  },
];
