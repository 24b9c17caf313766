import { defineConfig } from 'vite';

// Library build of the browser layers (client, audio, store, elements): one ES module per entry.
// Server code (src/platform, src/relay, src/cli.ts) is compiled by tsc and never bundled for the browser.
export default defineConfig({
  root: 'demo',
  build: {
    outDir: '../dist/browser',
    emptyOutDir: true,
    lib: {
      entry: { index: '../src/index.ts' },
      formats: ['es'],
    },
    rollupOptions: { external: [/^lit/] },
  },
});
