import { defineConfig } from 'vite';

/**
 * Browser build: one ES module per element (registering its tag) plus shared chunks, into dist/browser/.
 * `parley start` serves these to the demo pages under /assets/, and CDN users load them as they are.
 * Everything is bundled (lit, marked, idb, fetch-event-source): a page needs nothing else. What a page
 * loads per element, and the byte budgets: scripts/bundle-sizes.mjs.
 * The vendor entries are the two browser libraries parley-kit bundles rather than depends on (pdf.js,
 * standardized-audio-context): dist/vendor/ (the npm ESM build, compiled by tsc) re-exports these same
 * files, so the package holds one copy of each (scripts/vendor.mjs). Server code is compiled by tsc only.
 */
export default defineConfig({
  publicDir: false,
  build: {
    outDir: 'dist/browser',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    minify: true,
    // Library mode keeps whitespace in ES output; the demo and CDN users load this file as is, so minify fully.
    rolldownOptions: {
      output: {
        minify: true,
        // Content-hashed names for everything a page does not name itself: the element entries keep the
        // names the CDN tag uses (`agent-chat.js`, …); shared chunks and the vendor bundles carry a hash,
        // so they can be cached for good (`immutable`) and a new release never serves a stale one.
        entryFileNames: (chunk) => (chunk.name.startsWith('vendor/') ? '[name]-[hash].js' : '[name].js'),
        chunkFileNames: '[name]-[hash].js',
      },
    },
    lib: {
      entry: {
        'agent-chat': 'src/elements/agent-chat/define.ts',
        'speech-player': 'src/elements/speech-player/define.ts',
        'audio-transcriber': 'src/elements/audio-transcriber/define.ts',
        'doc-ocr-viewer': 'src/elements/doc-ocr-viewer/define.ts',
        'vendor/pdfjs': 'src/vendor/pdfjs.js',
        'vendor/pdf-worker': 'src/vendor/pdf-worker.js',
        'vendor/audio-context': 'src/vendor/audio-context.js',
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
  },
});
