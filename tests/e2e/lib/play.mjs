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
export async function bigTwoMove(player, i) {
  // Buttons are briefly disabled while the previous move's reply is in flight.
  await player.page.waitForFunction(() => ['pass', 'hint'].some((t) => {
    const el = document.querySelector(`[data-testid="${t}"]`);
    return el && !el.disabled;
  }), null, { timeout: 5000 }).catch(() => {});
  const canPass = await player.isEnabled('pass');
  const canHint = await player.isEnabled('hint');
  if (canHint && (!canPass || i % 3 !== 2)) {
    await player.page.getByTestId('hint').click();
    const play = player.page.locator('[data-testid="play"][data-legal="true"]');
    await play.waitFor({ timeout: 5000 });
    await play.click();
  } else if (canPass) {
    await player.page.getByTestId('pass').click();
  } else {
    throw new Error(`${player.name}: it is my turn but neither a play nor a pass is offered`);
  }
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
