// Drives a game to its end through the UI: find the page whose prompt says
// "your turn", let a strategy click what the UI enables, wait for the new state
// everywhere, repeat.

export async function playToEnd(players, act, { maxMoves = 600, label = 'game', onMove = null, stopAfter = Infinity } = {}) {
  let seq = Math.max(...(await Promise.all(players.map((p) => p.seq()))));
  let moves = 0;
  for (;;) {
    // Every page must have seen the latest state before anyone acts on it.
    await Promise.all(players.map((p) => p.waitSeqAtLeast(seq)));
    const turns = await Promise.all(players.map((p) => p.myTurn()));
    const actor = players[turns.indexOf(true)];
    if (!actor) {
      if (await allFinished(players)) return { moves, seq };
      await players[0].page.waitForTimeout(100);
      const newest = Math.max(...(await Promise.all(players.map((p) => p.seq()))));
      if (newest > seq) seq = newest;
      else if (!(await anyTurnSoon(players))) throw new Error(`${label}: nobody is to act at seq ${seq} and the game is not over`);
      continue;
    }
    if (moves >= maxMoves) throw new Error(`${label}: still going after ${maxMoves} moves`);
    const serial = await actor.errorSerial();
    await act(actor, moves);
    try {
      // Either a new state or a new refusal (the refusal counter moved).
      await actor.page.waitForFunction(([s, e]) => {
        const seqNow = Number(document.querySelector('[data-testid="room"]')?.getAttribute('data-seq') ?? -1);
        const serialNow = Number(document.querySelector('[data-testid="move-error"]')?.getAttribute('data-serial') ?? 0);
        return seqNow > s || serialNow > e;
      }, [seq, serial], { timeout: 10000 });
    } catch (err) {
      throw new Error(`${label}: move ${moves + 1} by ${actor.name} had no effect: ${err.message}`);
    }
    const after = await actor.seq();
    if (after <= seq) throw new Error(`${label}: move ${moves + 1} by ${actor.name} was refused: ${await actor.moveError()}`);
    seq = after;
    moves++;
    if (onMove) await onMove(moves, actor);
    if (moves >= stopAfter) {
      await Promise.all(players.map((p) => p.waitSeqAtLeast(seq)));
      return { moves, seq };
    }
  }
}

async function allFinished(players) {
  const states = await Promise.all(players.map((p) => p.status()));
  return states.every((s) => s === 'finished');
}

// Pushes may still be in flight: give them a moment before declaring a stall.
async function anyTurnSoon(players) {
  for (let i = 0; i < 30; i++) {
    await players[0].page.waitForTimeout(100);
    const turns = await Promise.all(players.map((p) => p.myTurn()));
    if (turns.includes(true)) return true;
    if (await allFinished(players)) return true;
  }
  return false;
}

// Big Two: mostly play the next legal combination ("Hint" selects it), pass every third turn when allowed.
// What is enabled is read again on every attempt: a push may re-render the controls between
// reading them and clicking (then the click times out quickly and the choice is made again).
export async function bigTwoMove(player, i) {
  const page = player.page;
  const seq0 = await player.seq();
  const serial0 = await player.errorSerial();
  let lastErr = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    // A click reported as failed may still have landed (the whole view re-renders on every
    // change, so Playwright can see its target detach mid-click): never move twice.
    if (attempt > 0 && ((await player.seq()) > seq0 || (await player.errorSerial()) > serial0)) return;
    // Buttons are briefly disabled while the previous move's reply is in flight.
    await page.waitForFunction(() => ['pass', 'hint'].some((t) => {
      const el = document.querySelector(`[data-testid="${t}"]`);
      return el && !el.disabled;
    }), null, { timeout: 5000 }).catch(() => {});
    if (!(await player.myTurn())) return; // the table moved on (a timer, say): nothing to do
    const canPass = await player.isEnabled('pass');
    const canHint = await player.isEnabled('hint');
    try {
      if (canHint && (!canPass || i % 3 !== 2)) {
        await page.getByTestId('hint').click({ timeout: 2000 });
        const play = page.locator('[data-testid="play"][data-legal="true"]');
        await play.waitFor({ timeout: 2000 });
        await play.click({ timeout: 2000 });
      } else if (canPass) {
        await page.getByTestId('pass').click({ timeout: 2000 });
      } else {
        throw new Error(`${player.name}: it is my turn but neither a play nor a pass is offered`);
      }
      return;
    } catch (err) {
      lastErr = err;
      if (process.env.PARLOR_E2E_DEBUG) console.error(`# ${player.name}: retrying a Big Two move: ${String(err.message).split('\n')[0]}`);
      await page.waitForTimeout(300);
    }
  }
  throw lastErr;
}

// Trick-taking games: discard when asked, else play the first card the UI enables,
// else press the first enabled action button (bid, pass, declare, look, deal).
export async function trickMove(player) {
  const page = player.page;
  await page.waitForFunction(() => document.querySelector(
    '[data-testid="hand"] button[data-card]:not([disabled]), [data-testid="prompt"] .prompt-controls button:not([disabled])'),
  null, { timeout: 5000 }).catch(() => {});
  if (await page.getByTestId('discard').count()) {
    for (;;) {
      if (await player.isEnabled('discard')) break;
      const cards = await page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] button[data-card]:not([disabled]):not(.selected)')].map((e) => e.getAttribute('data-card')));
      if (!cards.length) throw new Error(`${player.name}: cannot complete the discard`);
      await player.clickCard(cards[0]);
      // Wait for the re-render before looking again (a second click would deselect).
      await page.locator(`[data-testid="hand"] button[data-card="${cards[0]}"].selected`).waitFor();
    }
    await page.getByTestId('discard').click();
    return;
  }
  const cards = await player.enabledHandCards();
  if (cards.length) {
    await player.clickCard(cards[0]);
    return;
  }
  const button = page.locator('[data-testid="prompt"] .prompt-controls button:not([disabled])').first();
  if (!(await button.count())) throw new Error(`${player.name}: my turn, but nothing is enabled`);
  await button.click();
}

// Gem Merchants: choose a noble or give tokens back when asked; else buy the card worth
// most (any affordable one: bonuses make the next ones cheaper); else take three gems of
// the colours this merchant holds fewest of (two of one colour, or fewer colours, when
// that is all the bank allows); else reserve a card; else pass. All by clicking what the
// UI enables. Returns what it did.
export async function gemMove(player) {
  const page = player.page;
  await page.waitForFunction(() => document.querySelector(
    '[data-testid="prompt"] .prompt-controls button:not([disabled]), [data-testid^="buy-"]:not([disabled]), [data-testid^="noble-choose-"]:not([disabled]), [data-testid^="bank-"]:not([disabled])'),
  null, { timeout: 5000 }).catch(() => {});
  const click = (testid) => page.getByTestId(testid).click({ timeout: 3000 });
  const first = async (selector) => page.evaluate((s) => document.querySelector(s)?.getAttribute('data-testid') ?? null, selector);

  const noble = await first('[data-testid^="noble-choose-"]:not([disabled])');
  if (noble) { await click(noble); return 'noble'; }
  const giveBack = await first('[data-testid^="return-"]:not([disabled])');
  if (giveBack) { await click(giveBack); return 'return'; }

  const buys = await page.evaluate(() => [...document.querySelectorAll('[data-testid^="buy-"]:not([disabled])')].map((b) => ({
    testid: b.getAttribute('data-testid'),
    points: Number(b.closest('.dev')?.querySelector('.points')?.textContent || 0),
  })));
  if (buys.length) {
    const best = buys.reduce((a, b) => (b.points > a.points ? b : a));
    await click(best.testid);
    return 'buy';
  }

  const bank = await page.evaluate(() => {
    const me = document.querySelector('[data-testid="room"]')?.getAttribute('data-seat');
    const purse = document.querySelector(`[data-testid="seat-${me}"] .purse`);
    return ['white', 'blue', 'green', 'red', 'black'].map((c) => ({
      color: c,
      enabled: !document.querySelector(`[data-testid="bank-${c}"]`)?.disabled,
      inBank: Number(document.querySelector(`[data-testid="bank-${c}"] .gem`)?.textContent || 0),
      held: Number(purse?.querySelector(`.gem-${c}`)?.textContent || 0),
    }));
  });
  const open = bank.filter((g) => g.enabled).sort((a, b) => a.held - b.held);
  const tryTake = async (colors) => {
    if (await player.isEnabled('clear-gems')) await click('clear-gems');
    for (const c of colors) {
      const before = await page.evaluate((t) => document.querySelector(`[data-testid="${t}"] .pick-count`)?.textContent ?? '', `bank-${c}`);
      await click(`bank-${c}`);
      await page.waitForFunction(([t, b]) => (document.querySelector(`[data-testid="${t}"] .pick-count`)?.textContent ?? '') !== b, [`bank-${c}`, before], { timeout: 3000 });
    }
    if (await player.isEnabled('take')) { await click('take'); return true; }
    return false;
  };
  if (open.length >= 3 && await tryTake(open.slice(0, 3).map((g) => g.color))) return 'take';
  const double = open.find((g) => g.inBank >= 4);
  if (double && await tryTake([double.color, double.color])) return 'take';
  if (open.length && open.length < 3 && await tryTake(open.map((g) => g.color))) return 'take';
  if (await player.isEnabled('clear-gems')) await click('clear-gems');

  const reserve = await first('[data-testid^="reserve-"]:not([disabled])');
  if (reserve) { await click(reserve); return 'reserve'; }
  if (await player.isEnabled('pass')) { await click('pass'); return 'pass'; }
  throw new Error(`${player.name}: my turn at Gem Merchants, but nothing is enabled`);
}
