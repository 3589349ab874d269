#!/usr/bin/env node
// A Parlor bot on @parlor/client: it connects, opens a table (seating server bots at the
// other seats and starting it) or asks quick play for one, then plays a random legal move
// from its prompt whenever it is its turn, until the game is over.
//
//   npm run build            # in client-ts: dist/, which `@parlor/client` resolves to
//   node examples/bot.mjs --url ws://127.0.0.1:8080/ws --kind agram --seats 3
//   node examples/bot.mjs --url ws://127.0.0.1:8080/ws --kind bigtwo --seats 2 --quick-play
//
// Node 22 and later have a WebSocket; on Node 20 run `node --experimental-websocket ...`.
// Exit status 0 once the game is over, 1 on a failure or after --timeout seconds.

import { ParlorClient, ServerError } from '@parlor/client';

const opts = { url: 'ws://127.0.0.1:8080/ws', kind: 'agram', seats: 2, name: 'example-bot', quickPlay: false, timeout: 120 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const next = () => process.argv[++i];
  if (a === '--url') opts.url = next();
  else if (a === '--kind') opts.kind = next();
  else if (a === '--seats') opts.seats = Number(next());
  else if (a === '--name') opts.name = next();
  else if (a === '--quick-play') opts.quickPlay = true;
  else if (a === '--timeout') opts.timeout = Number(next());
  else {
    console.error(`unknown argument ${a}`);
    process.exit(2);
  }
}

const client = new ParlorClient({ url: opts.url, name: opts.name });
const timer = setTimeout(() => fail(new Error(`no end of the game within ${opts.timeout} s`)), opts.timeout * 1000);

function fail(err) {
  console.error(`bot: ${err instanceof ServerError ? `${err.code}: ${err.message}` : err.message}`);
  process.exit(1);
}

let room = null; // the table we play at, once known
let seat = null;
let latest = null; // the newest state push of that table
let acted = -1; // the seq of the last state we moved on
let moves = 0;
let over = false;

client.on('status', (status, d) => {
  if (status === 'reconnecting') console.log(`bot: connection lost (${d.reason}); again in ${d.retryInMs} ms`);
});
// After a reconnect the client says hello with its token: the server resumes the same player
// and pushes the table's room and state again, so play simply goes on.
client.on('welcome', (w) => console.log(`bot: ${w.resumed ? 'resumed' : 'connected'} as ${w.player}`));

// A random legal move: one of `legal`, or `count` items of `choose.from` when the set is too
// large to list (a discard of any 6 of 18 cards, say).
function pick(prompt) {
  if (prompt.legal?.length) return prompt.legal[Math.floor(Math.random() * prompt.legal.length)];
  if (prompt.choose) {
    const { action, field, count, from } = prompt.choose;
    const pool = [...from].sort(() => Math.random() - 0.5);
    return { action, [field]: pool.slice(0, count) };
  }
  return null;
}

async function act() {
  const s = latest;
  if (!s || s.room !== room || !s.prompt || s.seq <= acted) return;
  acted = s.seq;
  const move = pick(s.prompt);
  if (!move) return;
  moves += 1;
  try {
    await client.request({ type: 'move', room, move, seq: s.seq });
  } catch (err) {
    // The table moved on meanwhile (a turn clock, say): the newer state push settles it.
    // After the end, the reply to the last move may be lost with the closed connection.
    if (over || (err instanceof ServerError && err.code === 'stale_state')) return;
    fail(err);
  }
}

client.onPush('state', (s) => {
  if (latest && s.room === latest.room && s.seq < latest.seq) return; // an older push raced a newer one
  latest = s;
  void act();
});
client.onPush('game_over', (p) => {
  if (p.room !== room) return;
  over = true;
  const { scores = [], winners = [] } = p.result;
  const verdict = winners.includes(seat) ? 'won' : 'lost';
  console.log(`bot: game over after ${moves} moves of ours: scores ${JSON.stringify(scores)}, winners ${JSON.stringify(winners)}; seat ${seat} ${verdict}`);
  clearTimeout(timer);
  client.close();
});

try {
  const hello = await client.start();
  if (opts.quickPlay) {
    // Seated (after the server's wait, with bots in the empty seats) by a quick_play push.
    const seated = new Promise((resolve, reject) => {
      client.onPush('quick_play', (q) => {
        if (q.status === 'seated') resolve(q);
        else if (q.status === 'failed') reject(new ServerError(q.code, q.message));
      });
    });
    const wait = await client.request({ type: 'quick_play', kind: opts.kind, seats: opts.seats });
    console.log(`bot: waiting for a ${opts.kind} table (position ${wait.position}, at most ${Math.round(wait.estimate_ms / 1000)} s)`);
    const q = await seated;
    room = q.room;
    seat = q.seat;
  } else {
    const created = await client.request({ type: 'create_room', kind: opts.kind, seats: opts.seats });
    room = created.room;
    seat = 0;
    for (let other = 1; other < opts.seats; other++) {
      await client.request({ type: 'add_bot', room, seat: other, strategy: 'random' });
    }
    await client.request({ type: 'start', room });
  }
  console.log(`bot: ${hello.player} plays ${opts.kind} in room ${room} at seat ${seat}`);
  void act(); // a state that came before we knew the room
} catch (err) {
  fail(err);
}
