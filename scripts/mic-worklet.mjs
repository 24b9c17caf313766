#!/usr/bin/env node
// After `tsc` and `vite build`: writes the microphone's AudioWorklet module (captureWorkletSource(), from the
// tsc output) as a file beside each module that loads it: dist/browser/ (the CDN bundles' chunks) and
// dist/audio/capture/ (the npm build). The capture loads it from there (`new URL(MIC_WORKLET_FILE,
// import.meta.url)`), so a strict Content-Security-Policy needs no `blob:` (src/audio/capture/capture-worklet.ts).
// Also imported by the browser suites' dev server, which serves the same text beside the sources.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

/** The worklet's file name and source text, from the built capture module (run `tsc` first). */
export async function micWorklet() {
  const module = await import(pathToFileURL(join(root, 'dist/audio/capture/capture-worklet.js')).href);
  return { file: module.MIC_WORKLET_FILE, source: module.captureWorkletSource() };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { file, source } = await micWorklet();
  for (const dir of ['dist/browser', 'dist/audio/capture']) {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, file), source);
  }
}
