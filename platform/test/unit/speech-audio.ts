/** Decoders and checks shared by the speech tests (test-only npm decoders, all MIT). */
import { MPEGDecoder } from 'mpg123-decoder';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { FLACDecoder } from '@wasm-audio-decoders/flac';

export interface Decoded { sampleRate: number; samples: Float32Array; header?: Record<string, number> }

export function parseWav(bytes: Uint8Array, { streamed = false } = {}): Decoded {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE' || tag(12) !== 'fmt ' || tag(36) !== 'data') throw new Error('not a RIFF/WAVE file');
  const riffSize = v.getUint32(4, true);
  const dataSize = v.getUint32(40, true);
  const actual = bytes.length - 44;
  if (streamed) {
    if (riffSize !== 0xffffffff || dataSize !== 0xffffffff) throw new Error('streamed WAV sizes should be 0xFFFFFFFF');
  } else if (dataSize !== actual || riffSize !== 36 + actual) throw new Error(`WAV sizes ${riffSize}/${dataSize} do not match ${actual} data bytes`);
  const header = { format: v.getUint16(20, true), channels: v.getUint16(22, true), sampleRate: v.getUint32(24, true), byteRate: v.getUint32(28, true), blockAlign: v.getUint16(32, true), bits: v.getUint16(34, true) };
  const samples = new Float32Array(actual / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = v.getInt16(44 + i * 2, true) / 32768;
  return { sampleRate: header.sampleRate, samples, header };
}

export function parsePcm(bytes: Uint8Array): Decoded {
  if (bytes.length % 4) throw new Error('pcm length is not a multiple of 4');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Float32Array(bytes.length / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = v.getFloat32(i * 4, true);
  return { sampleRate: 24000, samples };
}

export async function decodeMp3(bytes: Uint8Array): Promise<Decoded> {
  const d = new MPEGDecoder();
  await d.ready;
  try {
    const r = d.decode(bytes);
    if (r.errors.length) throw new Error(`mp3 decode errors: ${JSON.stringify(r.errors.slice(0, 2))}`);
    return { sampleRate: r.sampleRate, samples: r.channelData[0] ?? new Float32Array(0) };
  } finally { d.free(); }
}

export async function decodeOpus(bytes: Uint8Array): Promise<Decoded> {
  const d = new OggOpusDecoder();
  await d.ready;
  try {
    const r = await d.decodeFile(bytes);
    if (r.errors.length) throw new Error(`opus decode errors: ${JSON.stringify(r.errors.slice(0, 2))}`);
    const v = new DataView(bytes.buffer, bytes.byteOffset);
    // OpusHead is the first packet of the first page (27-byte header + 1 lacing byte).
    const head = bytes.subarray(28, 28 + 19);
    if (String.fromCharCode(...head.subarray(0, 8)) !== 'OpusHead') throw new Error('no OpusHead');
    return { sampleRate: r.sampleRate, samples: r.channelData[0] ?? new Float32Array(0), header: { inputSampleRate: v.getUint32(28 + 12, true), channels: head[9], preSkip: v.getUint16(28 + 10, true) } };
  } finally { d.free(); }
}

export async function decodeFlac(bytes: Uint8Array): Promise<Decoded> {
  const d = new FLACDecoder();
  await d.ready;
  try {
    const r = await d.decodeFile(bytes);
    if (r.errors.length) throw new Error(`flac decode errors: ${JSON.stringify(r.errors.slice(0, 2))}`);
    return { sampleRate: r.sampleRate, samples: r.channelData[0] ?? new Float32Array(0), header: { bitDepth: r.bitDepth } };
  } finally { d.free(); }
}

export function rms(samples: Float32Array): number {
  let s = 0;
  for (const x of samples) s += x * x;
  return Math.sqrt(s / Math.max(1, samples.length));
}

export function peak(samples: Float32Array): number {
  let m = 0;
  for (const x of samples) m = Math.max(m, Math.abs(x));
  return m;
}
