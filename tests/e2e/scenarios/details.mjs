// Small things a newcomer trips over, each checked in the browser: a yes/no
// option's checkbox sits on its label's line, a refused table is explained next
// to the button that was pressed, a long unbroken chat message wraps inside the
// chat, leaving a game under way is asked first (a bot takes the seat), and the
// rules are read in the app, in the lobby and at the table; the seed field is offered only
// by a server in development mode.

import { Player } from '../lib/player.mjs';
import { startServer } from '../lib/server.mjs';
import { assert } from '../lib/assert.mjs';
import { players, startRoom } from '../lib/rooms.mjs';

export const scenarios = [
  {
    name: 'details: renaming keeps the identity: the table shows the new name to the others; a name the rules forbid is refused in place',
    timeout: 60,
    async run(env) {
      const [alice, bob] = await players(env, 2);
      const room = await alice.createRoom('bigtwo', { seats: 2 });
      await bob.joinFromLobby(room);
      const rename = async (name) => {
        await alice.page.getByTestId('rename').click();
        await alice.page.getByTestId('name-input').fill(name);
        await alice.page.getByTestId('name-save').click();
      };
      // 27 characters but 34 bytes of UTF-8: over the 32-byte limit, so the server refuses it.
      await rename('x'.repeat(20) + 'é'.repeat(7));
      await alice.page.getByTestId('name-error').waitFor();
      assert.match(await alice.page.getByTestId('name-error').textContent(), /name/);
      await alice.page.getByTestId('name-input').fill('Alice Liddell');
      await alice.page.getByTestId('name-save').click();
      await alice.page.locator('[data-testid="my-name"]', { hasText: 'Alice Liddell' }).waitFor();
      // The same identity, renamed: bob's view of the room shows it at her seat.
      await bob.page.locator('[data-testid="seat-row-0"]', { hasText: 'Alice Liddell' }).waitFor();
      await rename('alice');
      await alice.page.locator('[data-testid="my-name"]', { hasText: /^alice$/ }).waitFor();
      await bob.page.locator('[data-testid="seat-row-0"]', { hasText: 'alice' }).waitFor();
      for (const p of [alice, bob]) {
        await p.page.evaluate((id) => { location.hash = `#/room/${id}`; }, room);
        await p.page.getByTestId('leave').click();
        await p.page.getByTestId('lobby').waitFor();
      }
      assert.deepEqual(alice.errors, [], 'no page errors');
    },
  },
  {
    name: 'details: the seed field is offered only by a server in development mode (--dev); the rules name options in words',
    timeout: 60,
    async run(env) {
      const server = await startServer({ binary: env.binary, staticDir: env.staticDir, extraArgs: ['--store', 'none'], dev: false });
      env.cleanups.push(() => server.stop());
      const visitor = await Player.create(env.browser, server.url, 'vera');
      env.cleanups.push(() => visitor.close());
      await visitor.page.getByTestId('create-form').waitFor();
      await visitor.page.getByTestId('create-room').waitFor();
      assert.equal(await visitor.page.getByTestId('create-seed').count(), 0, 'no seed field without --dev');
      assert.equal(await visitor.page.getByText('Testing', { exact: true }).count(), 0, 'no Testing section without --dev');
      // The rules sheet names options in words, as the create form does: "suit order", not suit_order.
      await visitor.page.getByTestId('rules-bigtwo').click();
      const sheet = visitor.page.getByTestId('rules-sheet');
      await sheet.getByText('suit order', { exact: false }).first().waitFor();
      assert.equal(await sheet.evaluate((el) => /\b[a-z]+_[a-z_]+\b/.test(el.textContent)), false, 'no option code with underscores in the rules sheet');
      await visitor.page.getByTestId('rules-close').click();
      // The suite's own server runs with --dev: its lobby offers the seed.
      const [alice] = await players(env, 1);
      if (await alice.page.getByTestId('to-lobby').isVisible()) await alice.page.getByTestId('to-lobby').click();
      await alice.page.getByTestId('create-form').waitFor();
      assert.equal(await alice.page.getByTestId('create-seed').count(), 1, 'the seed field with --dev');
    },
  },
  {
    name: 'details: the Spades blind-nil checkbox sits on its label\'s line; a refused seed is explained by the create button (phone); rules in the lobby',
    timeout: 60,
    async run(env) {
      const visitor = await Player.create(env.browser, env.baseUrl, 'newcomer', { viewport: { width: 390, height: 844 } });
      try {
        const page = visitor.page;
        await page.getByTestId('create-kind').selectOption('spades');
        // The form is drawn again for Spades on the next frame.
        await page.locator('[data-testid="create-form"][data-kind="spades"] [data-testid="opt-blind_nil"]').waitFor();
        const boxes = await page.evaluate(() => {
          const box = document.querySelector('[data-testid="opt-blind_nil"]');
          const label = box && document.querySelector(`label[for="${box.id}"]`);
          const r = box?.getBoundingClientRect(), l = label?.getBoundingClientRect();
          return r && l ? { box: { x: r.left, y: r.top + r.height / 2, w: r.width, h: r.height }, label: { x: l.left, y: l.top + l.height / 2 } } : null;
        });
        assert.ok(boxes, 'a blind nil checkbox with its label');
        assert.ok(Math.abs(boxes.box.y - boxes.label.y) <= 3, `checkbox and label share a line (${JSON.stringify(boxes)})`);
        assert.ok(boxes.box.x < boxes.label.x && boxes.box.h <= 24 && boxes.box.w <= 24, `a small checkbox before its label (${JSON.stringify(boxes)})`);

        // The server refuses a negative seed; the reason shows where the user is looking.
        const details = page.locator('details.advanced', { hasText: 'Testing' });
        await details.locator('summary').click();
        await page.getByTestId('create-seed').fill('-1');
        await page.getByTestId('create-room').click();
        const error = page.getByTestId('create-error');
        await error.waitFor();
        assert.match(await error.textContent(), /seed/);
        const inView = await error.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= document.documentElement.clientHeight;
        });
        assert.ok(inView, 'the refusal is on screen next to the create button');

        // The rules are read in the app, from the repository's rule text.
        await page.getByTestId('rules-spades').click();
        const sheet = page.getByTestId('rules-sheet');
        await sheet.getByText('Spades may not be led until broken', { exact: false }).waitFor();
        assert.match(await sheet.locator('h2').textContent(), /Spades/);
        await page.getByTestId('rules-close').click();
        await sheet.waitFor({ state: 'detached' });
      } finally {
        await visitor.close();
      }
    },
  },
  {
    name: 'details: a long unbroken chat message wraps inside the chat; leaving a game under way is confirmed and hands the seat to a bot; rules at the table',
    timeout: 90,
    async run(env) {
      const [alice, bob] = await players(env, 2);
      await startRoom(env, 'bigtwo', [alice, bob], { seed: 3 });
      const long = 'x'.repeat(240);
      await bob.page.getByTestId('chat-input').fill(long);
      await bob.page.getByTestId('chat-send').click();
      const line = alice.page.getByTestId('chat-log').locator('li', { hasText: long });
      await line.waitFor();
      const fit = await line.evaluate((li) => {
        const log = li.closest('[data-testid="chat-log"]');
        const a = li.getBoundingClientRect(), b = log.getBoundingClientRect();
        return { right: a.right, limit: b.right, overflow: log.scrollWidth - log.clientWidth };
      });
      assert.ok(fit.right <= fit.limit + 1 && fit.overflow <= 0, `the message stays inside the chat (${JSON.stringify(fit)})`);

      // Leaving mid-game: asked first; "Stay" keeps the seat.
      await bob.page.getByTestId('leave').click();
      const dialog = bob.page.getByTestId('leave-confirm');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /bot/, 'the question says a bot takes the seat');
      await bob.page.getByTestId('leave-cancel').click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await bob.seat(), 1, 'still seated after "Stay"');
      // Confirmed: bob leaves and a bot plays his seat.
      await bob.page.getByTestId('leave').click();
      await bob.page.getByTestId('leave-confirm-yes').click();
      await bob.page.getByTestId('lobby').waitFor();
      await alice.page.locator('[data-testid="seat-row-1"]').getByText('bot', { exact: true }).waitFor();

      // The table's rules, without leaving the table.
      await alice.page.getByTestId('rules').click();
      await alice.page.getByTestId('rules-sheet').getByText('Passing is allowed', { exact: false }).waitFor();
      await alice.page.keyboard.press('Escape');
      await alice.page.getByTestId('rules-sheet').waitFor({ state: 'detached' });
      await alice.page.getByTestId('leave').click();
      await alice.page.getByTestId('leave-confirm-yes').click();
      await alice.page.getByTestId('lobby').waitFor();
    },
  },
];
