#!/usr/bin/env node
// Parlor browser end-to-end tests.
//
//   node tests/e2e/run.mjs --server build/release/server/parlor-server \
//        --static client-web/dist [--artifacts DIR] [--only REGEX] [--timeout SECONDS]
//
// Starts a real parlor-server on an ephemeral loopback port (--dev, so rooms
// may be seeded), drives Debian's Chromium through playwright-core (never a
// downloaded browser), runs every scenario in order, prints "N passed, M failed"
// and exits non-zero on any failure. Bounded by a global timeout.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './lib/server.mjs';
import { scenarios as bigTwoScenarios } from './scenarios/bigtwo.mjs';
import { scenarios as tableScenarios } from './scenarios/tables.mjs';
import { scenarios as replayScenarios } from './scenarios/replay.mjs';
import { scenarios as layoutScenarios } from './scenarios/layout.mjs';
import { scenarios as detailScenarios } from './scenarios/details.mjs';
import { scenarios as connectionScenarios } from './scenarios/connection.mjs';
import { scenarios as externalScenarios } from './scenarios/external.mjs';
import { scenarios as lobbyScenarios } from './scenarios/lobby.mjs';
import { scenarios as clusterScenarios } from './scenarios/cluster.mjs';
import { scenarios as restartScenarios } from './scenarios/restart.mjs';
import { scenarios as a11yScenarios } from './scenarios/a11y.mjs';
import { scenarios as motionScenarios } from './scenarios/motion.mjs';
import { scenarios as hostScenarios } from './scenarios/host.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.PARLOR_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', '--no-first-run', '--disable-dev-shm-usage'];

// The whole suite's limit in seconds (--timeout): it takes about six minutes on a quiet
// two-core machine and has taken over thirteen beside other builds and tests, which CTest
// runs next to it; its CTest TIMEOUT (tests/CMakeLists.txt) is a minute longer.
function parseArgs(argv) {
  const out = { server: null, static: null, artifacts: path.join(here, 'artifacts'), only: null, timeout: 1400, headed: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
    if (a === '--server') out.server = next();
    else if (a === '--static') out.static = next();
    else if (a === '--artifacts') out.artifacts = next();
    else if (a === '--only') out.only = next();
    else if (a === '--timeout') out.timeout = Number(next());
    else if (a === '--headed') out.headed = true;
    else if (a === '--verbose') out.verbose = true;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${a}`);
  }
  if (!out.server || !out.static) usage('--server and --static are required');
  return out;
}

function usage(problem) {
  if (problem) console.error(`run.mjs: ${problem}`);
  console.error('usage: node tests/e2e/run.mjs --server PATH --static DIR [--artifacts DIR] [--only REGEX] [--timeout SECONDS] [--verbose]');
  process.exit(2);
}

const opts = parseArgs(process.argv.slice(2));
for (const [what, p] of [['server binary', opts.server], ['static dir', path.join(opts.static, 'index.html')], ['chromium', CHROMIUM]]) {
  if (!fs.existsSync(p)) { console.error(`run.mjs: ${what} not found: ${p}`); process.exit(2); }
}

let server = null;
let browser = null;
let dataDir = null;
const cleanups = [];
const cleanup = async () => {
  for (const fn of cleanups.splice(0)) await Promise.resolve().then(fn).catch(() => {});
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
};

// The whole run is bounded: a hung browser or server cannot block CI.
const globalTimer = setTimeout(async () => {
  console.error(`run.mjs: global timeout of ${opts.timeout}s reached`);
  if (server) console.error(`--- server output (tail) ---\n${server.output().slice(-4000)}`);
  await cleanup();
  process.exit(1);
}, opts.timeout * 1000);
process.on('SIGINT', async () => { await cleanup(); process.exit(130); });
process.on('SIGTERM', async () => { await cleanup(); process.exit(143); });

const only = opts.only ? new RegExp(opts.only, 'i') : null;
const all = [...bigTwoScenarios, ...tableScenarios, ...replayScenarios, ...layoutScenarios, ...detailScenarios, ...connectionScenarios, ...externalScenarios, ...lobbyScenarios, ...restartScenarios, ...a11yScenarios, ...motionScenarios, ...hostScenarios, ...clusterScenarios].filter((s) => !only || only.test(s.name));
let passed = 0, failed = 0;
// Each failure again at the very end, with the first line of its error: a log cut to its
// tail (CI keeps only the last part of a long run) still names what failed.
const failures = [];
const started = Date.now();
try {
  // A fresh SQLite store per run (replays read it), removed afterwards: runs never share state.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parlor-e2e-'));
  server = await startServer({ binary: path.resolve(opts.server), staticDir: path.resolve(opts.static),
    extraArgs: ['--bot-delay-ms', '50', '--store', 'sqlite', '--data-dir', dataDir, '--quick-play-bots-after-s', '3'], log: opts.verbose ? (t) => process.stderr.write(t) : () => {} });
  console.log(`# parlor-server at ${server.url}`);
  // launch() gives every run a fresh temporary profile (user-data-dir); contexts add isolation per player.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: !opts.headed });
  console.log(`# chromium ${browser.version()}`);
  fs.mkdirSync(opts.artifacts, { recursive: true });
  // Failure shots from an earlier run would mislead.
  for (const f of fs.readdirSync(opts.artifacts)) if (/^failed-.*\.png$/.test(f)) fs.rmSync(path.join(opts.artifacts, f));
  // binary and staticDir: for scenarios that start a parlor-server of their own (external.mjs).
  const env = { browser, server, baseUrl: server.url, binary: path.resolve(opts.server), staticDir: path.resolve(opts.static), artifacts: path.resolve(opts.artifacts), shared: {}, cleanups, log: (m) => console.log(`#   ${m}`) };
  for (const s of all) {
    const t0 = Date.now();
    const missing = (s.needs ?? []).filter((n) => !env.shared[n]);
    if (missing.length) {
      failed++;
      failures.push(`${s.name}: skipped, an earlier scenario did not provide ${missing.join(', ')}`);
      console.log(`not ok - ${s.name} (skipped: an earlier scenario did not provide ${missing.join(', ')})`);
      continue;
    }
    try {
      await withTimeout(s.run(env), (s.timeout ?? 180) * 1000, s.name);
      passed++;
      console.log(`ok - ${s.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    } catch (err) {
      failed++;
      failures.push(`${s.name}: ${String(err?.message ?? err).split('\n')[0]}`);
      console.log(`not ok - ${s.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
      console.log(String(err?.stack ?? err).split('\n').map((l) => `#   ${l}`).join('\n'));
      await saveFailureShots(env, s.name);
    }
  }
} catch (err) {
  failed++;
  failures.push(`setup: ${String(err?.message ?? err).split('\n')[0]}`);
  console.log(`not ok - setup: ${err?.stack ?? err}`);
} finally {
  await cleanup();
  clearTimeout(globalTimer);
}
console.log(`# artifacts in ${path.resolve(opts.artifacts)}`);
for (const f of failures) console.log(`# failed: ${f}`);
console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)}s)`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);

function withTimeout(promise, ms, name) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${name}: timed out after ${ms / 1000}s`)), ms); }),
  ]);
}

// On failure, a screenshot of every open page helps more than a stack trace.
async function saveFailureShots(env, name) {
  const slug = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 60);
  let i = 0;
  for (const context of env.browser.contexts()) {
    for (const page of context.pages()) {
      await page.screenshot({ path: path.join(env.artifacts, `failed-${slug}-${i++}.png`), fullPage: true }).catch(() => {});
    }
  }
}
