// Starts a real parlor-server on an ephemeral loopback port and stops it.

import { spawn } from 'node:child_process';

// `port` 0: a free one; a given port starts a server again where a stopped one listened.
// `dev`: development mode (--dev), which the scenarios need to choose a game's seed.
export async function startServer({ binary, staticDir, extraArgs = [], timeoutMs = 20000, log = () => {}, port: wanted = 0, dev = true }) {
  const args = ['--port', String(wanted), '--bind', '127.0.0.1', '--static-dir', staticDir, ...(dev ? ['--dev'] : []), ...extraArgs];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  const remember = (chunk) => {
    output.push(chunk.toString());
    if (output.length > 400) output.splice(0, output.length - 400);
  };
  child.stderr.on('data', (c) => { remember(c); log(c.toString()); });
  const port = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`parlor-server did not print "listening on" within ${timeoutMs} ms:\n${output.join('')}`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      remember(chunk);
      buffer += chunk.toString();
      const m = /listening on ([^\s:]+|\[[^\]]+\]):(\d+)/.exec(buffer);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[2]));
      }
    });
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`parlor-server exited early (code ${code}, signal ${signal}):\n${output.join('')}`));
    });
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output.join(''),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
