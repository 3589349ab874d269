// Starts an example rules engine (engines/, Python 3 with the standard library only) on a
// free loopback port (or a given one, to bring a stopped engine back where it was) and stops
// it: `server.py --port N` prints `listening on HOST:PORT`.

import { spawn } from 'node:child_process';

export async function startEngine({ script, base = '', port: wanted = 0, timeoutMs = 15000, log = () => {} }) {
  const child = spawn('python3', [script, '--port', String(wanted), '--base', base], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const remember = (chunk) => { output = (output + chunk.toString()).slice(-8000); };
  child.stderr.on('data', (c) => { remember(c); log(c.toString()); });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not print "listening on" within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      remember(chunk);
      const m = /listening on [^\s:]+:(\d+)/.exec(output);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`${script} exited early (code ${code}, signal ${signal}):\n${output}`)); });
  });
  return {
    port,
    url: `http://127.0.0.1:${port}${base}`,
    output: () => output,
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
