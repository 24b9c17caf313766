/**
 * The weight of the CDN bundles (dist/browser, min+gzip; issue 15): `<agent-chat>` alone, a page with all
 * four elements, and the audio code the chat loads only when a press asks for sound. Sizes in bytes, not
 * durations. Needs `npm run build` first (npm test does). The figures: scripts/bundle-sizes.mjs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module shared with the bench and the command line (node scripts/bundle-sizes.mjs).
import { BUDGETS, ELEMENTS, bundleSizes, chunkSources, graph, gzipBytes } from '../../../scripts/bundle-sizes.mjs';

const DIST = join(import.meta.dirname, '../../../dist/browser');
const KB = 1024;
/** Whether a built chunk holds code of the npm package or source path `part`. */
const holds = (file: string, part: string) => chunkSources(DIST, file).some((source: string) => source.includes(part));
const MIC = 'src/audio/capture/mic-capture.ts';

interface Part { files: string[]; bytes: number }
interface Sizes { firstLoad: Record<string, Part>; allFour: Part; chatAudio: Part; chatMarkdown: Part; locales: Part }

describe('the browser bundles’ weight (min+gzip)', () => {
  let sizes: Sizes;
  let pageWithAll: Part;
  beforeAll(() => {
    if (!existsSync(join(DIST, 'agent-chat.js'))) throw new Error('dist/browser is missing: run `npm run build` (npm test does) first');
    sizes = bundleSizes(DIST);
    const files = new Set<string>();
    for (const name of ELEMENTS) graph(DIST, `${name}.js`, {}, files);
    pageWithAll = { files: [...files], bytes: gzipBytes(DIST, files) };
    const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;
    console.log(`[bundle] agent-chat first load ${kb(sizes.firstLoad['agent-chat'].bytes)}, its markdown renderer ${kb(sizes.chatMarkdown.bytes)}, ` +
      `its audio code ${kb(sizes.chatAudio.bytes)}; a page with all four ${kb(pageWithAll.bytes)}; ` +
      `everything the four can load but pdf.js and other languages ${kb(sizes.allFour.bytes)}`);
  });

  it(`<agent-chat> first load is at most ${BUDGETS.agentChatFirstLoadKB} KB, with no audio, microphone or markdown lexer code`, () => {
    const chat = sizes.firstLoad['agent-chat'];
    expect(chat.bytes).toBeLessThanOrEqual(BUDGETS.agentChatFirstLoadKB * KB);
    for (const part of [sizes.chatAudio, sizes.chatMarkdown]) {
      expect(part.files.length, 'a separate chunk').toBeGreaterThan(0);
      for (const file of part.files) expect(chat.files).not.toContain(file);
    }
    expect(sizes.chatAudio.files.some((f) => holds(f, MIC)), 'the microphone capture is among the audio code').toBe(true);
    expect(chat.files.some((f) => holds(f, MIC) || holds(f, 'node_modules/marked/'))).toBe(false);
  });

  it('<speech-player> loads its audio code (SpeechPlayback) on the first play, not with the element, and never the microphone’s', () => {
    const player = sizes.firstLoad['speech-player'];
    expect(player.files.some((f) => holds(f, 'src/audio/speech-playback.ts') || holds(f, MIC))).toBe(false);
    const played = [...graph(DIST, 'speech-player.js', { dynamic: true })];
    expect(played.some((f) => holds(f, 'src/audio/speech-playback.ts'))).toBe(true);
    expect(played.some((f) => holds(f, 'src/audio/capture/'))).toBe(false);
  });

  it(`everything the four elements and the client can load weighs at most ${BUDGETS.allFourKB} KB (pdf.js and other languages aside)`, () => {
    expect(sizes.allFour.files.some((f) => /^vendor\/pdf/.test(f))).toBe(false);
    expect(sizes.allFour.files.some((f) => holds(f, MIC)), 'the microphone is counted').toBe(true);
    expect(sizes.allFour.files.some((f) => holds(f, 'node_modules/marked/')), 'the markdown lexer is counted').toBe(true);
    expect(sizes.allFour.bytes).toBeLessThanOrEqual(BUDGETS.allFourKB * KB);
  });

  it(`a page with all four elements loads at most ${BUDGETS.allFourKB} KB before any is used (pdf.js aside)`, () => {
    expect(pageWithAll.files.some((f) => /^vendor\/pdf/.test(f))).toBe(false);
    expect(pageWithAll.bytes).toBeLessThanOrEqual(BUDGETS.allFourKB * KB);
  });

  it('the microphone’s worklet module is a file beside the chunks and beside the npm build’s capture module, and it runs (no blob: needed)', () => {
    for (const dir of [DIST, join(DIST, '../audio/capture')]) {
      const file = join(dir, 'parley-mic-worklet.js');
      expect(existsSync(file), file).toBe(true);
      // Run in an AudioWorkletGlobalScope of our own: 48 kHz, 0.5 s of a tone in 128-frame blocks → 16 kHz chunks of 50 ms.
      const registered = new Map<string, new (options: unknown) => { port: { onmessage: ((e: { data: unknown }) => void) | null }; process(inputs: Float32Array[][]): boolean }>();
      const posted: { samples: Int16Array; last: boolean }[] = [];
      class AudioWorkletProcessor { port = { onmessage: null, postMessage: (m: { samples: Int16Array; last: boolean }) => posted.push(m) }; }
      runInNewContext(readFileSync(file, 'utf8'), { AudioWorkletProcessor, sampleRate: 48000, registerProcessor: (name: string, ctor: never) => registered.set(name, ctor), Math, Float32Array, Int16Array, Float64Array });
      const Processor = registered.get('parley-mic-capture')!;
      expect(Processor, 'registers parley-mic-capture').toBeDefined();
      const node = new Processor({ processorOptions: { outputRate: 16000, chunkSamples: 800 } });
      for (let block = 0; block < 24000 / 128; block++) {
        const frame = Float32Array.from({ length: 128 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * (block * 128 + i)) / 48000));
        expect(node.process([[frame]])).toBe(true);
      }
      node.port.onmessage!({ data: 'flush' });
      expect(posted.at(-1)!.last).toBe(true);
      const total = posted.reduce((n, m) => n + m.samples.length, 0);
      expect(Math.abs(total - 8000)).toBeLessThanOrEqual(64);
      expect(posted.slice(0, -1).every((m) => m.samples.length === 800 && !m.last)).toBe(true);
      expect(Math.max(...posted.flatMap((m) => [...m.samples]))).toBeGreaterThan(0.4 * 32767);
    }
    const capture = sizes.chatAudio.files.find((f) => holds(f, MIC))!;
    expect(readFileSync(join(DIST, capture), 'utf8')).toContain('parley-mic-worklet.js');
    expect(sizes.allFour.files.every((f) => !holds(f, 'node_modules/standardized-audio-context/')), 'the browser’s own Web Audio, no wrapper').toBe(true);
  });
});
