/**
 * Uploaded audio → mono float32 at its own rate → s16 mono 16 kHz chunks for the engines.
 *
 * | container | detected by | decoder |
 * |---|---|---|
 * | WAV (RIFF/WAVE, also RF64 not) | `RIFF….WAVE` | ours: PCM 8/16/24/32-bit, IEEE float 32/64, WAVE_FORMAT_EXTENSIBLE; any rate, channels mixed down |
 * | MP3 | `ID3` tag or an MPEG audio frame sync | mpg123-decoder (MIT, wasm) |
 * | Ogg Opus | `OggS` + `OpusHead` | ogg-opus-decoder (MIT, wasm) |
 * | WebM/Matroska Opus (MediaRecorder) | EBML magic `1A 45 DF A3` | our demuxer (webm.ts) + opus-decoder (MIT, wasm) |
 *
 * Recognised but unsupported (→ {@link UnsupportedAudioError}, 415): WebM with other codecs, FLAC, Ogg Vorbis/other,
 * MP4/M4A, AIFF. Anything else, or a supported container that decodes to nothing → {@link InvalidAudioError} (422).
 */
import { Resampler } from '../speech/resample.js';
import { floatToInt16 } from '../speech/encoders.js';
import { TRANSCRIPTION_SAMPLE_RATE } from './types.js';
import { WebmError, demuxWebmOpus } from './webm.js';

export const SUPPORTED_AUDIO = 'WAV (PCM or float), MP3, Ogg Opus, WebM Opus';

export class UnsupportedAudioError extends Error {}
export class InvalidAudioError extends Error {}

export interface DecodedAudio { format: 'wav' | 'mp3' | 'opus' | 'webm'; sampleRate: number; samples: Float32Array }

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

type AudioKind = 'wav' | 'mp3' | 'opus' | 'webm' | { unsupported: string } | undefined;

function sniffAudio(b: Uint8Array): AudioKind {
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WAVE') return 'wav';
  if (b.length >= 4 && ascii(b, 0, 4) === 'OggS') {
    const head = ascii(b, 0, Math.min(b.length, 200));
    if (head.includes('OpusHead')) return 'opus';
    if (head.includes('vorbis')) return { unsupported: 'Ogg Vorbis' };
    return { unsupported: 'Ogg (not Opus)' };
  }
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'webm';
  if (b.length >= 4 && ascii(b, 0, 4) === 'fLaC') return { unsupported: 'FLAC' };
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp') return { unsupported: 'MP4/M4A' };
  if (b.length >= 12 && ascii(b, 0, 4) === 'FORM' && /^AIF[FC]$/.test(ascii(b, 8, 4))) return { unsupported: 'AIFF' };
  if (b.length >= 3 && ascii(b, 0, 3) === 'ID3') return 'mp3';
  if (b.length >= 4 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0 && (b[2] & 0xf0) !== 0xf0) return 'mp3';
  return undefined;
}

function mixDown(channels: Float32Array[], length: number): Float32Array {
  if (channels.length === 1) return channels[0].subarray(0, length);
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i] += ch[i] / channels.length;
  return out;
}

export function decodeWav(b: Uint8Array): DecodedAudio {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let pos = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number; align: number } | undefined;
  while (pos + 8 <= b.length) {
    const id = ascii(b, pos, 4);
    let size = v.getUint32(pos + 4, true);
    const body = pos + 8;
    if (id === 'fmt ' && size >= 16) {
      let format = v.getUint16(body, true);
      if (format === 0xfffe && size >= 40) format = v.getUint16(body + 24, true);
      fmt = { format, channels: v.getUint16(body + 2, true), rate: v.getUint32(body + 4, true), bits: v.getUint16(body + 14, true), align: v.getUint16(body + 12, true) };
    } else if (id === 'data') {
      if (!fmt) throw new InvalidAudioError('WAV file has no fmt chunk before its data');
      if (size === 0xffffffff || body + size > b.length) size = b.length - body; // streamed / truncated
      return decodePcm(v, body, size, fmt);
    }
    pos = body + size + (size & 1);
  }
  throw new InvalidAudioError('WAV file has no data chunk');
}

function decodePcm(v: DataView, start: number, size: number, fmt: { format: number; channels: number; rate: number; bits: number; align: number }): DecodedAudio {
  const { format, channels, rate, bits } = fmt;
  if (channels < 1 || channels > 32 || rate < 1000 || rate > 384_000) throw new InvalidAudioError(`WAV header is not plausible (${channels} channels at ${rate} Hz)`);
  const bytes = bits / 8;
  const isFloat = format === 3 && (bits === 32 || bits === 64);
  const isInt = format === 1 && [8, 16, 24, 32].includes(bits);
  if (!isFloat && !isInt) throw new UnsupportedAudioError(`WAV encoding ${format === 1 ? `PCM ${bits}-bit` : `format tag ${format}`} is not supported (PCM 8/16/24/32-bit or IEEE float 32/64 are)`);
  const frameBytes = bytes * channels;
  const frames = Math.floor(size / frameBytes);
  const out = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let acc = 0;
    for (let c = 0; c < channels; c++) {
      const at = start + i * frameBytes + c * bytes;
      let s: number;
      if (isFloat) s = bits === 32 ? v.getFloat32(at, true) : v.getFloat64(at, true);
      else if (bits === 8) s = (v.getUint8(at) - 128) / 128;
      else if (bits === 16) s = v.getInt16(at, true) / 32768;
      else if (bits === 24) s = ((v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getInt8(at + 2) << 16))) / 8388608;
      else s = v.getInt32(at, true) / 2147483648;
      acc += s;
    }
    out[i] = acc / channels;
  }
  return { format: 'wav', sampleRate: rate, samples: out };
}

async function decodeMp3(b: Uint8Array): Promise<DecodedAudio> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  const d = new MPEGDecoder();
  await d.ready;
  try {
    const r = d.decode(b);
    if (!r.samplesDecoded) throw new InvalidAudioError('The MP3 file contains no decodable audio frames');
    return { format: 'mp3', sampleRate: r.sampleRate, samples: mixDown(r.channelData, r.samplesDecoded) };
  } finally {
    d.free();
  }
}

async function decodeOpus(b: Uint8Array): Promise<DecodedAudio> {
  const { OggOpusDecoder } = await import('ogg-opus-decoder');
  const d = new OggOpusDecoder();
  await d.ready;
  try {
    const r = await d.decodeFile(b);
    if (!r.samplesDecoded) throw new InvalidAudioError('The Ogg Opus file contains no decodable audio');
    return { format: 'opus', sampleRate: r.sampleRate, samples: mixDown(r.channelData, r.samplesDecoded) };
  } finally {
    d.free();
  }
}

async function decodeWebm(b: Uint8Array): Promise<DecodedAudio> {
  let demuxed;
  try {
    demuxed = demuxWebmOpus(b);
  } catch (err) {
    if (err instanceof WebmError && err.unsupported) throw new UnsupportedAudioError(`${err.message}; supported formats: ${SUPPORTED_AUDIO}`);
    throw err;
  }
  if (!demuxed.frames.length) throw new InvalidAudioError('The WebM file contains no Opus frames');
  const { OpusDecoder } = await import('opus-decoder');
  const d = new OpusDecoder({ channels: demuxed.channels, preSkip: demuxed.preSkip });
  await d.ready;
  try {
    const r = d.decodeFrames(demuxed.frames);
    if (!r.samplesDecoded) throw new InvalidAudioError('The WebM file contains no decodable Opus audio');
    return { format: 'webm', sampleRate: r.sampleRate, samples: mixDown(r.channelData, r.samplesDecoded) };
  } finally {
    d.free();
  }
}

/** Decodes a whole file; throws {@link UnsupportedAudioError} or {@link InvalidAudioError} for what it cannot use. */
export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  const kind = sniffAudio(bytes);
  if (kind === undefined) throw new InvalidAudioError(`The file is not audio in a supported format (${SUPPORTED_AUDIO})`);
  if (typeof kind === 'object') throw new UnsupportedAudioError(`${kind.unsupported} audio is not supported; supported formats: ${SUPPORTED_AUDIO}`);
  try {
    if (kind === 'wav') return decodeWav(bytes);
    if (kind === 'mp3') return await decodeMp3(bytes);
    if (kind === 'webm') return await decodeWebm(bytes);
    return await decodeOpus(bytes);
  } catch (err) {
    if (err instanceof UnsupportedAudioError || err instanceof InvalidAudioError) throw err;
    throw new InvalidAudioError(`The ${kind === 'opus' ? 'Ogg Opus' : kind === 'webm' ? 'WebM' : kind.toUpperCase()} file could not be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Resamples to 16 kHz s16 mono in chunks of `chunkSeconds`. */
export function* toEnginePcm(audio: DecodedAudio, chunkSeconds = 0.5): Generator<Int16Array> {
  const step = Math.max(1, Math.round(audio.sampleRate * chunkSeconds));
  const resampler = audio.sampleRate === TRANSCRIPTION_SAMPLE_RATE ? undefined : new Resampler(audio.sampleRate, TRANSCRIPTION_SAMPLE_RATE);
  for (let i = 0; i < audio.samples.length; i += step) {
    const part = audio.samples.subarray(i, i + step);
    const out = resampler ? resampler.push(part) : part;
    if (out.length) yield floatToInt16(out);
  }
  if (resampler) {
    const tail = resampler.flush();
    if (tail.length) yield floatToInt16(tail);
  }
}
