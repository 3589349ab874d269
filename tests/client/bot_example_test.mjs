#!/usr/bin/env node
// Runs the documented bot example (client-ts/examples/bot.mjs) against a real parlor-server
// on loopback, to the end of a game, twice: a table it opens and fills with server bots
// (Agram, three seats), and a quick-play table the server fills with bots (Big Two, two
// seats). Then the client's resume, in this process: a dropped connection comes back by
// itself as the same player, seated where it was, and a new client given the token resumes
// that player too. Bounded: the whole test gives up after 60 s.
//
//   node tests/client/bot_example_test.mjs --server build/release/server/parlor-server

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../e2e/lib/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const pkg = path.join(root, 'client-ts');
const LIMIT_MS = 60000;
const started = Date.now();

const i = process.argv.indexOf('--server');
if (i < 0 || !process.argv[i + 1]) {
  console.error('usage: bot_example_test.mjs --server PATH/parlor-server');
  process.exit(2);
}
const binary = path.resolve(process.argv[i + 1]);

// The example imports `@parlor/client`, which is client-ts/dist: build it when it is missing
// or older than the sources (`make web` builds it too).
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}
const built = path.join(pkg, 'dist/index.js');
if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < newest(path.join(pkg, 'src'))) {
  const tsc = path.join(pkg, 'node_modules/typescript/bin/tsc');
  if (!fs.existsSync(tsc)) {
    console.error('client-ts/node_modules is missing: run `npm ci` in client-ts (deploy/install-deps.sh does)');
    process.exit(1);
  }
  execFileSync(process.execPath, [tsc, '-p', pkg], { stdio: 'inherit' });
}

// Node 22 and later have a global WebSocket; Node 20 has it behind a flag (this test uses
// one itself, so it runs itself again with the flag).
const flagged = process.execArgv.includes('--experimental-websocket');
const nodeArgs = typeof WebSocket === 'function' && !flagged ? [] : ['--experimental-websocket'];
if (nodeArgs.length && !flagged) {
  const again = spawnSync(process.execPath, [...nodeArgs, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

function runBot(url, args) {
  return new Promise((resolve, reject) => {
    const left = LIMIT_MS - (Date.now() - started);
    const child = spawn(process.execPath, [...nodeArgs, path.join(pkg, 'examples/bot.mjs'), '--url', url, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.stderr.on('data', (c) => { out += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the bot did not finish within the test's ${LIMIT_MS / 1000} s:\n${out}`)); }, Math.max(left, 1000));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && /game over after \d+ moves/.test(out)) resolve(out);
      else reject(new Error(`bot.mjs ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

function within(ms, promise, what) {
  let timer;
  const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms); });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// The client's own resume, with a WebSocket constructor passed in (which lets the test
// cut the connection under the client).
async function resumeChecks(url) {
  const { ParlorClient } = await import(pathToFileURL(built).href);
  let last = null;
  class Tapped extends WebSocket {
    constructor(u) { super(u); last = this; }
  }
  const a = new ParlorClient({ url, name: 'resumer', WebSocket: Tapped, backoffMinMs: 50 });
  const first = await within(5000, a.start(), 'welcome');
  const { room } = await a.request({ type: 'create_room', kind: 'bigtwo', seats: 2 });
  const tokenBefore = a.token;

  // Cut the connection: the client says hello again with its token, on its own.
  const back = new Promise((resolve) => { const off = a.on('welcome', (w) => { off(); resolve(w); }); });
  const roomAgain = new Promise((resolve) => {
    const off = a.onPush('room', (p) => { if (p.room === room) { off(); resolve(p); } });
  });
  last.close();
  const w = await within(10000, back, 'welcome after the dropped connection');
  const pushed = await within(10000, roomAgain, 'room push after the resume');
  if (!w.resumed || w.player !== first.player || a.token !== tokenBefore || pushed.you !== 0) {
    throw new Error(`the dropped connection did not resume the player: ${JSON.stringify({ w, first, you: pushed.you })}`);
  }
  // Requests work on the new connection.
  const pong = await within(5000, a.request({ type: 'ping' }), 'ping');
  if (pong.type !== 'pong') throw new Error(`ping answered ${JSON.stringify(pong)}`);
  a.close();

  // Another client with the token is the same player, and is told about the room.
  const b = new ParlorClient({ url, token: tokenBefore });
  const roomToB = new Promise((resolve) => {
    const off = b.onPush('room', (p) => { if (p.room === room) { off(); resolve(p); } });
  });
  const wb = await within(5000, b.start(), 'welcome with the token');
  const pb = await within(10000, roomToB, 'room push to the resumed client');
  b.close();
  if (!wb.resumed || wb.player !== first.player || pb.you !== 0) {
    throw new Error(`the token did not resume the player: ${JSON.stringify({ wb, first, you: pb.you })}`);
  }
  console.log('ok - resume: a dropped connection came back as the same player at the same seat; so did a new client given the token');
}

const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parlor-bot-example-'));
let server = null;
let failed = false;
try {
  server = await startServer({ binary, staticDir, dev: false,
    extraArgs: ['--store', 'none', '--bot-delay-ms', '20', '--quick-play-bots-after-s', '1'] });
  const url = `ws://127.0.0.1:${server.port}/ws`;
  for (const args of [['--kind', 'agram', '--seats', '3'], ['--kind', 'bigtwo', '--seats', '2', '--quick-play']]) {
    const t0 = Date.now();
    const out = await runBot(url, [...args, '--timeout', '50']);
    const line = out.split('\n').find((l) => l.includes('game over')) ?? '';
    console.log(`ok - bot.mjs ${args.join(' ')}: ${line.replace(/^bot: /, '')} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  await resumeChecks(url);
} catch (err) {
  failed = true;
  console.log(`not ok - ${err.message}`);
  if (server) console.log(`# server output:\n${server.output().split('\n').slice(-30).join('\n')}`);
} finally {
  if (server) await server.stop();
  fs.rmSync(staticDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
