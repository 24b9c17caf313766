import { describe, expect, test } from 'vitest';
import { CaptureResampler } from '../../../src/audio/capture/resampler.js';
import { CAPTURE_PROCESSOR_NAME, captureWorkletSource, type CaptureChunkMessage } from '../../../src/audio/capture/capture-worklet.js';
import { concat, rmsOf, sine } from './signals.js';

function resampleAll(input: Float32Array, inRate: number, outRate: number, block = 128): Float32Array {
  const resampler = new CaptureResampler(inRate, outRate);
  const parts: Float32Array[] = [];
  for (let i = 0; i < input.length; i += block) parts.push(resampler.push(input.subarray(i, i + block)));
  parts.push(resampler.flush());
  return concat(...parts);
}

/** Zero crossings per second of the middle of a signal (its frequency for a sine). */
function frequencyOf(samples: Float32Array, rate: number): number {
  const from = Math.floor(samples.length / 4);
  const to = Math.floor((3 * samples.length) / 4);
  let crossings = 0;
  for (let i = from + 1; i < to; i++) if ((samples[i - 1] < 0) !== (samples[i] < 0)) crossings++;
  return (crossings / 2) / ((to - from) / rate);
}

/** Middle half (away from the filter's edges). */
function middle(samples: Float32Array): [number, number] {
  return [Math.floor(samples.length / 4), Math.floor((3 * samples.length) / 4)];
}

describe('CaptureResampler', () => {
  test.each([48000, 44100, 22050, 96000])('%i Hz → 16 kHz keeps a 1 kHz tone: same frequency and level', (rate) => {
    const out = resampleAll(sine(1000, rate, 1, 0.5), rate, 16000);
    expect(out.length).toBe(16000);
    expect(frequencyOf(out, 16000)).toBeCloseTo(1000, -1);
    expect(rmsOf(out, ...middle(out))).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  test('48 kHz → 16 kHz removes what is above the new Nyquist instead of folding it into the speech band', () => {
    // Naive decimation (every 3rd sample) would turn 10 kHz into a full-level 6 kHz tone.
    const input = sine(10000, 48000, 1, 0.5);
    const naive = Float32Array.from({ length: 16000 }, (_, i) => input[i * 3]);
    expect(rmsOf(naive, ...middle(naive))).toBeGreaterThan(0.3);
    for (const frequency of [9000, 10000, 12000, 20000]) {
      const out = resampleAll(sine(frequency, 48000, 1, 0.5), 48000, 16000);
      expect(rmsOf(out, ...middle(out)), `${frequency} Hz`).toBeLessThan(0.5 / Math.SQRT2 / 100); // below -40 dB
    }
  });

  test('44.1 kHz → 16 kHz passes speech frequencies flat (within 0.5 dB up to 5 kHz)', () => {
    for (const frequency of [200, 3000, 5000]) {
      const out = resampleAll(sine(frequency, 44100, 1, 0.5), 44100, 16000);
      const gainDb = 20 * Math.log10(rmsOf(out, ...middle(out)) / (0.5 / Math.SQRT2));
      expect(Math.abs(gainDb), `${frequency} Hz`).toBeLessThan(0.5);
    }
  });

  test('the output does not depend on how the input is cut into blocks', () => {
    const input = sine(440, 44100, 0.5, 0.3);
    const whole = resampleAll(input, 44100, 16000, input.length);
    for (const block of [1, 128, 1000]) {
      const cut = resampleAll(input, 44100, 16000, block);
      expect(cut.length).toBe(whole.length);
      let maxDiff = 0;
      for (let i = 0; i < whole.length; i++) maxDiff = Math.max(maxDiff, Math.abs(cut[i] - whole[i]));
      expect(maxDiff, `block ${block}`).toBeLessThan(1e-6);
    }
  });

  test('an impulse comes out at the same time (no added delay)', () => {
    const input = new Float32Array(44100);
    input[22050] = 1; // 0.5 s
    const out = resampleAll(input, 44100, 16000);
    let peak = 0;
    for (let i = 1; i < out.length; i++) if (Math.abs(out[i]) > Math.abs(out[peak])) peak = i;
    expect(Math.abs(peak - 8000)).toBeLessThanOrEqual(1);
  });

  test('upsamples too (8 kHz → 16 kHz), and equal rates pass the signal through', () => {
    const up = resampleAll(sine(1000, 8000, 1, 0.5), 8000, 16000);
    expect(up.length).toBe(16000);
    expect(frequencyOf(up, 16000)).toBeCloseTo(1000, -1);
    expect(rmsOf(up, ...middle(up))).toBeCloseTo(0.5 / Math.SQRT2, 2);
    const input = sine(1000, 16000, 0.25, 0.5);
    const same = resampleAll(input, 16000, 16000);
    expect(same.length).toBe(input.length);
    for (let i = 200; i < input.length - 200; i++) expect(Math.abs(same[i] - input[i])).toBeLessThan(2e-3);
  });

  test('empty input gives nothing; an invalid rate is refused', () => {
    const resampler = new CaptureResampler(48000, 16000);
    expect(resampler.push(new Float32Array(0)).length).toBe(0);
    expect(resampler.flush().length).toBe(0);
    expect(() => new CaptureResampler(0, 16000)).toThrow(RangeError);
    expect(() => new CaptureResampler(48000, Number.NaN)).toThrow(RangeError);
  });
});

/** Runs the worklet module's source with stand-ins for the AudioWorkletGlobalScope. */
function loadProcessor(deviceRate: number, chunkSamples: number) {
  const registered = new Map<string, new (options: unknown) => { process(inputs: Float32Array[][]): boolean }>();
  const posted: CaptureChunkMessage[] = [];
  let onmessage: ((event: { data: unknown }) => void) | null = null;
  class AudioWorkletProcessor {
    port = {
      postMessage: (message: CaptureChunkMessage) => posted.push(message),
      set onmessage(handler: (event: { data: unknown }) => void) { onmessage = handler; },
    };
  }
  new Function('AudioWorkletProcessor', 'registerProcessor', 'sampleRate', captureWorkletSource())(
    AudioWorkletProcessor,
    (name: string, ctor: new (options: unknown) => { process(inputs: Float32Array[][]): boolean }) => registered.set(name, ctor),
    deviceRate,
  );
  const Processor = registered.get(CAPTURE_PROCESSOR_NAME)!;
  const processor = new Processor({ processorOptions: { outputRate: 16000, chunkSamples } });
  return { processor, posted, send: (data: unknown) => onmessage?.({ data }) };
}

describe('capture worklet source', () => {
  test('registers a processor that downmixes, resamples to 16 kHz and posts s16 chunks; flush posts the rest and stops', () => {
    expect(captureWorkletSource()).not.toMatch(/^\s*import\s/m); // a Blob module cannot resolve imports
    const { processor, posted, send } = loadProcessor(48000, 800);
    const left = sine(1000, 48000, 1, 0.5);
    const right = new Float32Array(left.length); // silent channel: the mix is half the level
    for (let i = 0; i < left.length; i += 128) {
      expect(processor.process([[left.subarray(i, i + 128), right.subarray(i, i + 128)]])).toBe(true);
    }
    expect(processor.process([[]])).toBe(true); // an input with no channels yet
    expect(posted.length).toBe(19); // 16000 samples owed, 20 × 800 minus the filter's look-ahead
    expect(posted.every((m) => m.samples instanceof Int16Array && m.samples.length === 800 && !m.last)).toBe(true);
    send('flush');
    const last = posted.at(-1)!;
    expect(last.last).toBe(true);
    const total = posted.reduce((n, m) => n + m.samples.length, 0);
    expect(total).toBe(16000);
    const all = new Float32Array(total);
    let offset = 0;
    for (const m of posted) for (const s of m.samples) all[offset++] = s / 32768;
    expect(rmsOf(all, 4000, 12000)).toBeCloseTo(0.25 / Math.SQRT2, 2);
    expect(processor.process([[left.subarray(0, 128)]])).toBe(false); // stopped after the flush
    send('flush');
    expect(posted.at(-1)).toBe(last); // a second flush posts nothing
  });
});
