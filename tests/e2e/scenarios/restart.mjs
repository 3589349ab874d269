// A server restarting under the lobby (a rolling restart, an upgrade): while it drains it
// answers create_room with shutting_down; the page says the server is restarting, and once it
// is reconnected — to the server started again on the same port — it asks again, and the
// table opens without the player doing anything more.

import { Player } from '../lib/player.mjs';
import { startServer } from '../lib/server.mjs';

const DRAIN_MS = 4000;

// Resolves once GET /readyz stops answering 200: the drain has begun.
async function draining(url) {
  for (let i = 0; i < 100; i++) {
    const status = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    if (status !== 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('/readyz still answers 200 five seconds after SIGTERM');
}

export const scenarios = [
  {
    name: 'restart: a table asked for while the server drains opens once the page is reconnected',
    timeout: 90,
    async run(env) {
      const options = { binary: env.binary, staticDir: env.staticDir, extraArgs: ['--store', 'none', '--drain-ms', String(DRAIN_MS)] };
      const first = await startServer(options);
      let second = null;
      env.cleanups.push(async () => { await first.stop(); if (second) await second.stop(); });
      const dana = await Player.create(env.browser, first.url, 'dana');
      env.cleanups.push(() => dana.close());
      const page = dana.page;
      await page.getByTestId('create-kind').selectOption('bigtwo');
      await page.locator('[data-testid="create-form"][data-kind="bigtwo"]').waitFor();

      const exited = first.stop(); // SIGTERM: the drain, then 1012 and the exit
      await draining(first.url);
      await page.getByTestId('create-room').click();
      await page.getByTestId('create-error').filter({ hasText: 'restarting' }).waitFor({ timeout: 5000 });
      await exited;
      second = await startServer({ ...options, port: first.port });
      // The reconnect (backoff up to a few seconds), the welcome, then create_room again.
      await page.waitForURL(/#\/room\//, { timeout: 20000 });
      await page.getByTestId('room').waitFor();
    },
  },
];
