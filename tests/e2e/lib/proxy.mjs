// A loopback TCP proxy in front of parlor-server, so a test can cut one
// player's network for real: drop() destroys every open connection, and while
// refusing is on, new connections are closed at once (the client must back off
// and retry until they are accepted again). While swallowing is on, what the
// browser sends is thrown away (a request lost on the way, just before a drop).

import net from 'node:net';

export async function startProxy(targetPort) {
  const open = new Set();
  let refusing = false;
  let swallowing = false;
  const server = net.createServer((client) => {
    if (refusing) { client.destroy(); return; }
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair = { client, upstream };
    open.add(pair);
    const close = () => { client.destroy(); upstream.destroy(); open.delete(pair); };
    client.on('error', close); upstream.on('error', close);
    client.on('close', close); upstream.on('close', close);
    client.on('data', (chunk) => { if (!swallowing) upstream.write(chunk); });
    upstream.pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    url: `http://127.0.0.1:${server.address().port}`,
    connections: () => open.size,
    drop() { for (const p of [...open]) { p.client.destroy(); p.upstream.destroy(); } open.clear(); },
    refuse(on) { refusing = on; },
    swallow(on) { swallowing = on; },
    close() { this.drop(); return new Promise((r) => server.close(() => r())); },
  };
}
