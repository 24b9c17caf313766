// The browser suites that cover each element's main flows, in Firefox ESR and WebKitGTK (Chromium runs every
// suite: web-test-runner.config.mjs). Same dev server, relay and local platform as the Chromium config; the
// engines come from Debian's packages (test/browser/engines/launchers.mjs). PARLEY_ENGINES=firefox (the
// default) or =webkit picks the engine of a run.
//
// Left to Chromium, and why: the real-microphone suites (mic-capture, voice-input, the transcriber's and the
// chat's microphone paths, hands-free) need Chromium's fake capture from a WAV file of a spoken sentence:
// Firefox's and WebKit's fakes are a tone, which has no words (the cross-engine end-to-end suite records from
// them and checks the words the elements say instead: test/e2e/engines.e2e.test.ts); the a11y suites and the
// view suite switch colour schemes and forced colours through the DevTools protocol; the others (clipboard,
// attachments' synthetic paste, the relay's mounts and origins) test what no engine does differently, and the
// suite's time on a 2-core machine is kept for the flows.
import base from './web-test-runner.config.mjs';
import { firefoxLauncher, webkitLauncher } from './test/browser/engines/launchers.mjs';

export const ENGINE_SUITES = [
  'agent-chat.test.ts', // the chat against the real relay: Enter, streamed markdown, events, stop, errors
  'agent-chat-search.test.ts', // a 1,000-message history, scrolling and search
  'agent-chat-tools.test.ts', // tools, approvals by keyboard, starters
  'markdown.test.ts', // the sanitiser and URL rules, in each engine's DOM
  'locales.test.ts', // languages and right to left
  'speech-player.test.ts', // speech through the relay into Web Audio
  'doc-ocr-viewer.test.ts', // documents through the relay, pdf.js, search across pages
  'elements-import.test.ts', // the built elements load and define
  'text-field.test.ts', // message boxes that grow (WebKit's fallback for field-sizing) and follow the page's direction
  'refusals.test.ts', // refusals retrying cannot fix: no retry, a neutral sentence, the console line
  'audio-not-started.test.ts', // an AudioContext that never starts, said in words
].map((file) => `test/browser/${file}`);

/** Suites left out in one engine, and why (each flow still runs there in test/e2e/engines.e2e.test.ts). */
export const ENGINE_SKIPS = {
  webkit: {
    // Its thumbnail and drawing-order tests read pdf.js's canvases pixel by pixel and catch drawings in flight;
    // WebKit's canvas draws the same page lighter and sooner. Reading a PDF is the end-to-end suite's there.
    'test/browser/doc-ocr-viewer.test.ts': 'pdf.js canvas internals',
  },
};

// One engine per run (PARLEY_ENGINES=firefox or webkit; scripts/test.mjs runs both, one after the other).
const engine = process.env.PARLEY_ENGINES ?? 'firefox';
const launchers = { firefox: firefoxLauncher, webkit: webkitLauncher };
if (!(engine in launchers)) throw new Error(`PARLEY_ENGINES must be firefox or webkit for this config, not ${engine}`);

export default {
  ...base,
  files: ENGINE_SUITES.filter((file) => !(file in (ENGINE_SKIPS[engine] ?? {}))),
  browsers: [launchers[engine]()],
};
