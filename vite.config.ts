import { defineConfig } from 'vite';
import { minifyHTMLLiterals } from 'minify-literals';

/**
 * Browser build: one ES module per element (registering its tag) plus shared chunks, into dist/browser/.
 * `parley start` serves these to the demo pages under /assets/, and CDN users load them as they are.
 * Everything is bundled (lit, marked, idb, fetch-event-source): a page needs nothing else. What a page
 * loads per element, and the byte budgets: scripts/bundle-sizes.mjs.
 * The vendor entries are the browser library parley-kit bundles rather than depends on (pdf.js, its
 * document and its worker code): dist/vendor/ (the npm ESM build, compiled by tsc) re-exports these same
 * files, so the package holds one copy of each (scripts/vendor.mjs). Server code is compiled by tsc only.
 */
/**
 * Lit's `css` and `html` templates minified (minify-literals: Lightning CSS, html-minifier-next), as Lit's
 * docs advise for production. HTML is only collapsed (runs of whitespace to one space, never removed)
 * and stripped of comments: entities, attributes and bindings stay as written.
 */
const minifyLiterals = {
  name: 'minify-literals',
  enforce: 'pre' as const,
  transform(code: string, id: string) {
    if (!/[\\/]src[\\/].*\.ts$/.test(id) || !/\b(?:css|html|svg)`/.test(code)) return null;
    return minifyHTMLLiterals(code, {
      fileName: id,
      html: { collapseWhitespace: true, conservativeCollapse: true, removeComments: true, decodeEntities: false, removeEmptyAttributes: false, minifyJS: false, caseSensitive: true },
    });
  },
};

export default defineConfig({
  publicDir: false,
  plugins: [minifyLiterals],
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
        // Code that always loads together is one chunk: each file costs its own gzip dictionary, and the
        // budget (scripts/bundle-sizes.mjs) counts every file a page can load. `kit`: what every element
        // loads first (lit, the shared element base and controllers, the text-box directive, the client's errors, LatestRun and local ids).
        // `panel`: what the three panels load first and <agent-chat> never uses (their control styles,
        // FocusRescueController, the transcriber's and the viewer's file drop, the bars' cssProps directive): a file more for a page of
        // panels, kept out of the chat's first load.
        // `audio-in`: the microphone (capture, the chat's voice composer; its worklet module is the file
        // parley-mic-worklet.js beside the chunks, scripts/mic-worklet.mjs). `client-media`: the speech, transcription,
        // realtime and OCR calls. `markdown`: the lexer and the chat's search, which only runs over rendered
        // replies. A group's chunk reaches its importers through namespace objects (and the bundler's runtime
        // chunk that makes them); a module loaded by import() and importing all it needs statically is a
        // chunk of its own without either: the viewer's originals (original-pages.ts), and speech out
        // (src/audio/audio-out.ts: playback, the speech session and the chat's reply speaker).
        codeSplitting: {
          groups: [
            { name: 'kit', priority: 3, minShareCount: 2, test: /node_modules[\\/](?:lit|lit-html|lit-element|@lit[\\/]reactive-element)[\\/]|[\\/]src[\\/](?:elements[\\/]internal[\\/](?:parley-element|locale|locale-format|define-once|error-kinds|shared-client|origin-refusal|live-region|text-field)|client[\\/](?:errors|latest-run|local-ids)|audio[\\/]gesture-context)\.ts$/ },
            { name: 'panel', priority: 2, test: /[\\/]src[\\/]elements[\\/]internal[\\/](?:controls\.styles|file-drop|focus-rescue|css-props)\.ts$/ },
            // audio-start (did the AudioContext start?) serves speech out and the microphone, which both load client-media:
            // it goes there, not into audio-in with the microphone code that imports it (speech out must not load that).
            { name: 'client-media', priority: 3, test: /[\\/]src[\\/]audio[\\/]audio-start\.ts$/ },
            { name: 'audio-in', priority: 2, test: /[\\/]src[\\/](?:audio[\\/]capture[\\/]|elements[\\/]agent-chat[\\/](?:voice-in|voice-composer)\.ts)/ },
            { name: 'client-media', priority: 1, test: /[\\/]src[\\/]client[\\/](?:sse-request-stream|realtime|ocr|transcription|speech|base64)\.ts$/ },
            { name: 'markdown', priority: 1, test: /node_modules[\\/]marked[\\/]|[\\/]src[\\/]elements[\\/](?:internal[\\/]markdown|agent-chat[\\/]transcript-search)\.ts$/ },
          ],
        },
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
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
  },
});
