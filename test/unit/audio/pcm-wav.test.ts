import { describe, expect, test } from 'vitest';
import { Float32PcmDecoder } from '../../../src/audio/pcm-decoder.js';
import { WavStreamDecoder, parseWavHeader, wavFramesToMono } from '../../../src/audio/wav-decoder.js';

function f32le(values: number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return new Uint8Array(view.buffer);
}

/** Splits bytes at the given cut points. */
function cut(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let offset = 0;
  for (const size of sizes) {
    out.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  if (offset < bytes.length) out.push(bytes.slice(offset));
  return out;
}

function wavFile(samples: number[], { rate = 24000, channels = 1, bits = 16, float = false, dataSize }: { rate?: number; channels?: number; bits?: number; float?: boolean; dataSize?: number } = {}): Uint8Array {
  const width = bits / 8;
  const frames = samples.length / channels;
  const data = frames * channels * width;
  const view = new DataView(new ArrayBuffer(44 + 12 + data));
  const str = (o: number, s: string) => [...s].forEach((c, i) => view.setUint8(o + i, c.charCodeAt(0)));
  str(0, 'RIFF'); view.setUint32(4, 36 + 12 + data, true); str(8, 'WAVE');
  str(12, 'fmt '); view.setUint32(16, 16, true); view.setUint16(20, float ? 3 : 1, true); view.setUint16(22, channels, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate * channels * width, true); view.setUint16(32, channels * width, true); view.setUint16(34, bits, true);
  // A LIST chunk before data, as some encoders write.
  str(36, 'LIST'); view.setUint32(40, 4, true); str(44, 'INFO');
  str(48, 'data'); view.setUint32(52, dataSize ?? data, true);
  samples.forEach((v, i) => {
    const o = 56 + i * width;
    if (float) view.setFloat32(o, v, true);
    else if (bits === 16) view.setInt16(o, Math.round(v * 32767), true);
  });
  return new Uint8Array(view.buffer);
}

describe('Float32PcmDecoder', () => {
  const values = [0, 0.5, -0.5, 1, -1, 0.25, 0.125];
  const bytes = f32le(values);

  test('fragments cut anywhere give the same samples as the whole', () => {
    for (const sizes of [[28], [1, 1, 1, 1, 24], [3, 5, 7, 13], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [0, 27, 1]]) {
      const decoder = new Float32PcmDecoder();
      const out = cut(bytes, sizes).flatMap((part) => [...decoder.push(part)]);
      expect(out).toEqual(values.map((v) => Math.fround(v)));
      expect(decoder.pendingBytes).toBe(0);
    }
  });

  test('a split sample waits for its last byte', () => {
    const decoder = new Float32PcmDecoder();
    expect(decoder.push(bytes.slice(0, 6))).toHaveLength(1);
    expect(decoder.pendingBytes).toBe(2);
    expect([...decoder.push(bytes.slice(6, 8))]).toEqual([0.5]);
  });
});

describe('WAV', () => {
  test('the header is found after other chunks, with a format and the data offset', () => {
    const header = parseWavHeader(wavFile([0, 0.5, -0.5]));
    expect(header).toEqual({ format: { audioFormat: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16, blockAlign: 2 }, dataOffset: 56, dataBytes: 6 });
  });

  test('an incomplete header asks for more bytes; a non-WAV throws', () => {
    const file = wavFile([0, 1]);
    for (let n = 0; n < 56; n++) expect(parseWavHeader(file.slice(0, n))).toBeNull();
    expect(() => parseWavHeader(new TextEncoder().encode('ID3\u0004 not a wav at all'))).toThrow(/Not a WAV/);
  });

  test('a streamed WAV (unknown size) read in odd fragments gives every sample', () => {
    const samples = Array.from({ length: 50 }, (_, i) => Math.sin(i / 3) * 0.8);
    const file = wavFile(samples, { dataSize: 0xffffffff });
    const decoder = new WavStreamDecoder();
    const out: number[] = [];
    for (const part of cut(file, [5, 30, 22, 1, 3, 17, 9])) out.push(...decoder.push(part));
    expect(decoder.sampleRate).toBe(24000);
    expect(out).toHaveLength(50);
    out.forEach((v, i) => expect(v).toBeCloseTo(samples[i], 3));
  });

  test('stereo float is mixed to mono; bytes after the data chunk are ignored', () => {
    const file = wavFile([0.5, 0.25, -1, 1], { channels: 2, bits: 32, float: true, rate: 16000 });
    const decoder = new WavStreamDecoder();
    const withTrailer = new Uint8Array([...file, 0x4c, 0x49, 0x53, 0x54, 0, 0, 0, 0]);
    expect([...decoder.push(withTrailer)]).toEqual([0.375, 0]);
    expect(decoder.sampleRate).toBe(16000);
  });

  test('8-bit and 24-bit integer samples are scaled to [-1, 1]', () => {
    expect([...wavFramesToMono(new Uint8Array([128, 0, 255]), { audioFormat: 1, channels: 1, sampleRate: 8000, bitsPerSample: 8, blockAlign: 1 })])
      .toEqual([0, -1, 127 / 128]);
    const v = wavFramesToMono(new Uint8Array([0, 0, 0x40, 0, 0, 0xc0]), { audioFormat: 1, channels: 1, sampleRate: 8000, bitsPerSample: 24, blockAlign: 3 });
    expect([...v]).toEqual([0.5, -0.5]);
  });
});
