#!/usr/bin/env node
// After `vite build`: writes the npm ESM build's vendor modules (dist/vendor/*.js; src/vendor/ holds
// plain JavaScript re-exports of pdfjs-dist and standardized-audio-context, packages parley-kit does not
// depend on, which tsc does not emit) as re-exports of the bundles vite made of them in
// dist/browser/vendor/, so bundlers and Node resolve them inside the package, which holds one copy of
// each. The bundles' names carry a content hash (`pdfjs-<hash>.js`), found here after each build. Their
// declarations are self-contained: pdf.js's are the few types the viewer names; the audio context's are
// the DOM's Web Audio types.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const vendor = join(root, 'dist/vendor');
const bundles = join(root, 'dist/browser/vendor');

const declarations = {
  'pdfjs': `// pdf.js (pdfjs-dist, Apache-2.0), bundled in dist/browser/vendor/pdfjs-<hash>.js: the types parley-kit uses.
export interface PDFDocumentProxy { readonly numPages: number; getPage(pageNumber: number): Promise<unknown>; destroy(): Promise<void>; }
export declare const VerbosityLevel: { readonly ERRORS: number; readonly WARNINGS: number; readonly INFOS: number };
export declare function getDocument(source: { data: Uint8Array; isEvalSupported?: boolean; enableXfa?: boolean; verbosity?: number }): { promise: Promise<PDFDocumentProxy> };
`,
  'pdf-worker': `// pdf.js's worker code (pdfjs-dist, Apache-2.0), bundled in dist/browser/vendor/pdf-worker-<hash>.js.
export declare const WorkerMessageHandler: unknown;
`,
  'audio-context': `// standardized-audio-context (MIT), bundled in dist/browser/vendor/audio-context-<hash>.js. Declared with the
// DOM's Web Audio types, which its classes implement.
export declare const MinimalAudioContext: typeof globalThis.AudioContext;
export declare const AudioWorkletNode: typeof globalThis.AudioWorkletNode;
export declare const MediaStreamAudioSourceNode: typeof globalThis.MediaStreamAudioSourceNode;
/** Undefined outside a secure context. */
export declare const addAudioWorkletModule: undefined | ((context: globalThis.AudioContext, moduleURL: string, options?: WorkletOptions) => Promise<void>);
export type IAudioContext = globalThis.AudioContext;
export type IMinimalAudioContext = globalThis.AudioContext;
export type IOfflineAudioContext = globalThis.OfflineAudioContext;
export type IAudioNode<T = unknown> = globalThis.AudioNode;
export type IAudioBufferSourceNode<T = unknown> = globalThis.AudioBufferSourceNode;
export type IAnalyserNode<T = unknown> = globalThis.AnalyserNode;
export type IGainNode<T = unknown> = globalThis.GainNode;
export type IAudioWorkletNode<T = unknown> = globalThis.AudioWorkletNode;
export type IMediaStreamAudioSourceNode<T = unknown> = globalThis.MediaStreamAudioSourceNode;
`,
};

const names = readdirSync(join(root, 'src/vendor')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));
mkdirSync(vendor, { recursive: true });
const built = existsSync(bundles) ? readdirSync(bundles) : [];
for (const name of names) {
  // The bundles carry a content hash (`pdfjs-D1Me-EVR.js`, see vite.config.ts): the one this build made.
  const bundle = built.filter((f) => f.startsWith(`${name}-`) && /^[A-Za-z0-9_-]{8}\.js$/.test(f.slice(name.length + 1)));
  if (bundle.length !== 1) throw new Error(`vendor: expected one dist/browser/vendor/${name}-<hash>.js, found ${bundle.length}; run vite build first`);
  if (!declarations[name]) throw new Error(`vendor: no declarations written for ${name}`);
  writeFileSync(join(vendor, `${name}.js`), `export * from '../browser/vendor/${bundle[0]}';\n`);
  writeFileSync(join(vendor, `${name}.d.ts`), declarations[name]);
}
