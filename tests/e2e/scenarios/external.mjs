// An external game (docs/ENGINES.md): the Tamerlane Bid Whist engine in Python
// (engines/bidwhist-tamerlane/) on a free loopback port, a parlor-server of its own started
// with `--engine bidwhist-tamerlane=URL`, and four browser players who play it through the
// web client's generic table until the engine's end_game: the auction and the declaration
// as option buttons, the six-card discard as a card selection, the tricks by clicking cards
// the prompt allows; then the game's replay. Each bidder takes the highest bid offered, so the first bid is
// 7 no trump and the game ends with its hand (made: +14; set: -14; the game is to ±7).
// Once, mid-hand, the engine is stopped: the move is refused, the table says the engine is
// not answering and disables its cards; the engine comes back on its port and play goes on.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Player } from '../lib/player.mjs';
import { startEngine } from '../lib/engine.mjs';
import { startServer } from '../lib/server.mjs';
import { playToEnd } from '../lib/play.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { VIEWPORTS, layoutProblems, resize } from '../lib/layout.mjs';
import { assert } from '../lib/assert.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const KIND = 'bidwhist-tamerlane';
const BASE = '/api/v1/whist';

// What the generic table offers the player to act, read in one go.
async function offered(page) {
  return page.evaluate(() => ({
    submit: !!document.querySelector('[data-testid="submit-choice"]'),
    options: [...document.querySelectorAll('[data-testid="prompt"] [data-testid^="option-"]:not([disabled])')].map((b) => b.getAttribute('data-testid')),
    cards: [...document.querySelectorAll('[data-testid="hand"] button[data-card]:not([disabled])')].map((b) => b.getAttribute('data-card')),
  }));
}

// One move through the generic table: a selection of several cards (the discard), else a
// card the prompt allows, else the last option button (the highest bid, a declaration).
async function externalMove(player) {
  const page = player.page;
  await page.waitForFunction(() => document.querySelector(
    '[data-testid="hand"] button[data-card]:not([disabled]), [data-testid="prompt"] .prompt-controls button:not([disabled])'),
  null, { timeout: 5000 }).catch(() => {});
  const now = await offered(page);
  if (now.submit) {
    while (!(await player.isEnabled('submit-choice'))) {
      const cards = await page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] button[data-card]:not([disabled]):not(.selected)')].map((e) => e.getAttribute('data-card')));
      if (!cards.length) throw new Error(`${player.name}: cannot complete the selection`);
      await player.clickCard(cards[0]);
      // Wait for the re-render before looking again (a second click would take it back).
      await page.locator(`[data-testid="hand"] button[data-card="${cards[0]}"].selected`).waitFor();
    }
    await page.getByTestId('submit-choice').click();
    return;
  }
  if (now.cards.length) {
    await player.clickCard(now.cards[0]);
    return;
  }
  if (!now.options.length) throw new Error(`${player.name}: my turn, but nothing is enabled`);
  await page.getByTestId(now.options[now.options.length - 1]).click();
}

// The engine stops while `player` is to act: their card is refused (engine_unavailable), the
// room is paused, the table says so and its cards wait; the engine comes back on the same
// port, the server finds it again and the room plays on. Returns the new engine.
async function pauseAndResume(env, player, engine, script) {
  const page = player.page;
  await engine.stop();
  const card = (await offered(page)).cards[0];
  assert.ok(card, `${player.name} has a card to play`);
  await player.clickCard(card);
  await page.locator('[data-testid="move-error"][data-code="engine_unavailable"]').first().waitFor();
  await page.getByTestId('engine-paused').waitFor();
  assert.equal(await page.getByTestId('room').getAttribute('data-status'), 'paused');
  assert.deepEqual((await offered(page)).cards, [], 'no card can be played while the engine is away');
  await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'table-external-paused');
  const back = await startEngine({ script, base: BASE, port: engine.port });
  env.cleanups.push(() => back.stop());
  // The server asks again with a growing delay (0.5 s, 1 s, 2 s, ...).
  await page.locator('[data-testid="room"][data-status="playing"]').waitFor({ timeout: 20000 });
  await page.getByTestId('engine-paused').waitFor({ state: 'detached' });
  env.log(`the engine was away; ${player.name}'s table paused and came back`);
  return back;
}

// The action in view at every supported viewport, nothing covering anything; back to 1280×900.
async function layoutEverywhere(env, player, moment) {
  const problems = [];
  for (const vp of VIEWPORTS) {
    await resize(player.page, vp);
    for (const p of await layoutProblems(player.page)) problems.push(`${vp.name}: ${p}`);
    await saveAndCheckScreenshot(env.browser, player.page, env.artifacts, `layout-external-${moment}-${vp.name}`, { fullPage: false });
  }
  await resize(player.page, { width: 1280, height: 900 });
  assert.deepEqual(problems, [], `the external table's layout (${moment})`);
}

export const scenarios = [
  {
    name: 'external game: the Tamerlane Bid Whist engine (Python) played to its end_game by four browsers through the generic table',
    timeout: 240,
    async run(env) {
      const script = path.join(repo, 'engines/bidwhist-tamerlane/server.py');
      let engine = await startEngine({ script, base: BASE });
      env.cleanups.push(() => engine.stop());
      // Its own fresh SQLite store (the replay reads it), removed afterwards.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parlor-e2e-external-'));
      const server = await startServer({ binary: env.binary, staticDir: env.staticDir,
        extraArgs: ['--engine', `${KIND}=${engine.url}`, '--bot-delay-ms', '50', '--store', 'sqlite', '--data-dir', dataDir] });
      env.cleanups.push(async () => { await server.stop(); fs.rmSync(dataDir, { recursive: true, force: true }); });
      env.log(`engine at ${engine.url}, its parlor-server at ${server.url}`);
      const people = [];
      for (const name of ['ann', 'ben', 'cat', 'dan']) people.push(await Player.create(env.browser, server.url, name));
      try {
        const [host, ...guests] = people;
        const room = await host.createRoom(KIND, { seats: 4, seed: 7 });
        for (const p of guests) await p.joinFromLobby(room);
        await host.page.getByTestId('start').click();
        for (const p of people) await p.page.locator(`[data-testid="table"][data-game="${KIND}"][data-external="true"]`).waitFor();
        env.log(`${KIND} room ${room}`);

        // The deal: twelve cards in each hand, four empty stacks, the info lines, a dealer.
        const first = people[0].page;
        await first.locator('[data-testid="hand"] [data-card]').nth(11).waitFor();
        for (const p of people) assert.equal((await p.handCards()).length, 12, `${p.name} holds twelve cards`);
        for (let s = 0; s < 4; s++) assert.equal(await first.getByTestId(`stack-played${s}`).getAttribute('data-count'), '0', `stack played${s} starts empty`);
        assert.equal(await first.getByTestId('info-hand').getAttribute('data-value'), '1', 'the info line "Hand" reads 1');
        assert.equal(await first.locator('[data-testid^="decoration-"][data-name="dealer"]').count(), 1, 'one seat wears the dealer decoration');
        const opener = people[(await Promise.all(people.map((p) => p.myTurn()))).indexOf(true)];
        assert.ok(opener, 'someone is asked to bid');
        const options = (await offered(opener.page)).options;
        assert.ok(options.includes('option-pass') && options.includes('option-7-no-trump') && options.length === 16,
          `the auction's options are buttons, pass to 7 no trump (${options.join(' ')})`);
        await saveAndCheckScreenshot(env.browser, opener.page, env.artifacts, 'table-external-auction');
        await layoutEverywhere(env, opener, 'auction');

        let shotDiscard = false, shotPlay = false, pausedOnce = false;
        const { moves } = await playToEnd(people, async (p, i) => {
          if (!shotDiscard && await p.page.getByTestId('submit-choice').count()) {
            shotDiscard = true;
            // The declarer holds the kitty too: eighteen cards, six to choose.
            assert.equal((await p.handCards()).length, 18, 'the declarer holds twelve cards and the kitty');
            assert.match(await p.page.getByTestId('prompt-text').textContent(), /discard 6 cards/);
            await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-external-discard');
          }
          if (!shotPlay && await p.page.locator('[data-testid="stacks"] [data-card]').count() >= 6) {
            shotPlay = true;
            const contract = await p.page.getByTestId('info-contract').getAttribute('data-value');
            assert.match(contract, /^7 no trump/, `the contract info line (${contract})`);
            await saveAndCheckScreenshot(env.browser, p.page, env.artifacts, 'table-external');
            await layoutEverywhere(env, p, 'trick');
          }
          if (shotPlay && !pausedOnce) {
            pausedOnce = true;
            engine = await pauseAndResume(env, p, engine, script);
            // The refusal already moved the page's error counter: wait for the move itself.
            const before = await p.seq();
            await externalMove(p, i);
            await p.waitSeqAtLeast(before + 1);
            return;
          }
          await externalMove(p, i);
        }, { label: KIND, maxMoves: 120 });
        env.log(`${KIND} over after ${moves} moves`);
        assert.ok(shotDiscard && shotPlay && pausedOnce, 'the discard, the tricks and the pause were seen');

        for (const p of people) await p.page.getByTestId('results').waitFor();
        const page = people[0].page;
        const scores = await page.locator('[data-testid^="result-"] strong').allTextContents();
        assert.equal(scores.length, 4, 'a score for every seat');
        assert.ok(scores.some((s) => Math.abs(Number(s)) >= 7), `a team reached ±7 (${scores.join(' ')})`);
        assert.match(await page.getByTestId('prompt-text').textContent(), /The game is over/);
        const played = await page.evaluate(() => [...document.querySelectorAll('[data-testid^="stack-played"]')].map((s) => Number(s.getAttribute('data-count'))));
        assert.deepEqual(played, [12, 12, 12, 12], 'every card of the hand was played onto its stack');
        assert.ok((await page.getByTestId('log').textContent()).includes('Game over'), 'the play log ends with the game');
        await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'table-external-results');

        // The replay viewer steps through the game with the same generic table.
        await page.getByTestId('watch-replay').click();
        const replay = page.locator('[data-testid="replay"][data-loaded="true"]');
        await replay.waitFor();
        await page.locator(`[data-testid="replay-table"] [data-testid="table"][data-external="true"]`).waitFor();
        const steps = Number(await replay.getAttribute('data-steps'));
        assert.ok(steps > moves, `a step per move and per call the server made itself (${steps} steps)`);
        const stacksAt = () => page.evaluate(() => [...document.querySelectorAll('[data-testid="replay-table"] [data-testid^="stack-played"]')].map((x) => Number(x.getAttribute('data-count'))));
        await page.keyboard.press('End');
        await page.locator(`[data-testid="replay"][data-step="${steps - 1}"]`).waitFor();
        assert.deepEqual(await stacksAt(), [12, 12, 12, 12], 'the last step: every card played');
        assert.ok((await page.getByTestId('replay-events').textContent()).includes('Game over'), 'the last step ends the game');
        await page.keyboard.press('Home');
        await page.locator('[data-testid="replay"][data-step="0"]').waitFor();
        assert.deepEqual(await stacksAt(), [0, 0, 0, 0], 'the first step: nothing played yet');
        for (const p of people) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
      } finally {
        for (const p of people) await p.close();
        await server.stop();
        await engine.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  },
];
