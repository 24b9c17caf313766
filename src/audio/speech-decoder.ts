/**
 * Turns the bytes of a speech stream into mono samples, per format: `pcm` and `wav` as they arrive;
 * compressed formats (`mp3`, `flac`, `opus`) through the browser's decoder once the file is complete
 * (a partial mp3/ogg cannot be decoded reliably by `decodeAudioData`).
 */
import type { SpeechFormat } from '../client/contracts.js';
import { Float32PcmDecoder, PCM_SAMPLE_RATE } from './pcm-decoder.js';
import { WavStreamDecoder } from './wav-decoder.js';

/** Decoded audio: mono samples and their rate. */
export interface DecodedAudio {
  samples: Float32Array;
  sampleRate: number;
}

/** Decodes a whole compressed file (e.g. `context.decodeAudioData`). */
export type DecodeFile = (file: ArrayBuffer) => Promise<{ numberOfChannels: number; sampleRate: number; length: number; getChannelData(channel: number): Float32Array }>;

/** One stream's decoder. */
export interface SpeechDecoder {
  /** Samples ready after `bytes` (null when none yet). */
  push(bytes: Uint8Array): DecodedAudio | null;
  /** What is left once the stream ended (the whole file, for compressed formats). */
  end(): Promise<DecodedAudio | null>;
  /** Whether audio comes out while the stream is still arriving. */
  readonly progressive: boolean;
}

/** A decoder for `format`; `decodeFile` is only used by compressed formats. */
export function createSpeechDecoder(format: SpeechFormat, decodeFile: DecodeFile): SpeechDecoder {
  if (format === 'pcm') {
    const pcm = new Float32PcmDecoder();
    return {
      progressive: true,
      push: (bytes) => nonEmpty(pcm.push(bytes), PCM_SAMPLE_RATE),
      end: async () => null,
    };
  }
  if (format === 'wav') {
    const wav = new WavStreamDecoder();
    return {
      progressive: true,
      push: (bytes) => nonEmpty(wav.push(bytes), wav.sampleRate ?? PCM_SAMPLE_RATE),
      end: async () => null,
    };
  }
  const parts: Uint8Array[] = [];
  return {
    progressive: false,
    push: (bytes) => {
      parts.push(bytes);
      return null;
    },
    end: async () => {
      const size = parts.reduce((n, p) => n + p.length, 0);
      if (!size) return null;
      const file = new Uint8Array(size);
      let offset = 0;
      for (const p of parts) {
        file.set(p, offset);
        offset += p.length;
      }
      const decoded = await decodeFile(file.buffer);
      return nonEmpty(mixToMono(decoded), decoded.sampleRate);
    },
  };
}

function nonEmpty(samples: Float32Array, sampleRate: number): DecodedAudio | null {
  return samples.length ? { samples, sampleRate } : null;
}

function mixToMono(buffer: { numberOfChannels: number; length: number; getChannelData(channel: number): Float32Array }): Float32Array {
  if (buffer.numberOfChannels === 1) return buffer.getChannelData(0).slice();
  const out = new Float32Array(buffer.length);
  for (let c = 0; c < buffer.numberOfChannels; c++) {
    const data = buffer.getChannelData(c);
    for (let i = 0; i < out.length; i++) out[i] += data[i] / buffer.numberOfChannels;
  }
  return out;
}
