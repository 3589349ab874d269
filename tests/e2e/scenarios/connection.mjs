// Honest connection state: when a player's socket is down, the table says so at
// the top of the screen, controls that send are disabled, the turn clock does not
// count down as if nothing happened, and a move whose reply was lost with the
// connection is sent again once it is back instead of being dropped.

import { Player } from '../lib/player.mjs';
import { startProxy } from '../lib/proxy.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { assert } from '../lib/assert.mjs';
import { leaveAll, players } from '../lib/rooms.mjs';

// What frank's table lets him do right now, read in one go.
async function controls(page) {
  return page.evaluate(() => ({
    cards: [...document.querySelectorAll('[data-testid="hand"] button[data-card]')].map((b) => b.disabled),
    play: document.querySelector('[data-testid="play"]')?.disabled ?? null,
    pass: document.querySelector('[data-testid="pass"]')?.disabled ?? null,
    chat: document.querySelector('[data-testid="chat-send"]')?.disabled ?? null,
    leave: document.querySelector('[data-testid="leave"]')?.disabled ?? null,
    timer: document.querySelector('[data-testid="turn-timer"]')?.textContent ?? null,
  }));
}

export const scenarios = [
  {
    name: 'connection: offline the table says so, disables its controls and stops its clock; a lost move is sent again',
    timeout: 120,
    async run(env) {
      const proxy = await startProxy(env.server.port);
      env.cleanups.push(() => proxy.close());
      const [alice] = await players(env, 1);
      const frank = await Player.create(env.browser, proxy.url, 'frank');
      try {
        const room = await alice.createRoom('bigtwo', { seats: 2, seed: 4, turnSeconds: 300 });
        await frank.joinFromLobby(room);
        await alice.page.getByTestId('start').click();
        for (const p of [alice, frank]) await p.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
        // Alice moves until it is frank's turn.
        while (!(await frank.myTurn())) await playToEnd([alice, frank], bigTwoMove, { label: 'big two', stopAfter: 1 });
        const page = frank.page;
        const seq = await frank.seq();
        assert.match((await controls(page)).timer ?? '', /\d+:\d\d left/, 'the turn clock counts down while connected');

        // The network goes away.
        proxy.refuse(true);
        proxy.drop();
        const banner = page.getByTestId('offline-banner');
        await banner.waitFor({ timeout: 8000 });
        // Measured in the page: every render replaces the banner (its countdown changes).
        const box = await page.evaluate(() => {
          const r = document.querySelector('[data-testid="offline-banner"]')?.getBoundingClientRect();
          return r ? { y: r.top, height: r.height } : null;
        });
        assert.ok(box && box.y <= 1 && box.height >= 20, `the banner sits at the top of the screen (${JSON.stringify(box)})`);
        await page.getByTestId('prompt-offline').waitFor();
        const off = await controls(page);
        assert.ok(off.cards.length > 0 && off.cards.every(Boolean), 'every hand card is disabled');
        assert.equal(off.play, true, 'Play is disabled');
        assert.equal(off.pass, true, 'Pass is disabled');
        assert.equal(off.chat, true, 'chat Send is disabled');
        assert.equal(off.leave, true, 'Leave is disabled');
        assert.doesNotMatch(off.timer ?? '', /\d:\d\d/, `no countdown while offline (${off.timer})`);
        await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'connection-offline', { fullPage: false });

        proxy.refuse(false);
        await page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor({ timeout: 15000 });
        await banner.waitFor({ state: 'detached' });
        await page.waitForFunction(() => document.querySelector('[data-testid="hand"] button[data-card]:not([disabled])'));
        assert.match((await controls(page)).timer ?? '', /\d+:\d\d left/, 'the clock is back once connected');

        // A move that leaves the browser but never reaches the server, then the connection drops.
        await page.getByTestId('hint').click();
        const play = page.locator('[data-testid="play"][data-legal="true"]');
        await play.waitFor();
        const chosen = await page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] button[data-card].selected')].map((b) => b.getAttribute('data-card')));
        proxy.swallow(true);
        await play.click();
        await page.waitForTimeout(300);
        proxy.refuse(true);
        proxy.drop();
        proxy.swallow(false);
        await banner.waitFor({ timeout: 8000 });
        await page.waitForFunction(() => /sent again/.test(document.querySelector('[data-testid="move-error"]')?.textContent ?? ''));
        assert.equal(await frank.seq(), seq, 'nothing was played yet');
        proxy.refuse(false);
        // Once back, the move is sent again and played: it is not silently dropped.
        await frank.waitSeqAtLeast(seq + 1, 15000);
        const hand = await frank.handCards();
        assert.ok(chosen.length > 0 && chosen.every((c) => !hand.includes(c)), `the chosen cards ${chosen} left the hand`);
        await alice.waitSeqAtLeast(seq + 1);
        await page.waitForFunction(() => (document.querySelector('[data-testid="move-error"]')?.textContent ?? '').trim() === '');
        assert.deepEqual(frank.errors, [], 'no page errors');
        await leaveAll([alice, frank]);
      } finally {
        await frank.close();
      }
    },
  },
];
