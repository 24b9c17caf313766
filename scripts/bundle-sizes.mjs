#!/usr/bin/env node
// The weight of the browser bundles (dist/browser, from `vite build`), min+gzip: what a page loads for
// each element before it works (the entry and every chunk it imports statically), what the four elements
// can load at all (static and dynamic imports, pdf.js excepted: the viewer loads it for PDFs only), and
// the audio code <agent-chat> loads on the first press of Read aloud, the microphone or Hands-free.
// Used by `npm run bench -- element` and by test/unit/package/bundle-size.test.ts (the budgets);
// `node scripts/bundle-sizes.mjs [dist/browser]` prints the figures.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const ELEMENTS = ['agent-chat', 'speech-player', 'audio-transcriber', 'doc-ocr-viewer'];
/** pdf.js and its worker, loaded by <doc-ocr-viewer> for PDF files only: outside the "all four" figure. */
const PDF_JS = /^vendor\/pdf/;
/** The catalogues of other languages than English, of which a page loads the one it uses (if any). */
const LOCALE = /^(?:ar|de|es|fr)-[\w-]{8}\.js$/;

function imports(dist, file) {
  const text = readFileSync(join(dist, file), 'utf8');
  const stat = [...text.matchAll(/(?:import|export)\s*(?:[^'"`()]*?from\s*)?["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]);
  const dynamic = [...text.matchAll(/import\(\s*[`"']\.\/([^`"']+\.js)[`"']\s*\)/g)].map((m) => m[1]);
  return { stat, dynamic };
}

/** `file` and every chunk it imports statically (and, with `dynamic`, dynamically too). */
export function graph(dist, file, { dynamic = false } = {}, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const found = imports(dist, file);
  for (const next of dynamic ? [...found.stat, ...found.dynamic] : found.stat) graph(dist, next, { dynamic }, seen);
  return seen;
}

const gzipCache = new Map();
/** Bytes of `files` compressed one by one with gzip -9 (as a server sends them). */
export function gzipBytes(dist, files) {
  let total = 0;
  for (const file of files) {
    const key = join(dist, file);
    if (!gzipCache.has(key)) gzipCache.set(key, gzipSync(readFileSync(key), { level: 9 }).length);
    total += gzipCache.get(key);
  }
  return total;
}

/** The figures (bytes, min+gzip) and the files behind them. */
export function bundleSizes(dist) {
  if (!existsSync(join(dist, 'agent-chat.js'))) throw new Error(`${dist}/agent-chat.js is missing: run \`npm run build\``);
  const firstLoad = Object.fromEntries(ELEMENTS.map((name) => {
    const files = [...graph(dist, `${name}.js`)];
    return [name, { files, bytes: gzipBytes(dist, files) }];
  }));
  const everything = new Set();
  for (const name of ELEMENTS) graph(dist, `${name}.js`, { dynamic: true }, everything);
  const allFour = [...everything].filter((f) => !PDF_JS.test(f) && !LOCALE.test(f)).sort();
  const locales = [...everything].filter((f) => LOCALE.test(f)).sort();
  // The audio code <agent-chat> loads on first use: the reply speaker and the microphone, with what they import.
  const chat = new Set(firstLoad['agent-chat'].files);
  const chatDynamic = imports(dist, 'agent-chat.js').dynamic;
  const audioEntries = chatDynamic.filter((f) => /^audio-(?:in|out)-/.test(f));
  const audio = new Set();
  for (const entry of audioEntries) for (const f of graph(dist, entry)) if (!chat.has(f)) audio.add(f);
  const markdownFiles = chatDynamic.filter((f) => /^markdown-/.test(f)).flatMap((f) => [...graph(dist, f)]).filter((f) => !chat.has(f));
  return {
    firstLoad,
    allFour: { files: allFour, bytes: gzipBytes(dist, allFour) },
    locales: { files: locales, bytes: locales.length ? gzipBytes(dist, locales) / locales.length : 0 },
    chatAudio: { files: [...audio].sort(), bytes: gzipBytes(dist, audio) },
    chatMarkdown: { files: [...new Set(markdownFiles)], bytes: gzipBytes(dist, new Set(markdownFiles)) },
  };
}

/** The npm packages and source files a built chunk holds (from its source map; none for the bundler's runtime helper). */
export function chunkSources(dist, file) {
  if (!existsSync(join(dist, `${file}.map`))) return [];
  const map = JSON.parse(readFileSync(join(dist, `${file}.map`), 'utf8'));
  return map.sources.map((s) => s.replace(/^(?:\.\.\/)+/, ''));
}

/** The budgets (issue 15): KB = 1,024 bytes, min+gzip. allFourKB went 127 → 116 when the microphone moved to the browser's own AudioWorklet (issue 25: no standardized-audio-context in any chunk). */
export const BUDGETS = { agentChatFirstLoadKB: 45, allFourKB: 116 };

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = process.argv[2] ?? join(import.meta.dirname, '../dist/browser');
  const s = bundleSizes(dist);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  for (const [name, { files, bytes }] of Object.entries(s.firstLoad)) console.log(`${name} first load: ${kb(bytes)} (${files.join(' + ')})`);
  console.log(`agent-chat markdown renderer, loaded with the first reply shown: ${kb(s.chatMarkdown.bytes)}`);
  console.log(`agent-chat audio code, loaded on first press: ${kb(s.chatAudio.bytes)} (${s.chatAudio.files.join(' + ')})`);
  console.log(`all four elements with the client, everything they can load but pdf.js and other languages: ${kb(s.allFour.bytes)}`);
  console.log(`one other language's catalogue: ${kb(s.locales.bytes)}`);
}
