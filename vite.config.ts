import { defineConfig } from 'vite';

/**
 * Browser build: one ES module per element (registering its tag) plus shared chunks, into dist/browser/.
 * `parley start` serves these to the demo pages under /assets/. Everything is bundled (lit, marked,
 * DOMPurify, idb, fetch-event-source): a page needs nothing else. Server code is compiled by tsc only.
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
    rolldownOptions: { output: { minify: true } },
    lib: {
      entry: {
        'agent-chat': 'src/elements/agent-chat/define.ts',
        'speech-player': 'src/elements/speech-player/define.ts',
        'audio-transcriber': 'src/elements/audio-transcriber/define.ts',
        'doc-ocr-viewer': 'src/elements/doc-ocr-viewer/define.ts',
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
  },
});
