// Motion and sound at the table (client-web/src/motion.ts, sound.ts), in a two-seat Agram:
// a card the other player plays slides into the trick on this page (a CSS animation on the
// new card only: a re-render for a chat line moves nothing), not at all when the browser asks
// for reduced motion; a chime sounds when the turn comes, and muting (one button, remembered
// across a reload) silences it; the card that wins a trick glows once.

import { assert } from '../lib/assert.mjs';
import { players, startRoom, leaveAll } from '../lib/rooms.mjs';

const played = (page) => page.getByTestId('sound-toggle').getAttribute('data-played').then(Number);

// Plays the seat whose turn it is (the first card its page enables) and returns that page's player.
async function playOne(people) {
  for (;;) {
    for (const p of people) {
      if (await p.myTurn()) {
        const [card] = await p.enabledHandCards();
        if (card) {
          await p.clickCard(card);
          // Until the state push takes the card from the hand, the page still shows the turn as
          // its own: the next look must not pick this page again and click a card about to be
          // disabled.
          await p.page.locator(`[data-testid="hand"] button[data-card="${card}"]`).waitFor({ state: 'detached' });
          return { player: p, card };
        }
      }
    }
    await people[0].page.waitForTimeout(50);
  }
}

// Records every moving trick card the page draws from now on (each render draws anew): its
// card, whether it arrives or glows, and the animation the browser runs on it.
async function watchMotion(page) {
  await page.evaluate(() => {
    window.__motion = [];
    window.__motionObserver?.disconnect();
    window.__motionObserver = new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="trick"] .trick-card.arrive, [data-testid="trick"] .trick-card.won-now')) {
        if (el.__recorded) continue;
        el.__recorded = true;
        const card = el.querySelector('[data-card]');
        const moving = el.classList.contains('arrive') ? el : card;
        window.__motion.push({ card: card.getAttribute('data-card'), kind: el.classList.contains('arrive') ? 'arrive' : 'won', animation: getComputedStyle(moving).animationName });
      }
    });
    window.__motionObserver.observe(document.body, { childList: true, subtree: true });
  });
}
const motions = (page) => page.evaluate(() => window.__motion);

export const scenarios = [
  {
    name: 'motion and sound: a played card slides into the trick (never again, never with reduced motion); a chime on the turn; muting is remembered',
    timeout: 120,
    async run(env) {
      const people = await players(env, 2);
      const [alice, bob] = people;
      for (const p of people) {
        await p.page.evaluate(() => localStorage.removeItem('parlor.sound'));
        await p.page.reload();
        await p.page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor();
      }
      const before = { alice: await played(alice.page), bob: await played(bob.page) };
      await startRoom(env, 'agram', people, { seed: 21 });
      // Whoever leads hears the chime: the turn came to them.
      const leader = (await alice.myTurn()) ? alice : bob;
      await leader.page.waitForFunction((n) => Number(document.querySelector('[data-testid="sound-toggle"]').dataset.played) > n, before[leader.name]);

      // The lead, seen on the other page: the new card slides in.
      for (const p of people) await watchMotion(p.page);
      const { player: first, card } = await playOne(people);
      const other = first === alice ? bob : alice;
      await other.page.locator(`[data-testid="trick"] [data-card="${card}"]`).waitFor();
      // A push during the slide (the clock, the turn) draws the table again; the redrawn card
      // carries on the same slide (motion.ts), so it may be recorded more than once, always
      // arriving.
      const arrivals = (await motions(other.page)).filter((m) => m.card === card);
      assert.ok(arrivals.length >= 1 && arrivals.every((m) => m.kind === 'arrive' && m.animation === 'card-arrive'), `the card new to the trick slides in (${JSON.stringify(arrivals)})`);
      // Once in place it stays still: a chat push a moment later draws the table again.
      await other.page.waitForTimeout(900);
      await watchMotion(other.page);
      await first.page.getByTestId('chat-input').fill('nice lead');
      await first.page.getByTestId('chat-send').click();
      await other.page.getByTestId('chat-log').getByText('nice lead').waitFor();
      assert.deepEqual(await motions(other.page), [], 'a card already in the trick does not move again');

      // The answer completes the trick: its winning card glows once, on both pages.
      for (const p of people) await watchMotion(p.page);
      const { card: answer } = await playOne(people);
      for (const p of people) {
        await p.page.waitForFunction(() => window.__motion.some((m) => m.kind === 'won'));
        const glows = (await motions(p.page)).filter((m) => m.kind === 'won');
        assert.ok(glows.every((m) => m.animation === 'card-won'), `${p.name}: the trick's winning card glows (${JSON.stringify(glows)}; answer ${answer})`);
      }
      // With reduced motion asked for, the next lead is marked new but does not slide.
      for (const p of people) { await p.page.emulateMedia({ reducedMotion: 'reduce' }); await watchMotion(p.page); }
      const { player: leader2, card: lead2 } = await playOne(people);
      const watcher = leader2 === alice ? bob : alice;
      await watcher.page.waitForFunction((c) => window.__motion.some((m) => m.card === c), lead2);
      assert.ok((await motions(watcher.page)).filter((m) => m.card === lead2).every((m) => m.kind === 'arrive' && m.animation === 'none'), 'with reduced motion nothing slides');
      for (const p of people) await p.page.emulateMedia({ reducedMotion: 'no-preference' });

      // Muting: the button says so, the next turns are silent, and a reload keeps it muted.
      await alice.page.getByTestId('sound-toggle').click();
      await alice.page.locator('[data-testid="sound-toggle"][aria-pressed="false"]').waitFor();
      const mutedAt = await played(alice.page);
      for (let i = 0; i < 4; i++) await playOne(people);
      assert.equal(await played(alice.page), mutedAt, 'no sound while muted');
      await alice.page.reload();
      await alice.page.locator('[data-testid="sound-toggle"][aria-pressed="false"]').waitFor();
      await alice.page.getByTestId('sound-toggle').click();
      await alice.page.locator('[data-testid="sound-toggle"][aria-pressed="true"]').waitFor();
      for (const p of people) assert.deepEqual(p.errors, [], `${p.name}: no page errors`);
      await leaveAll(people);
    },
  },
];
