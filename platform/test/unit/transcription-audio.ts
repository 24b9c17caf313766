/** Fixtures and checks shared by the transcription tests. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeWav } from '../../src/engines/transcription/decode.js';
import { Resampler } from '../../src/engines/speech/resample.js';
import { createEncoder } from '../../src/engines/speech/encoders.js';
import type { SpeechFormat } from '../../src/engines/speech/types.js';

const dir = fileURLToPath(new URL('../../../test/fixtures/transcription/', import.meta.url));

/** Flite `slt` recordings (test/fixtures/transcription/README.md) and what was said. */
export const SENTENCES = {
  fox: 'The quick brown fox jumps over the lazy dog.',
  call: 'Please call me back when you get home tonight.',
  weather: 'The weather is nice today.',
} as const;
export type Sentence = keyof typeof SENTENCES;

export function fixtureWav(name: Sentence): Uint8Array {
  return new Uint8Array(readFileSync(`${dir}${name}.wav`));
}

export function fixtureSamples(name: Sentence): { rate: number; samples: Float32Array } {
  const d = decodeWav(fixtureWav(name));
  return { rate: d.sampleRate, samples: d.samples };
}

export function resample(samples: Float32Array, from: number, to: number): Float32Array {
  const r = new Resampler(from, to);
  const a = r.push(samples);
  const b = r.flush();
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** A WAV file of mono samples written with `channels` identical channels at `bits` (8/16/24/32 PCM, or 32 float with `float`). */
export function writeWav(samples: Float32Array, rate: number, { channels = 1, bits = 16, float = false } = {}): Uint8Array {
  const bytes = bits / 8;
  const data = samples.length * channels * bytes;
  const out = new Uint8Array(44 + data);
  const v = new DataView(out.buffer);
  const tag = (at: number, s: string) => { for (let i = 0; i < 4; i++) out[at + i] = s.charCodeAt(i); };
  tag(0, 'RIFF'); v.setUint32(4, 36 + data, true); tag(8, 'WAVE'); tag(12, 'fmt ');
  v.setUint32(16, 16, true); v.setUint16(20, float ? 3 : 1, true); v.setUint16(22, channels, true);
  v.setUint32(24, rate, true); v.setUint32(28, rate * channels * bytes, true); v.setUint16(32, channels * bytes, true); v.setUint16(34, bits, true);
  tag(36, 'data'); v.setUint32(40, data, true);
  let at = 44;
  for (const s0 of samples) {
    const s = Math.max(-1, Math.min(1, s0));
    for (let c = 0; c < channels; c++, at += bytes) {
      if (float) v.setFloat32(at, s, true);
      else if (bits === 8) v.setUint8(at, Math.round(s * 127) + 128);
      else if (bits === 16) v.setInt16(at, Math.round(s * 32767), true);
      else if (bits === 24) { const x = Math.round(s * 8388607); v.setUint8(at, x & 0xff); v.setUint8(at + 1, (x >> 8) & 0xff); v.setInt8(at + 2, x >> 16); }
      else v.setInt32(at, Math.round(s * 2147483647), true);
    }
  }
  return out;
}

/** Encodes 16 kHz mono samples with the platform's own speech encoders (which take 24 kHz). */
export async function encodeWith(format: SpeechFormat, samples16k: Float32Array): Promise<Uint8Array> {
  const enc = await createEncoder(format);
  const s24 = resample(samples16k, 16000, 24000);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < s24.length; i += 4800) parts.push(enc.push(s24.subarray(i, i + 4800)));
  parts.push(enc.end());
  return enc.finalize(Buffer.concat(parts));
}

const words = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).filter(Boolean);

/** Word error rate of `hypothesis` against `reference` (word-level edit distance / reference words). */
export function wer(reference: string, hypothesis: string): number {
  const r = words(reference);
  const h = words(hypothesis);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return r.length ? prev[h.length] / r.length : h.length ? 1 : 0;
}

/** The packets of an Ogg stream (page lacing reassembled), header packets included. */
export function oggPackets(ogg: Uint8Array): Uint8Array[] {
  const packets: Uint8Array[] = [];
  let partial: number[] = [];
  let pos = 0;
  while (pos + 27 <= ogg.length) {
    const nsegs = ogg[pos + 26];
    const table = ogg.subarray(pos + 27, pos + 27 + nsegs);
    let at = pos + 27 + nsegs;
    for (const len of table) {
      partial.push(...ogg.subarray(at, at + len));
      at += len;
      if (len < 255) { packets.push(Uint8Array.from(partial)); partial = []; }
    }
    pos = at;
  }
  return packets;
}

function ebml(id: number[], body: Uint8Array | number[] | null): Uint8Array {
  if (body === null) return Uint8Array.from([...id, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]); // unknown size
  const size = body.length;
  const sz = [0x01, 0, 0, 0, (size / 2 ** 24) & 0xff, (size >> 16) & 0xff, (size >> 8) & 0xff, size & 0xff];
  return Uint8Array.from([...id, ...sz, ...body]);
}
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** A WebM file as MediaRecorder writes it: unknown-size Segment and Cluster, one SimpleBlock per 20 ms Opus frame. */
export function webmFromOggOpus(ogg: Uint8Array, codec = 'A_OPUS'): Uint8Array {
  const [head, , ...frames] = oggPackets(ogg);
  const header = ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], ascii('webm')));
  const track = ebml([0xae], cat(ebml([0xd7], [1]), ebml([0x86], ascii(codec)), ebml([0x63, 0xa2], head), ebml([0xe1], ebml([0x9f], [1]))));
  const tracks = ebml([0x16, 0x54, 0xae, 0x6b], track);
  const blocks = frames.map((f, i) => ebml([0xa3], [0x81, ((i * 20) >> 8) & 0xff, (i * 20) & 0xff, 0x80, ...f]));
  return cat(header, ebml([0x18, 0x53, 0x80, 0x67], null), tracks, ebml([0x1f, 0x43, 0xb6, 0x75], null), ebml([0xe7], [0]), ...blocks);
}
