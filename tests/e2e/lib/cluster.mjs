// A whole Parlor cluster on loopback for one scenario, through the same interface as
// everyone else: deploy/cluster/up.sh --nodes N --port 0 --dir D (Redis, PostgreSQL, N
// parlor-server nodes and HAProxy), its `cluster listening on 127.0.0.1:P` line and
// D/cluster.json; deploy/cluster/down.sh D stops it. Also what a failover test needs to look
// behind the one address: which node owns a room and which holds a player's connection (the
// Redis directory: parlor:room:<id> {node, epoch}, parlor:edge:<player>), SIGKILL of one
// node by its PID, and HAProxy's runtime API (D/haproxy.sock) to keep new connections off a
// node.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const UP = path.join(repo, 'deploy/cluster/up.sh');
const DOWN = path.join(repo, 'deploy/cluster/down.sh');

function run(file, args, { timeoutMs = 10000, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(String(stdout));
    });
  });
}

// Starts the cluster; `settings` are PARLOR_* variables every node gets (up.sh passes them
// on), e.g. { PARLOR_LEASE_MS: '1500', PARLOR_DEV: '1' }. up.sh serves <repo>/client-web/dist.
export async function startCluster({ binary, nodes = 3, settings = {}, timeoutMs = 120000, log = () => {} }) {
  // A short path: the proxy's socket lives under it (up.sh allows at most 90 characters).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parlor-e2e-cluster-'));
  const env = { ...process.env, PARLOR_SERVER: binary, ...settings };
  const child = spawn('bash', [UP, '--nodes', String(nodes), '--port', '0', '--dir', dir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => { stdout += c; });
  child.stderr.on('data', (c) => { stderr += c; log(String(c)); });
  const cluster = makeCluster(dir);
  try {
    const code = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`up.sh did not finish within ${timeoutMs / 1000} s:\n${stderr.slice(-3000)}`)); }, timeoutMs);
      child.on('error', (e) => { clearTimeout(timer); reject(e); });
      child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
    });
    if (code !== 0) throw new Error(`up.sh exited with ${code}:\n${stderr.slice(-3000)}`);
    const m = /^cluster listening on 127\.0\.0\.1:(\d+)\n?$/.exec(stdout);
    if (!m) throw new Error(`up.sh printed ${JSON.stringify(stdout)}, not "cluster listening on 127.0.0.1:PORT"`);
    cluster.info = JSON.parse(fs.readFileSync(path.join(dir, 'cluster.json'), 'utf8'));
    cluster.port = Number(m[1]);
    if (cluster.info.proxy.port !== cluster.port) throw new Error(`cluster.json names proxy port ${cluster.info.proxy.port}, up.sh printed ${cluster.port}`);
    cluster.url = `http://127.0.0.1:${cluster.port}`;
    return cluster;
  } catch (err) {
    await cluster.down().catch(() => {});
    throw err;
  }
}

function makeCluster(dir) {
  let downed = false;
  const c = {
    dir,
    info: null,
    port: 0,
    url: '',
    killed: new Set(),
    node(name) {
      const n = c.info.nodes.find((x) => x.name === name);
      if (!n) throw new Error(`no node ${name} in cluster.json`);
      return n;
    },
    liveNodes() { return c.info.nodes.filter((n) => !c.killed.has(n.name)); },
    redis(...args) {
      return run('redis-cli', ['-h', '127.0.0.1', '-p', String(c.info.redis.port), '--raw', ...args]).then((s) => s.replace(/\n$/, ''));
    },
    // {node, epoch} of the room's directory entry (empty node: not recorded).
    async ownerOf(room) {
      const [node, epoch] = (await c.redis('HMGET', `parlor:room:${room}`, 'node', 'epoch')).split('\n');
      return { node: node ?? '', epoch: Number(epoch || 0) };
    },
    // The node that last welcomed the player (its hello), i.e. holds its connection.
    async edgeOf(player) { return c.redis('GET', `parlor:edge:${player}`); },
    // Whether the node's registration (its lease) is alive in Redis.
    async registered(name) { return (await c.redis('EXISTS', `parlor:node:${name}`)) === '1'; },
    // Waits until `test()` returns a truthy value; returns it.
    async until(test, { timeoutMs = 15000, everyMs = 100, what = 'condition' } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = await test();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`cluster: ${what} not reached within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, everyMs));
      }
    },
    // SIGKILL: a crash, nothing handed over. Waits until the process is gone.
    async kill(name) {
      const { pid } = c.node(name);
      process.kill(pid, 'SIGKILL');
      c.killed.add(name);
      await c.until(() => !alive(pid), { timeoutMs: 5000, what: `${name} (pid ${pid}) gone` });
    },
    // HAProxy's runtime API: a command, its answer.
    haproxy(command) {
      return new Promise((resolve, reject) => {
        const sock = net.connect(path.join(dir, 'haproxy.sock'));
        let out = '';
        sock.on('data', (d) => { out += d; });
        sock.on('error', reject);
        sock.on('end', () => resolve(out.trim()));
        sock.on('connect', () => sock.end(`${command}\n`));
      });
    },
    // New connections through the proxy avoid the node (its open ones stay): maintenance.
    async keepConnectionsOff(name) {
      const answer = await c.haproxy(`disable server nodes/${name}`);
      if (answer) throw new Error(`haproxy: disable server nodes/${name}: ${answer}`);
    },
    async letConnectionsOn(name) {
      const answer = await c.haproxy(`enable server nodes/${name}`);
      if (answer) throw new Error(`haproxy: enable server nodes/${name}: ${answer}`);
    },
    // Stops everything (idempotent), copies the logs to `keepLogsIn` when given, then removes
    // the directory.
    async down({ keepLogsIn = null } = {}) {
      if (!downed) {
        downed = true;
        await run('bash', [DOWN, dir], { timeoutMs: 90000 }).catch((e) => { downed = false; throw e; });
      }
      if (keepLogsIn && fs.existsSync(path.join(dir, 'logs'))) {
        fs.mkdirSync(keepLogsIn, { recursive: true });
        fs.cpSync(path.join(dir, 'logs'), keepLogsIn, { recursive: true });
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return c;
}

function alive(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().trim()[0] !== 'Z';
  } catch { return false; }
}
