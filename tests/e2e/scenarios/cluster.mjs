// Browser failover in cluster mode (issue #16: "a browser player and bots play across nodes
// through one address"). The scenario starts a cluster of its own with deploy/cluster/up.sh
// (three nodes, PostgreSQL, Redis, HAProxy; a 1.5 s lease), and one browser player, gina,
// creates a seeded Big Two room through the proxy, fills it with three hosted bots, starts and
// plays by clicking; hank watches from a second browser context. Then, twice, the node that
// owns the room is SIGKILLed:
//
//  1. the room's owner is also the node holding gina's connection (a room is created on its
//     creator's node): her page says "reconnecting", reconnects through the proxy, resumes
//     with its token and gets her seat, hand and the room's state from the new owner;
//  2. the room's new owner is not the node holding gina's connection (if the takeover put
//     both on one node, HAProxy is told to keep new connections off that node and gina's
//     connection is cut at a TCP proxy in front of HAProxy, so that it comes back elsewhere):
//     her connection stays up, the page never says "reconnecting", and the state comes back
//     from the room's next owner; a move clicked while the room is between owners is played.
//
// Then she plays to game_over by clicking. Checked: no page errors, no reload, the hand after
// each failover is the hand before minus the cards she played in between, the page showed
// "reconnecting" in case 1 and not in case 2, no frame gina's page received mentioned a card
// still in another seat's hand (the game's reveal gives every hand and every move), and hank
// gets his spectator place back after each takeover (his table follows the game to its end).
// The deal is seeded (16 by default, PARLOR_SEED chooses another) and the seed printed.

import fs from 'node:fs';
import path from 'node:path';
import { Player } from '../lib/player.mjs';
import { startProxy } from '../lib/proxy.mjs';
import { startCluster } from '../lib/cluster.mjs';
import { bigTwoMove, playToEnd } from '../lib/play.mjs';
import { saveAndCheckScreenshot } from '../lib/screenshot.mjs';
import { assert, sameCards } from '../lib/assert.mjs';

const LEASE_MS = 1500;
// A room is playable again about a lease after its node died (plus a pass of a third of one);
// generous, for a loaded CI machine.
const TAKEOVER_MS = 20000;

// Records, in the page, every connection status the badge shows (it is redrawn on every render).
async function watchStatuses(page) {
  await page.evaluate(() => {
    window.__statuses = [];
    const note = () => {
      const s = document.querySelector('[data-testid="conn-status"]')?.getAttribute('data-status') ?? null;
      if (s && window.__statuses[window.__statuses.length - 1] !== s) window.__statuses.push(s);
    };
    note();
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
}
const statuses = (page) => page.evaluate(() => window.__statuses.splice(0));

// What the table shows, read at one instant: its seq and whether it prompts this player.
const turnShown = (page) => page.evaluate(() => ({
  seq: Number(document.querySelector('[data-testid="room"]')?.getAttribute('data-seq') ?? -1),
  mine: document.querySelector('[data-testid="prompt"]')?.getAttribute('data-my-turn') === 'true',
}));

// The last state pushes of a room as "seq→to_act", oldest first, for failure messages.
function stateTrail(frames, room, last = 8) {
  const trail = frames.filter((f) => f.room === room && f.type === 'state').slice(-last);
  return `last states received: ${trail.map((f) => `${f.seq}→[${f.to_act ?? ''}]`).join(' ')}`;
}

// Every string in a JSON value.
function strings(v, out = []) {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

// The cards in a Big Two move ({"cards": [...]}, or a pass).
const moveCards = (move) => (Array.isArray(move?.cards) ? move.cards : []);

// The four dealt hands from the finished game's reveal (its initial state).
function dealtHands(initial) {
  const hands = initial?.hands ?? initial?.state?.hands;
  if (Array.isArray(hands) && hands.length === 4 && hands.every(Array.isArray)) return hands;
  throw new Error(`no four hands in the reveal's initial state: ${JSON.stringify(initial).slice(0, 400)}`);
}

export const scenarios = [
  {
    name: 'cluster: a browser player and three bots across nodes through one address; the room\'s node is SIGKILLed twice (with the player\'s connection, then without), seat, hand and spectator come back',
    timeout: 240,
    async run(env) {
      // A fixed deal by default, as the suite's other scenarios (the game is long enough for
      // both failovers); PARLOR_SEED chooses another.
      const seed = Number(process.env.PARLOR_SEED ?? 16);
      env.log(`PARLOR_SEED=${seed} (the deal)`);
      // Logs of an earlier failed run would mislead.
      fs.rmSync(path.join(env.artifacts, 'cluster-logs'), { recursive: true, force: true });
      const t0 = Date.now();
      const cluster = await startCluster({
        binary: env.binary,
        // No drain on SIGTERM: down.sh at the end need not wait for it.
        settings: { PARLOR_LEASE_MS: String(LEASE_MS), PARLOR_DEV: '1', PARLOR_BOT_DELAY_MS: '50', PARLOR_DRAIN_MS: '0' },
      });
      env.cleanups.push(() => cluster.down());
      env.log(`cluster on ${cluster.url} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${cluster.info.nodes.map((n) => `${n.name}:${n.port}`).join(' ')} (${cluster.dir})`);
      // gina's way to the cluster goes through a TCP proxy of the test's own, so that her
      // connection can be cut (only needed to steer it in case 2).
      const tcp = await startProxy(cluster.port);
      env.cleanups.push(() => tcp.close());
      let gina = null;
      let hank = null;
      let ok = false;
      let roomId = null;
      try {
        gina = await person(env.browser, tcp.url, 'gina');
        const frames = gina.frames;
        const page = gina.page;
        const room = await gina.createRoom('bigtwo', { seats: 4, seed });
        roomId = room;
        for (const seat of [1, 2, 3]) {
          await page.getByTestId(`add-bot-${seat}-medium`).click();
          await page.locator(`[data-testid="seat-row-${seat}"]`).getByText('bot', { exact: true }).waitFor();
        }
        await page.getByTestId('start').click();
        await page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="hand"] [data-card]').length === 13);
        const mySeat = await gina.seat();
        env.log(`bigtwo room ${room}, gina at seat ${mySeat}`);
        const ginaId = welcomedAs(gina);

        // hank watches from the room's link, straight through HAProxy, on a node other than the
        // room's: his connection outlives the first failover (one that dies with the room's
        // node comes back and watches again by itself, as gina's seat does).
        const owner0 = await cluster.ownerOf(room);
        assert.ok(owner0.node, 'the room is in the directory');
        await cluster.keepConnectionsOff(owner0.node);
        hank = await person(env.browser, cluster.url, 'hank', `#/room/${room}`);
        await cluster.letConnectionsOn(owner0.node);
        const hankId = welcomedAs(hank);
        await hank.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor();
        await hank.page.locator('[data-testid="table"][data-game="bigtwo"]').waitFor();
        await page.locator('.room-heading', { hasText: '1 watching' }).waitFor();
        // What went wrong for hank, reported at the end (gina's part runs to its end regardless).
        const spectatorProblems = [];
        // hank's table follows gina's to `seq` (his place was given back). Once he has lost
        // it, the later checks wait less.
        const spectatorFollows = async (label, seq) => {
          const timeout = spectatorProblems.length ? 3000 : TAKEOVER_MS;
          try {
            await hank.page.locator('[data-testid="room"][data-seat="spectator"]').waitFor({ timeout });
            await hank.waitSeqAtLeast(seq, timeout);
          } catch (err) {
            const seen = await hank.seq();
            const edge = await cluster.edgeOf(hankId).catch(() => '?');
            spectatorProblems.push(`${label}: the spectator's table did not reach seq ${seq} (it shows seq ${seen}; his connection is on ${edge}; status ${await hank.page.getByTestId('conn-status').getAttribute('data-status')}): ${String(err.message).split('\n')[0]}`);
          }
        };
        await watchStatuses(page);
        await page.evaluate(() => { window.__sameDocument = true; });

        // A few moves by clicking (the bots answer), then wait for gina's turn: the table is still.
        await playToEnd([gina], bigTwoMove, { label: 'big two before the first failover', stopAfter: 3 });
        // gina's turn, settled: the table shows the last state received, and that state has
        // her to act. (The table renders a push on the next animation frame, so a read can
        // come before it; a prompt on a state that does not have her to act is a client bug.)
        const waitMyTurn = async () => {
          const deadline = Date.now() + 15000;
          for (;;) {
            const shown = await turnShown(page);
            const states = frames.filter((f) => f.room === room && f.type === 'state');
            const pushed = states.findLast((f) => f.seq === shown.seq);
            assert.ok(!shown.mine || !pushed || pushed.to_act?.includes(mySeat),
              `the table prompts gina at a state that does not have her to act (it shows ${JSON.stringify(shown)}; ${stateTrail(frames, room)})`);
            const last = states.at(-1);
            if (shown.mine && last?.seq === shown.seq) return shown;
            if (Date.now() > deadline) throw new Error(`gina's turn did not come (the table shows ${JSON.stringify(shown)}; ${stateTrail(frames, room)})`);
            await page.waitForTimeout(50);
          }
        };
        await waitMyTurn();

        // ---- case 1: the room's owner holds gina's connection --------------------------------
        const edge0 = await cluster.edgeOf(ginaId);
        const hankEdge0 = await cluster.edgeOf(hankId);
        assert.notEqual(hankEdge0, owner0.node, 'hank\'s connection is on another node than the room');
        env.log(`room on ${owner0.node} (epoch ${owner0.epoch}); gina's connection on ${edge0}; hank's on ${hankEdge0}`);
        assert.equal(edge0, owner0.node, 'the room was created on the node that holds its creator\'s connection');
        // The premise of "nothing is played while the room moves": gina is to act.
        const still1 = await waitMyTurn();
        const before1 = { seq: still1.seq, hand: await gina.handCards() };
        await statuses(page);
        const framesBefore1 = frames.length;
        const k1 = Date.now();
        await cluster.kill(owner0.node);
        env.log(`SIGKILL ${owner0.node} at seq ${before1.seq}`);
        await page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor({ timeout: TAKEOVER_MS });
        const reconnectedMs = Date.now() - k1;
        const owner1 = await cluster.until(async () => { const o = await cluster.ownerOf(room); return o.node && o.node !== owner0.node && o; }, { timeoutMs: TAKEOVER_MS, what: 'a new owner of the room' });
        // The new owner's full state push: the table is back, gina's turn again. Her page may
        // have reconnected before the room had an owner again; its table shows the state from
        // before the kill until the push comes (the owner invites her once it has loaded the
        // room), so the push itself is what is waited for.
        const pushedSinceKill = () => frames.slice(framesBefore1).filter((f) => f.room === room).map((f) => f.type);
        await cluster.until(() => { const types = pushedSinceKill(); return types.includes('room') && types.includes('state'); },
          { timeoutMs: TAKEOVER_MS, what: 'the room and its state pushed to gina by the new owner' }).catch(() => {});
        await page.locator(`[data-testid="room"][data-seat="${mySeat}"]`).waitFor({ timeout: TAKEOVER_MS });
        const back1 = await waitMyTurn();
        const backMs = Date.now() - k1;
        const seen1 = await statuses(page);
        env.log(`case 1: statuses ${seen1.join(' → ')}; connected again after ${reconnectedMs} ms, the room back from ${owner1.node} (epoch ${owner1.epoch}) after ${backMs} ms`);
        assert.ok(seen1.includes('reconnecting'), `the page said "reconnecting" (statuses ${seen1})`);
        assert.equal(seen1[seen1.length - 1], 'connected', 'and is connected again');
        assert.ok(owner1.epoch > owner0.epoch, 'the takeover raised the epoch');
        assert.equal(back1.seq, before1.seq, `the same state (nothing was played while the room moved: it was gina's turn; ${stateTrail(frames, room)})`);
        assert.ok(sameCards(await gina.handCards(), before1.hand), 'the same hand');
        assert.equal(await gina.moveError(), '', 'no error on the table');
        const pushed1 = pushedSinceKill();
        assert.ok(pushed1.includes('room') && pushed1.includes('state'), `the new owner pushed the room and its full state (frames since the kill: ${pushed1})`);

        // Play on by clicking; hank's table follows (his place was given back).
        await playToEnd([gina], bigTwoMove, { label: 'big two between the failovers', stopAfter: 2 });
        await spectatorFollows('case 1 (the first moves after the takeover)', await gina.seq());
        if (!(await page.locator('.room-heading', { hasText: '1 watching' }).isVisible())) {
          spectatorProblems.push(`case 1: gina's table no longer says "1 watching" after the takeover (it says "${(await page.locator('.room-heading').textContent())?.trim()}")`);
        }
        await waitMyTurn();

        // ---- case 2: the room's owner is not the node of gina's connection -------------------
        let edge1 = await cluster.edgeOf(ginaId);
        if (edge1 === owner1.node) {
          // Steer her connection off the owner: HAProxy sends new connections elsewhere, and
          // her TCP connection is cut (a plain reconnect, no failover).
          await cluster.keepConnectionsOff(owner1.node);
          const seq = await gina.seq();
          tcp.drop();
          await page.locator('[data-testid="conn-status"][data-status="reconnecting"]').waitFor({ timeout: 8000 }).catch(() => {});
          await page.locator('[data-testid="conn-status"][data-status="connected"]').waitFor({ timeout: 15000 });
          await gina.waitSeqAtLeast(seq);
          edge1 = await cluster.until(async () => { const e = await cluster.edgeOf(ginaId); return e !== owner1.node && e; }, { what: 'gina on another node' });
          env.log(`case 2: gina's connection moved from ${owner1.node} to ${edge1}`);
          await waitMyTurn();
        }
        env.log(`room on ${owner1.node}; gina's connection on ${edge1}`);
        const before2 = { seq: (await waitMyTurn()).seq, hand: await gina.handCards() };
        await statuses(page);
        const k2 = Date.now();
        await cluster.kill(owner1.node);
        env.log(`SIGKILL ${owner1.node} at seq ${before2.seq}`);
        // A move clicked while the room is between owners: it must be played once the room is
        // served again (or be refused with a reason that goes away): never silently lost.
        await page.waitForTimeout(200);
        const sent = await clickMove(gina);
        await gina.waitSeqAtLeast(before2.seq + 1, TAKEOVER_MS).catch(async (err) => {
          throw new Error(`the move clicked during the takeover (${sent.join(' ') || 'pass'}) was not played: error shown "${await gina.moveError()}"; ${err.message}`);
        });
        const backMs2 = Date.now() - k2;
        assert.ok(sameCards(await gina.handCards(), before2.hand.filter((c) => !sent.includes(c))), 'the hand is the one before, minus the cards of the move');
        const owner2 = await cluster.ownerOf(room);
        const seen2 = await statuses(page);
        env.log(`case 2: statuses ${seen2.join(' → ') || '(no change)'}; the move played, room back from ${owner2.node} (epoch ${owner2.epoch}) after ${backMs2} ms`);
        assert.ok(!seen2.includes('reconnecting'), `gina's connection stayed up (statuses ${seen2})`);
        assert.notEqual(owner2.node, owner1.node, 'another node owns the room');
        assert.ok(owner2.epoch > owner1.epoch, 'the takeover raised the epoch');
        await page.waitForFunction(() => (document.querySelector('[data-testid="move-error"]')?.textContent ?? '').trim() === '', null, { timeout: 10000 })
          .catch(async () => { throw new Error(`an error stays on the table: "${await gina.moveError()}"`); });
        await spectatorFollows('case 2 (after the takeover)', before2.seq + 1);

        // To the end by clicking.
        const { moves: lastMoves } = await playToEnd([gina], bigTwoMove, { label: 'big two after the failovers' });
        await page.getByTestId('results').waitFor();
        env.log(`game over after ${lastMoves} more moves by gina; ${frames.length} frames received`);
        await saveAndCheckScreenshot(env.browser, page, env.artifacts, 'cluster-bigtwo-results');
        try {
          await hank.page.getByTestId('results').waitFor({ timeout: 10000 });
        } catch (err) {
          spectatorProblems.push(`the spectator did not see the results: ${String(err.message).split('\n')[0]}`);
        }

        // The whole game, revealed now that it is over: every hand, every move.
        const res = await fetch(`${cluster.url}/api/games/${encodeURIComponent(room)}/replay`);
        assert.equal(res.status, 200, 'the finished game\'s replay is served through the proxy');
        const replay = await res.json();
        const hands = dealtHands(replay.reveal?.initial);
        const moves = replay.reveal?.moves ?? [];
        assert.equal(new Set(hands.flat()).size, 52, 'the reveal deals 52 distinct cards');
        assert.ok(sameCards(hands[mySeat], await firstHand(frames)), 'the reveal\'s hand of gina\'s seat is the one she was dealt');
        // The reveal counts moves as the pushes do: the deal's push is the seq before the first move.
        const dealSeq = frames.find((f) => f.type === 'state' && f.view?.hand?.length === 13)?.seq;
        assert.equal(moves[0]?.seq, dealSeq + 1, 'the first move follows the deal\'s state push');
        // Her hand after each failover: the hand before, minus what she played in between.
        const playedBy = (seat, from, to) => moves.filter((m) => m.seat === seat && m.seq > from && m.seq <= to).flatMap((m) => moveCards(m.move));
        const at2 = before2.seq;
        assert.ok(sameCards(before2.hand, before1.hand.filter((c) => !playedBy(mySeat, before1.seq, at2).includes(c))),
          'the hand before the second failover is the one before the first, minus the cards gina played');
        // No frame mentioned a card still in another seat's hand at its seq (game_over reveals
        // them all): gina's frames, and hank's (every hand is another seat's for him).
        assert.deepEqual(leaks(frames, hands, moves, mySeat), [], 'no frame gina received showed another seat\'s cards');
        assert.deepEqual(leaks(hank.frames, hands, moves, null), [], 'no frame hank received showed a hand');
        assert.equal(await page.evaluate(() => window.__sameDocument === true), true, 'the page was never reloaded');
        assert.deepEqual(gina.errors, [], 'gina: no page errors');
        assert.deepEqual(hank.errors, [], 'hank: no page errors');
        assert.deepEqual(spectatorProblems, [], 'the spectator got his place back after every takeover');
        env.log(`whole scenario ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        ok = true;
      } finally {
        await hank?.close();
        await gina?.close();
        await tcp.close();
        const logs = ok ? null : path.join(env.artifacts, 'cluster-logs');
        await cluster.down({ keepLogsIn: logs });
        if (logs) {
          env.log(`the cluster's logs are in ${logs}`);
          // CI keeps only this output: the room's lines from every node, in time order.
          for (const line of roomLogLines(logs, roomId).slice(-60)) env.log(`  ${line}`);
        }
      }
    },
  },
];

// Every line of the nodes' logs that names `room`, each prefixed with its file, sorted by the
// timestamp the line starts with.
function roomLogLines(dir, room) {
  if (!room || !fs.existsSync(dir)) return [];
  const lines = [];
  for (const file of fs.readdirSync(dir)) {
    const full = path.join(dir, file);
    if (!fs.statSync(full).isFile()) continue;
    for (const line of fs.readFileSync(full, 'utf8').split('\n')) {
      if (line.includes(room)) lines.push({ file, line });
    }
  }
  return lines.sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0)).map((l) => `${l.file}: ${l.line}`);
}

// A person at a browser (lib/player.mjs) whose every received frame is kept, parsed, from
// the page's first connection on (`frames`).
async function person(browser, baseUrl, name, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: baseUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const p = new Player(browser, context, page, name, baseUrl);
  p.frames = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    try { p.frames.push(JSON.parse(String(payload))); } catch { /* not JSON */ }
  }));
  await p.open(hash);
  return p;
}

// The player id the server welcomed a person as.
function welcomedAs(p) {
  const id = p.frames.find((f) => f.type === 'welcome')?.player;
  assert.ok(id, `${p.name} was welcomed`);
  return id;
}

// The frames that mention a card still in the hand of a seat other than `seat` at the frame's
// seq (a frame without seq: at the end of the game, when only unplayed cards are hidden).
function leaks(frames, hands, moves, seat) {
  const out = [];
  for (const f of frames) {
    if (f.type === 'game_over' || f.type === 'replay') continue;
    // The deal's end lays every hand left face up (deal_over's `hands`, the finished view):
    // from then on no card is hidden.
    if (f.events?.some((e) => e.type === 'deal_over') || f.view?.phase === 'finished') continue;
    const seq = typeof f.seq === 'number' ? f.seq : null;
    const gone = new Set(moves.filter((m) => seq === null || m.seq <= seq).flatMap((m) => moveCards(m.move)));
    const hidden = new Set(hands.flatMap((h, s) => (s === seat ? [] : h.filter((c) => !gone.has(c)))));
    const shown = strings(f).filter((x) => hidden.has(x));
    if (shown.length) out.push(`${f.type}${seq !== null ? ` seq ${seq}` : ''}: ${shown.join(' ')}`);
  }
  return out;
}

// The hand of gina's first state push of the game.
async function firstHand(frames) {
  const f = frames.find((x) => x.type === 'state' && Array.isArray(x.view?.hand) && x.view.hand.length === 13);
  return f ? f.view.hand : [];
}

// One Big Two move by clicking, as bigTwoMove does, without waiting for its effect; returns the
// cards chosen (none for a pass).
async function clickMove(player) {
  const page = player.page;
  if (await player.isEnabled('hint')) {
    await page.getByTestId('hint').click({ timeout: 3000 });
    const play = page.locator('[data-testid="play"][data-legal="true"]');
    await play.waitFor({ timeout: 3000 });
    const chosen = await page.evaluate(() => [...document.querySelectorAll('[data-testid="hand"] button[data-card].selected')].map((b) => b.getAttribute('data-card')));
    await play.click({ timeout: 3000 });
    return chosen;
  }
  await page.getByTestId('pass').click({ timeout: 3000 });
  return [];
}
