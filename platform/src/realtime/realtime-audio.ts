/**
 * Audio of the realtime WebSocket: raw PCM in one of the six encodings of the API at one of its sample rates,
 * arriving in arbitrary byte chunks (base64 in `input_audio.append`), turned into the mono s16 16 kHz the
 * transcription engines take. A frame split across two chunks is kept until its other bytes arrive.
 */
import type { RealtimeAudioEncoding, RealtimeAudioFormat } from 'parley-kit/types';
import { Resampler } from '../engines/speech/resample.js';
import { floatToInt16 } from '../engines/speech/encoders.js';
import { TRANSCRIPTION_SAMPLE_RATE } from '../engines/transcription/types.js';

/** Encodings of the API (reference §5.3). */
export const REALTIME_ENCODINGS = ['pcm_s16le', 'pcm_s32le', 'pcm_f16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw'] as const satisfies readonly RealtimeAudioEncoding[];
/** Sample rates a session may declare. */
export const REALTIME_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
/** What a session starts with (the docs' format). */
export const DEFAULT_REALTIME_FORMAT: RealtimeAudioFormat = { encoding: 'pcm_s16le', sample_rate: TRANSCRIPTION_SAMPLE_RATE };

const BYTES_PER_SAMPLE: Record<RealtimeAudioEncoding, number> = {
  pcm_s16le: 2, pcm_s32le: 4, pcm_f16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1,
};

/** G.711 μ-law byte → linear, in [-1, 1). */
function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
  return (u & 0x80 ? -magnitude : magnitude) / 32768;
}

/** G.711 A-law byte → linear, in [-1, 1). */
function alawToLinear(byte: number): number {
  const a = byte ^ 0x55;
  const exponent = (a >> 4) & 7;
  const mantissa = (a & 0x0f) << 4;
  const magnitude = exponent === 0 ? mantissa + 8 : (mantissa + 0x108) << (exponent - 1);
  return (a & 0x80 ? magnitude : -magnitude) / 32768;
}

const table = (f: (b: number) => number) => Float32Array.from({ length: 256 }, (_, b) => f(b));
const MULAW = table(mulawToLinear);
const ALAW = table(alawToLinear);

/** IEEE 754 half precision (binary16) → number. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function toFloat(bytes: Uint8Array, encoding: RealtimeAudioEncoding): Float32Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length / BYTES_PER_SAMPLE[encoding];
  const out = new Float32Array(n);
  switch (encoding) {
    case 'pcm_s16le': for (let i = 0; i < n; i++) out[i] = v.getInt16(i * 2, true) / 32768; break;
    case 'pcm_s32le': for (let i = 0; i < n; i++) out[i] = v.getInt32(i * 4, true) / 2147483648; break;
    case 'pcm_f16le': for (let i = 0; i < n; i++) out[i] = halfToFloat(v.getUint16(i * 2, true)); break;
    case 'pcm_f32le': for (let i = 0; i < n; i++) out[i] = v.getFloat32(i * 4, true); break;
    case 'pcm_mulaw': for (let i = 0; i < n; i++) out[i] = MULAW[bytes[i]]; break;
    case 'pcm_alaw': for (let i = 0; i < n; i++) out[i] = ALAW[bytes[i]]; break;
  }
  // Clamped before resampling, so one NaN or infinite sample does not spread over its neighbours.
  if (encoding === 'pcm_f16le' || encoding === 'pcm_f32le') {
    for (let i = 0; i < n; i++) out[i] = Number.isNaN(out[i]) ? 0 : Math.max(-1, Math.min(1, out[i]));
  }
  return out;
}

/** Converts one session's byte stream of `format` into mono s16 at the engine rate, chunk by chunk. */
export class RealtimeAudioDecoder {
  private readonly frameBytes: number;
  private readonly resampler: Resampler | undefined;
  private partial = new Uint8Array(0);
  /** Samples received, at the session's rate. */
  private samples = 0;

  constructor(readonly format: RealtimeAudioFormat) {
    this.frameBytes = BYTES_PER_SAMPLE[format.encoding];
    this.resampler = format.sample_rate === TRANSCRIPTION_SAMPLE_RATE ? undefined : new Resampler(format.sample_rate, TRANSCRIPTION_SAMPLE_RATE);
  }

  /** Seconds of audio received so far. */
  get seconds(): number {
    return this.samples / this.format.sample_rate;
  }

  /** The engine PCM for these bytes (empty while less than one frame has arrived). */
  push(bytes: Uint8Array): Int16Array {
    let data = bytes;
    if (this.partial.length) {
      data = new Uint8Array(this.partial.length + bytes.length);
      data.set(this.partial);
      data.set(bytes, this.partial.length);
    }
    const whole = data.length - (data.length % this.frameBytes);
    this.partial = data.slice(whole);
    if (!whole) return new Int16Array(0);
    const frames = data.subarray(0, whole);
    this.samples += whole / this.frameBytes;
    if (this.format.encoding === 'pcm_s16le' && !this.resampler) {
      // A real copy: aligned, and the socket reuses its buffer (a Node Buffer's slice() is only a view of a shared pool).
      return new Int16Array(new Uint8Array(frames).buffer);
    }
    const float = toFloat(frames, this.format.encoding);
    return floatToInt16(this.resampler ? this.resampler.push(float) : float);
  }

  /** The resampler's last samples, at the end of the audio. */
  end(): Int16Array {
    return this.resampler ? floatToInt16(this.resampler.flush()) : new Int16Array(0);
  }
}
