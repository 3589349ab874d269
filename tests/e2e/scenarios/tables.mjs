// The other tables: one trick-taking game (Bid Whist, then Agram) played to its
// end through the UI, and a screenshot of every table view (Spades, Gem Merchants
// too), each checked not to be blank.

import { Player } from '../lib/player.mjs';
import { bigTwoMove, gemMove, playToEnd, trickMove } from '../lib/play.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { assert } from '../lib/assert.mjs';
import { actorOf, players, startRoom } from '../lib/rooms.mjs';

async function finish(env, people, kind) {
  for (const p of people) await p.page.getByTestId('results').waitFor();
  const winners = await people[0].page.getByTestId('results').locator('h2').textContent();
  env.log(`${kind}: ${winners}`);
  await saveAndCheckScreenshot(env.browser, people[0].page, env.artifacts, `table-${kind}-results`);
  // Only the host (who created the room) deals the rematch; the others are told who does.
  const [host, ...guests] = people;
  assert.equal(await host.page.getByTestId('play-again').count(), 1, 'play again is offered to the host');
  for (const p of guests) {
    assert.equal(await p.page.getByTestId('play-again').count(), 0, `${p.name} is not offered play again`);
    assert.match(await p.page.getByTestId('host-starts').textContent(), new RegExp(`${host.name} may deal a rematch`));
  }
}

export const scenarios = [
  {
    name: 'Bid Whist (trick-taking) played to its end: bids, declaration, discard, twelve tricks',
    timeout: 300,
    async run(env) {
      const people = await players(env, 4);
      await startRoom(env, 'bidwhist', people, { seed: 7, options: { target: 1 } });
      await saveAndCheckScreenshot(env.browser, (await actorOf(people)).page, env.artifacts, 'table-bidwhist-auction');
      const phases = new Set();
      let shotDiscard = false, shotPlay = false;
      const { moves } = await playToEnd(people, async (p, i) => {
        if (!shotDiscard && await p.page.getByTestId('discard').count()) {
          shotDiscard = true;
          await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-bidwhist-discard');
        }
        if (!shotPlay && await p.page.locator('[data-testid="trick"] [data-card]').count() >= 2) {
          shotPlay = true;
          await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-bidwhist');
        }
        phases.add(await p.page.getByTestId('prompt-text').textContent());
        await trickMove(p, i);
      }, { label: 'bid whist', maxMoves: 400 });
      env.log(`bid whist over after ${moves} moves`);
      assert.ok(shotDiscard, 'the declarer was asked to discard');
      await finish(env, people, 'bidwhist');
    },
  },
  {
    name: 'Agram (trick-taking) played to its end, with a turn clock counting down',
    timeout: 240,
    async run(env) {
      const people = await players(env, 4);
      await startRoom(env, 'agram', people, { seed: 3, turnSeconds: 120 });
      const first = await actorOf(people);
      const clock = first.page.getByTestId('turn-timer');
      await clock.waitFor();
      assert.match(await clock.textContent(), /\d+:\d\d left/);
      let shot = false;
      const { moves } = await playToEnd(people, async (p, i) => {
        if (!shot && await p.page.locator('[data-testid="trick"] [data-card]').count() >= 2) {
          shot = true;
          await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-agram');
        }
        await trickMove(p, i);
      }, { label: 'agram', maxMoves: 400 });
      env.log(`agram over after ${moves} moves`);
      assert.ok(shot);
      await finish(env, people, 'agram');
    },
  },
  {
    name: 'Spades table: bidding with only legal bids, then a trick in the centre',
    timeout: 180,
    async run(env) {
      const people = await players(env, 4);
      // The lowest target (100) so that a later scenario can finish the game.
      await startRoom(env, 'spades', people, { seed: 5, options: { target: 100 } });
      const bidder = await actorOf(people);
      const bids = await bidder.page.locator('.bid-picker button').count();
      assert.ok(bids >= 14, `a bid picker with nil and 1–13 (found ${bids})`);
      await saveAndCheckScreenshot(env.browser, bidder.page, env.artifacts, 'table-spades-bidding');
      // Four bids and three cards: the trick in the centre has three cards.
      const { seq } = await playToEnd(people, trickMove, { label: 'spades', stopAfter: 7 });
      for (const p of people) await p.waitSeqAtLeast(seq);
      const next = await actorOf(people);
      assert.equal(await next.page.locator('[data-testid="trick"] [data-card]').count(), 3);
      assert.ok((await next.enabledHandCards()).length >= 1, 'legal cards are enabled');
      // Greyed cards say why (read from the legal cards the server sent): in this seeded deal
      // hearts were led and the next player holds hearts.
      const total = (await next.handCards()).length;
      assert.ok((await next.enabledHandCards()).length < total, 'some cards are greyed');
      assert.match(await next.page.getByTestId('hand-hint').textContent(), /You must follow ♥/);
      // Each team's contract in words: "bid 7 · 1 trick taken", never "bid 7, 1 tricks".
      const contract = await next.page.getByTestId('contract').textContent();
      assert.match(contract, /bid \d+ · \d+ tricks? taken.*bid \d+ · \d+ tricks? taken/, `contract line: ${contract}`);
      await saveAndCheckScreenshot(env.browser, next.page, env.artifacts, 'table-spades');
    },
  },
  {
    name: 'Gem Merchants (Splendor) table: market, bank, merchants; take gems through the UI',
    timeout: 120,
    async run(env) {
      const people = await players(env, 2);
      await startRoom(env, 'splendor', people, { seed: 2 });
      for (const p of people) await p.page.getByText('Gem Merchants', { exact: true }).first().waitFor();
      // Twelve face-up development cards and three nobles, drawn from the catalogue by id.
      for (const p of people) {
        assert.equal(await p.page.locator('[data-testid="market"] [data-card-id]').count(), 12, 'twelve face-up cards');
        assert.equal(await p.page.locator('[data-testid="nobles"] [data-testid^="noble-"]').count(), 3, 'players + 1 nobles');
      }
      const actor = await actorOf(people);
      const seq = await actor.seq();
      // Pick three different gems the bank offers, then "Take".
      let picked = 0;
      for (const color of ['white', 'blue', 'green', 'red', 'black']) {
        if (picked === 3) break;
        if (!(await actor.isEnabled(`bank-${color}`))) continue;
        await actor.page.getByTestId(`bank-${color}`).click();
        await actor.page.locator(`[data-testid="bank-${color}"].chosen`).waitFor();
        picked++;
      }
      assert.equal(picked, 3, 'three colours could be picked');
      await actor.page.getByTestId('take').click();
      await actor.waitSeqAtLeast(seq + 1);
      const other = people.find((p) => p !== actor);
      await other.waitSeqAtLeast(seq + 1);
      // The other merchant reserves a face-up card: it appears in their purse with a gold token.
      const reserve = other.page.locator('[data-testid^="reserve-"]:not([data-testid^="reserve-deck"]):not([disabled])').first();
      const id = (await reserve.getAttribute('data-testid')).replace('reserve-', '');
      await reserve.click();
      await other.waitSeqAtLeast(seq + 2);
      await other.page.getByTestId(`reserved-${id}`).waitFor();
      await actor.waitSeqAtLeast(seq + 2);
      await actor.page.getByTestId(`reserved-${id}`).waitFor();
      await saveAndCheckScreenshot(env.browser, actor.page, env.artifacts, 'table-splendor');
    },
  },
  {
    name: 'Gem Merchants played to its end by clicking: two merchants take gems and buy cards (seeded)',
    timeout: 240,
    async run(env) {
      const people = await players(env, 2);
      await startRoom(env, 'splendor', people, { seed: 9 });
      const did = {};
      let shot = false;
      const { moves } = await playToEnd(people, async (p, i) => {
        if (!shot && i >= 30) {
          shot = true;
          await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-splendor-midgame');
        }
        const what = await gemMove(p);
        did[what] = (did[what] ?? 0) + 1;
      }, { label: 'gem merchants', maxMoves: 400 });
      const points = await people[0].page.evaluate(() => [...document.querySelectorAll('.merchant .prestige')].map((e) => Number(e.textContent.replace(/\D+/g, ''))));
      env.log(`gem merchants over after ${moves} moves (${Object.entries(did).map(([k, n]) => `${n} ${k}`).join(', ')}); prestige ${points}`);
      assert.ok(Math.max(...points) >= 15, `someone reached 15 prestige (points ${points})`);
      assert.ok(did.take > 0 && did.buy > 0, 'gems were taken and cards bought');
      await finish(env, people, 'splendor');
      assert.equal(await people[0].page.locator('[data-testid="prompt"][data-my-turn="true"]').count(), 0, 'nobody is prompted after the end');
      for (const p of people) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
    },
  },
  {
    name: 'a button held down while a push arrives still gets its click',
    timeout: 60,
    async run(env) {
      const [alice, bob] = await players(env, 2);
      const room = await alice.createRoom('bigtwo', { seats: 3 });
      await bob.joinFromLobby(room);
      await alice.page.locator('[data-testid="seat-row-1"]').getByText(bob.name).waitFor();
      // Bob's join can still be re-rendering the seats: a button replaced between
      // finding it and measuring it has no box (null), so measure until one holds.
      const addBot = alice.page.getByTestId('add-bot-2');
      let box = null;
      for (let tries = 0; !box && tries < 100; tries++) {
        await addBot.waitFor({ state: 'visible' });
        box = await addBot.boundingBox();
      }
      assert.ok(box, 'the add-bot button of seat 2 has a box on screen');
      await alice.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await alice.page.mouse.down();
      // Bob's chat reaches Alice mid-click: the push re-renders the room.
      const pushed = alice.frameReceived((f) => f.includes('"chat"') && f.includes('mid-click'));
      await bob.page.getByTestId('chat-input').fill('mid-click');
      await bob.page.getByTestId('chat-send').click();
      await pushed;
      await alice.page.waitForTimeout(150); // several animation frames
      await alice.page.mouse.up();
      await alice.page.locator('[data-testid="seat-row-2"]').getByText('bot', { exact: true }).waitFor();
      await alice.page.getByTestId('chat-log').getByText('mid-click').waitFor();
      await alice.page.getByTestId('leave').click();
      await bob.page.getByTestId('leave').click();
    },
  },
  {
    name: 'bots: fill an empty seat with a bot from the room and play Big Two against it to the end',
    timeout: 180,
    async run(env) {
      const [alice] = await players(env, 1);
      const room = await alice.createRoom('bigtwo', { seats: 2, seed: 11 });
      await alice.page.getByTestId('add-bot-1').click();
      await alice.page.locator('[data-testid="seat-row-1"]').getByText('bot', { exact: true }).waitFor();
      await alice.page.getByTestId('start').click();
      await alice.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
      await alice.page.waitForFunction(() => document.querySelectorAll('[data-testid="hand"] [data-card]').length === 13);
      const dealt = await alice.handCards();
      env.log(`bigtwo vs bot room ${room}`);
      const { moves } = await playToEnd([alice], bigTwoMove, { label: 'big two vs bot' });
      env.log(`alice made ${moves} moves`);
      await alice.page.getByTestId('results').waitFor();
      await saveAndCheckScreenshot(env.browser, alice.page, env.artifacts, 'table-bigtwo-bot-results');
      env.shared.botGame = { room, alice, dealt };
    },
  },
  {
    name: 'phone-sized views: a spectator, and a seated player whose hand fits the screen',
    timeout: 60,
    async run(env) {
      const people = await players(env, 4);
      const room = decodeURIComponent(new URL(people[0].page.url()).hash.replace(/^#\/room\//, ''));
      const phone = await Player.create(env.browser, env.baseUrl, 'phone', { viewport: { width: 390, height: 844 }, hash: `#/room/${room}` });
      await phone.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor();
      await phone.page.getByTestId('table').waitFor();
      assert.equal(await phone.page.locator('[data-testid="hand"] [data-card]').count(), 0);
      await saveAndCheckScreenshot(env.browser, phone.page, env.artifacts, 'phone-spectator');
      await phone.close();
      // A seated player's Spades table at phone size: the hand still fits and reads.
      const spades = env.shared.rooms?.spades;
      if (spades) {
        const alice = people[0];
        await alice.page.setViewportSize({ width: 390, height: 844 });
        await alice.page.evaluate((id) => { location.hash = `#/room/${id}`; }, spades);
        await alice.page.locator(`[data-testid="room"][data-room="${spades}"] [data-testid="table"][data-game="spades"]`).waitFor();
        const cards = alice.page.locator('[data-testid="hand"] [data-card]');
        assert.ok(await cards.count() >= 12, 'the hand is shown');
        // Measured in one go: every render replaces the elements, so two separate look-ups
        // may see different ones (or a detached one).
        const fit = await alice.page.evaluate(() => {
          const hand = document.querySelector('[data-testid="hand"]');
          const cards = hand?.querySelectorAll('[data-card]') ?? [];
          if (!hand || !cards.length) return null;
          const box = hand.getBoundingClientRect();
          const last = cards[cards.length - 1].getBoundingClientRect();
          return { right: last.right, limit: box.right };
        });
        assert.ok(fit && fit.right <= fit.limit + 1, `the whole hand fits the phone width (${JSON.stringify(fit)})`);
        await saveAndCheckScreenshot(env.browser, alice.page, env.artifacts, 'phone-table-spades');
        await alice.page.setViewportSize({ width: 1280, height: 900 });
      }
    },
  },
  {
    name: 'Spades (target 100) played to its end by clicking',
    needs: ['rooms'],
    timeout: 240,
    async run(env) {
      const room = env.shared.rooms.spades;
      assert.ok(room, 'the Spades room of the earlier scenario');
      const people = await players(env, 4);
      for (const p of people) {
        await p.page.evaluate((id) => { location.hash = `#/room/${id}`; }, room);
        await p.page.locator(`[data-testid="room"][data-room="${room}"] [data-testid="table"][data-game="spades"]`).waitFor();
      }
      const { moves } = await playToEnd(people, trickMove, { label: 'spades', maxMoves: 600 });
      env.log(`spades over after ${moves} more moves`);
      await finish(env, people, 'spades');
      const hands = await people[0].page.locator('[data-testid="hand-scores"] tbody tr').count();
      env.log(`spades: ${hands} hand(s) scored`);
      // The last hand's summary: each team's bids against the tricks it won, made or set,
      // nil, bags and its points, which are the hand-by-hand table's last row.
      for (const p of people) {
        const summary = await p.page.evaluate(() => {
          const el = document.querySelector('[data-testid="hand-summary"]');
          const last = [...document.querySelectorAll('[data-testid="hand-scores"] tbody tr')].pop();
          if (!el || !last) return null;
          const cells = (tr) => [...tr.children].map((td) => td.textContent);
          return { hand: Number(el.dataset.hand), rows: [...el.querySelectorAll('tbody tr')].map(cells), last: cells(last) };
        });
        assert.ok(summary, `${p.name}: the last hand is summarised`);
        assert.equal(summary.hand, hands, 'the summary is of the last hand');
        assert.equal(summary.rows.length, 2, 'a row per team');
        assert.equal(Number(summary.rows[0][2]) + Number(summary.rows[1][2]), 13, `the tricks won add up to 13: ${JSON.stringify(summary.rows)}`);
        const points = (text) => Number(text.replace('−', '-').replace('+', ''));
        for (const [team, row] of summary.rows.entries()) {
          assert.match(row[1], /\S+ (\d+|nil|blind nil), \S+ (\d+|nil|blind nil)/, `both partners' bids: ${row[1]}`);
          assert.match(row[3], /^(made|set|—)$/, `made or set: ${row[3]}`);
          assert.equal(points(row[6]), Number(summary.last[team + 1].split(' ')[0]), `team ${team}'s points match the hand-by-hand table`);
        }
      }
      env.log(`spades: last hand ${JSON.stringify(await people[0].page.getByTestId('hand-summary-table').textContent())}`);
      for (const p of people) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
    },
  },
];
