import { defaultClientConditions, defineConfig } from 'vite';

// Relative base: the built files load from wherever parlor-server serves them (`/`).
// `npm run dev` proxies the WebSocket to a locally running parlor-server (PARLOR_URL).
export default defineConfig({
  base: './',
  // @parlor/client (../client-ts, a file: dependency) is bundled from its TypeScript source,
  // so building the client needs no build of the package first.
  resolve: { conditions: ['parlor-source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  server: {
    // The Gem Merchants catalogue is imported from games/splendor/splendor.json.
    fs: { allow: ['..'] },
    proxy: {
      '/ws': { target: process.env.PARLOR_URL ?? 'ws://127.0.0.1:8080', ws: true },
      // Replays of finished games (GET /api/games/<room>/replay).
      '/api': { target: (process.env.PARLOR_URL ?? 'ws://127.0.0.1:8080').replace(/^ws/, 'http') },
    },
  },
});
