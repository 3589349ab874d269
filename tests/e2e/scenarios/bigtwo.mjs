// Big Two from the lobby to the last card, with four browser contexts: room
// creation and joining from the live list, a refused move and its reason, a
// spectator who sees no hand, a reload that resumes the seat and the play log (and a
// late spectator who reads the log), a dropped connection that comes back, the end
// of the game and "play again".

import { Player } from '../lib/player.mjs';
import { startProxy } from '../lib/proxy.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { assert, sameCards } from '../lib/assert.mjs';

const NAMES = ['alice', 'bob', 'carol', 'dave'];

export const scenarios = [
  {
    name: 'lobby: create a seeded Big Two room, three players join from the live list, chat, start',
    async run(env) {
      const players = [];
      // carol reaches the server through a proxy so her network can be cut later.
      env.shared.carolProxy = await startProxy(env.server.port);
      env.cleanups.push(() => env.shared.carolProxy.close());
      for (const name of NAMES) {
        players.push(await Player.create(env.browser, name === 'carol' ? env.shared.carolProxy.url : env.baseUrl, name));
      }
      const [alice, bob, carol, dave] = players;
      await alice.page.getByTestId('game-bigtwo').waitFor();
      await saveAndCheckScreenshot(env.browser, alice.page, env.artifacts, 'lobby');
      const room = await alice.createRoom('bigtwo', { seats: 4, seed: 1 });
      env.log(`room ${room}`);
      assert.equal(await alice.seat(), 0, 'the creator sits at seat 0');

      // The lobby list is live: the room shows up with its status and who sits there.
      const row = bob.page.getByTestId(`room-row-${room}`);
      await row.waitFor();
      assert.match(await row.textContent(), /waiting/);
      assert.match(await row.textContent(), /alice/);
      for (const p of [bob, carol, dave]) await p.joinFromLobby(room);
      assert.deepEqual(await Promise.all(players.map((p) => p.seat())), [0, 1, 2, 3]);
      for (const p of players) {
        await p.page.waitForFunction((names) => names.every((n, i) => (document.querySelector(`[data-testid="seat-row-${i}"]`)?.textContent ?? '').includes(n)), NAMES);
      }
      // The shareable link names the room.
      assert.match(await alice.page.getByTestId('share-link').inputValue(), new RegExp(`#/room/${room}$`));

      // Chat reaches everyone in the room.
      await bob.page.getByTestId('chat-input').fill('good luck, all');
      await bob.page.getByTestId('chat-send').click();
      await alice.page.getByTestId('chat-log').getByText('good luck, all').waitFor();

      // The host starts: the others have no Start button, and are told who starts.
      assert.equal(await bob.page.getByTestId('start').count(), 0, 'only the host has Start');
      assert.match(await bob.page.getByTestId('host-starts').textContent(), /alice starts the game/);
      await alice.page.getByTestId('start').click();
      for (const p of players) {
        await p.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
        await p.page.waitForFunction(() => document.querySelectorAll('[data-testid="hand"] [data-card]').length === 13);
      }
      const hands = await Promise.all(players.map((p) => p.handCards()));
      assert.equal(new Set(hands.flat()).size, 52, 'four hands of 13 distinct cards');
      const turns = await Promise.all(players.map((p) => p.myTurn()));
      assert.equal(turns.filter(Boolean).length, 1, 'exactly one seat is prompted');
      assert.ok(hands[turns.indexOf(true)].includes('3D'), 'the holder of 3♦ leads');
      await saveAndCheckScreenshot(env.browser, players[turns.indexOf(true)].page, env.artifacts, 'table-bigtwo');
      // The deal per seat, for the replay viewer's step 0 later.
      env.shared.bigtwo = { room, players, dealt: hands };
    },
  },
  {
    name: 'a refused move shows the server\'s reason and changes nothing',
    needs: ['bigtwo'],
    async run(env) {
      const { players } = env.shared.bigtwo;
      const turns = await Promise.all(players.map((p) => p.myTurn()));
      const actor = players[turns.indexOf(true)];
      const seq = await actor.seq();
      const hand = await actor.handCards();
      // The first play must contain 3♦: a single of the highest card is refused.
      const wrong = hand[hand.length - 1];
      assert.notEqual(wrong, '3D');
      // By keyboard: focus the first card, walk right with the arrow keys, select with Space.
      const page = actor.page;
      await page.locator('[data-testid="hand"] button[data-card]:not([disabled])').first().focus();
      for (let i = 0; i < hand.length - 1; i++) await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-card')), wrong, 'arrow keys reach the last card');
      await page.keyboard.press('Space');
      await page.locator(`[data-testid="hand"] button[data-card="${wrong}"][aria-pressed="true"]`).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-card')), wrong, 'focus survives the re-render');
      const play = page.getByTestId('play');
      assert.equal(await play.getAttribute('data-legal'), 'false', 'the UI marks the selection as not legal');
      assert.equal(await play.isEnabled(), true, 'an illegal selection may still be sent');
      await play.focus();
      await page.keyboard.press('Enter');
      await actor.page.waitForFunction(() => (document.querySelector('[data-testid="move-error"]')?.textContent ?? '').trim().length > 0);
      assert.notEqual(await actor.page.getByTestId('move-error').getAttribute('data-code'), '', 'the error code is kept');
      const reason = await actor.moveError();
      env.log(`refusal shown: "${reason}"`);
      assert.ok(reason.length > 5, 'a readable reason');
      // In the notation of the cards on screen: suit symbols, never codes such as "3D".
      assert.match(reason, /[♠♥♦♣]/, 'the reason names cards with suit symbols');
      assert.doesNotMatch(reason, /\b[2-9TJQKA][CDHS]\b/, 'no card codes in the reason');
      assert.equal(await actor.seq(), seq, 'the refused move changed nothing');
      assert.ok(sameCards(await actor.handCards(), hand), 'the hand is unchanged');
      await actor.page.getByTestId('clear-selection').click();
    },
  },
  {
    name: 'a spectator opening the room link sees the table and no hand cards',
    needs: ['bigtwo'],
    async run(env) {
      const { room, players } = env.shared.bigtwo;
      const eve = await Player.create(env.browser, env.baseUrl, 'eve', { hash: `#/room/${room}` });
      await eve.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor();
      await eve.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
      await eve.page.getByTestId('spectating').waitFor();
      assert.equal(await eve.page.locator('[data-card]').count() - await eve.page.locator('[data-testid="centre"] [data-card]').count(), 0,
        'no card outside the table centre is rendered for a spectator');
      assert.equal(await eve.page.locator('[data-testid="hand"] [data-card]').count(), 0, 'no hand cards');
      assert.equal(await eve.page.locator('button[data-card]').count(), 0, 'no clickable cards');
      for (let s = 0; s < 4; s++) assert.equal(await eve.page.getByTestId(`seat-${s}-count`).getAttribute('data-count'), '13');
      await players[0].page.waitForFunction(() => /1 watching/.test(document.querySelector('.room-heading')?.textContent ?? ''));
      await saveAndCheckScreenshot(env.browser, eve.page, env.artifacts, 'table-bigtwo-spectator');
      env.shared.spectator = eve;
    },
  },
  {
    name: 'a page reload mid-game resumes the same seat, hand and state, and the chat and play log so far; a late spectator reads the log',
    needs: ['bigtwo'],
    async run(env) {
      const { room, players } = env.shared.bigtwo;
      await playToEnd(players, bigTwoMove, { maxMoves: 6, label: 'big two opening', stopAfter: 6 });
      const bob = players[1];
      const before = { seat: await bob.seat(), hand: await bob.handCards(), seq: await bob.seq(), log: await bob.logLines() };
      assert.ok(before.log.length >= 6, `the play log shows the opening moves (${before.log.length} lines)`);
      await bob.page.reload();
      await bob.page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor();
      await bob.page.locator('[data-testid="room"][data-seat="1"]').waitFor();
      await bob.waitSeqAtLeast(before.seq);
      assert.equal(await bob.seat(), before.seat, 'same seat');
      assert.equal(await bob.seq(), before.seq, 'same state');
      assert.ok(sameCards(await bob.handCards(), before.hand), 'same hand');
      // The chat from before the reload is back (the room keeps its latest lines).
      await bob.page.getByTestId('chat-log').getByText('good luck, all').waitFor();
      // So is the play log, line for line (the room keeps the game's public events).
      await bob.waitLogLines(before.log.length);
      assert.deepEqual(await bob.logLines(), before.log, 'the same play log after the reload');
      // Everybody sees bob connected again.
      await players[0].page.locator('[data-testid="seat-1"] .dot.on').waitFor();
      // A spectator arriving now reads the moves made before it came, as one watching since
      // the deal does (bob's own lines say "You").
      const late = await Player.create(env.browser, env.baseUrl, 'fay', { hash: `#/room/${room}` });
      try {
        await late.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor();
        await late.waitLogLines(before.log.length);
        const lines = await late.logLines();
        if (env.shared.spectator) assert.deepEqual(lines, await env.shared.spectator.logLines(), 'the late spectator\'s log is the early one\'s');
        else assert.equal(lines.length, before.log.length, 'the late spectator\'s log has every move');
      } finally {
        await late.close();
      }
    },
  },
  {
    name: 'a dropped connection shows "reconnecting" and resumes without user action',
    needs: ['bigtwo'],
    async run(env) {
      const { players } = env.shared.bigtwo;
      const carol = players[2];
      const proxy = env.shared.carolProxy;
      const seq = await carol.seq();
      const hand = await carol.handCards();
      // Cut every connection and refuse new ones for a while: the client must notice and retry.
      proxy.refuse(true);
      proxy.drop();
      await carol.page.locator('[data-testid="conn-status"][data-status="reconnecting"]').waitFor({ timeout: 8000 });
      // The others see carol disconnected.
      await players[0].page.locator('[data-testid="seat-2"] .dot.off').waitFor({ timeout: 8000 });
      await carol.page.waitForTimeout(1500);
      proxy.refuse(false);
      // No user action: backoff retries, hello with the stored token, resume.
      await carol.page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor({ timeout: 15000 });
      await carol.page.locator('[data-testid="room"][data-seat="2"]').waitFor();
      await carol.waitSeqAtLeast(seq);
      assert.ok(sameCards(await carol.handCards(), hand), 'same hand after reconnecting');
      await players[0].page.locator('[data-testid="seat-2"] .dot.on').waitFor({ timeout: 8000 });
    },
  },
  {
    name: 'Big Two played to the end by clicking cards and buttons; results; play again',
    needs: ['bigtwo'],
    timeout: 300,
    async run(env) {
      const { players } = env.shared.bigtwo;
      let shot = false;
      const { moves } = await playToEnd(players, bigTwoMove, {
        label: 'big two',
        onMove: async (n, actor) => {
          if (!shot && n >= 12) { shot = true; await saveAndCheckScreenshot(env.browser, actor.page, env.artifacts, 'table-bigtwo-midgame'); }
        },
      });
      env.log(`big two finished after ${moves} more moves`);
      for (const p of players) await p.page.getByTestId('results').waitFor();
      const counts = await players[0].page.evaluate(() => [0, 1, 2, 3].map((s) => Number(document.querySelector(`[data-testid="seat-${s}-count"]`)?.getAttribute('data-count') ?? -1)));
      assert.ok(counts.includes(0), `someone has no cards left (counts ${counts})`);
      // The cards left are laid face up to be counted: every loser's, to players and spectators,
      // from the deal_over event and, after a reload, from the finished game's view.
      const counted = (page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid="counted-hands"] li')]
        .map((li) => [li.dataset.seat, [...li.querySelectorAll('[data-card]')].map((c) => c.getAttribute('data-card'))])));
      const checkCounted = async (page, who) => {
        const shown = await counted(page);
        counts.forEach((n, seat) => assert.equal((shown[seat] ?? []).length, n, `${who}: seat ${seat}'s ${n} cards left are shown (${JSON.stringify(shown)})`));
        const all = Object.values(shown).flat();
        assert.equal(new Set(all).size, all.length, `${who}: no card shown twice`);
      };
      await checkCounted(players[1].page, players[1].name);
      if (env.shared.spectator) {
        const watcher = env.shared.spectator.page;
        await watcher.getByTestId('results').waitFor();
        assert.equal(await watcher.locator('[data-testid="play-again"]').count(), 0, 'spectators cannot restart');
        await checkCounted(watcher, 'spectator');
        await watcher.reload();
        await watcher.getByTestId('results').waitFor();
        await checkCounted(watcher, 'spectator after a reload');
      }
      await saveAndCheckScreenshot(env.browser, players[0].page, env.artifacts, 'table-bigtwo-results');
      env.shared.bigtwoFinished = true; // game 1 of this room is over (the replay scenarios use it)
      const seq = await players[0].seq();
      await players[0].page.getByTestId('play-again').click();
      for (const p of players) {
        await p.page.locator('[data-testid="room"][data-status="playing"]').waitFor();
        await p.waitSeqAtLeast(seq + 1);
        await p.page.waitForFunction(() => document.querySelectorAll('[data-testid="hand"] [data-card]').length === 13);
      }
      await players[0].page.getByTestId('results').waitFor({ state: 'detached' });
      for (const p of players) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
    },
  },
];
