import { describe, expect, test } from 'vitest';
import { SILENCE_DBFS, meterLevel, rms, toDbfs } from '../../../src/audio/capture/level.js';
import { encodeWav } from '../../../src/audio/capture/wav.js';
import { parseWavHeader } from '../../../src/audio/wav-decoder.js';
import { sine, toInt16 } from './signals.js';

describe('level', () => {
  test('rms of silence, a full-scale square and a sine', () => {
    expect(rms(new Int16Array(0))).toBe(0);
    expect(rms(new Int16Array(100))).toBe(0);
    expect(rms(Int16Array.from({ length: 100 }, (_, i) => (i % 2 ? 32767 : -32768)))).toBeCloseTo(1, 4);
    expect(rms(toInt16(sine(440, 16000, 1, 0.5)))).toBeCloseTo(0.5 / Math.SQRT2, 3);
  });

  test('dBFS: -6 dB for half scale, a floor for silence', () => {
    expect(toDbfs(1)).toBe(0);
    expect(toDbfs(0.5)).toBeCloseTo(-6.02, 2);
    expect(toDbfs(0)).toBe(SILENCE_DBFS);
    expect(toDbfs(1e-9)).toBe(SILENCE_DBFS);
  });

  test('meter level is linear in dB between the floor and 0 dBFS, clamped', () => {
    expect(meterLevel(-60)).toBe(0);
    expect(meterLevel(-90)).toBe(0);
    expect(meterLevel(-30)).toBe(0.5);
    expect(meterLevel(0)).toBe(1);
    expect(meterLevel(3)).toBe(1);
    expect(meterLevel(-20, -40)).toBe(0.5);
    expect(() => meterLevel(-20, 0)).toThrow(RangeError);
  });
});

describe('encodeWav', () => {
  test('writes a header that reads back as 16-bit mono PCM at the rate, with the samples after it', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const bytes = encodeWav(samples, 16000);
    expect(bytes.length).toBe(44 + samples.length * 2);
    const header = parseWavHeader(bytes)!;
    expect(header.format).toEqual({ audioFormat: 1, channels: 1, sampleRate: 16000, bitsPerSample: 16, blockAlign: 2 });
    expect(header.dataOffset).toBe(44);
    expect(header.dataBytes).toBe(12);
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(4, true)).toBe(bytes.length - 8); // RIFF size
    expect(view.getUint32(28, true)).toBe(32000); // byte rate
    const back = Array.from({ length: samples.length }, (_, i) => view.getInt16(44 + i * 2, true));
    expect(back).toEqual(Array.from(samples));
  });

  test('an empty recording is a valid file with no data; a bad rate is refused', () => {
    const bytes = encodeWav(new Int16Array(0), 48000);
    expect(bytes.length).toBe(44);
    expect(parseWavHeader(bytes)!.format.sampleRate).toBe(48000);
    expect(() => encodeWav(new Int16Array(4), 0)).toThrow(RangeError);
    expect(() => encodeWav(new Int16Array(4), 16000.5)).toThrow(RangeError);
  });
});
