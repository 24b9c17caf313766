/**
 * Audio encoders for `POST /v1/audio/speech`, all streaming: `push` takes mono float32 at 24 kHz and
 * returns the bytes that are ready (possibly none), `end` returns the rest. Concatenating every
 * returned chunk gives a valid file. For non-streamed answers `finalize` patches the header of the
 * whole file with what only the end knows (WAV sizes, FLAC sample count and MD5).
 *
 * | format | encoding | library (licence) |
 * |---|---|---|
 * | pcm  | raw float32 little-endian, 24 kHz mono, no header | none |
 * | wav  | RIFF/WAVE, 16-bit PCM, 24 kHz mono; streamed: RIFF and data sizes 0xFFFFFFFF ("unknown") | none |
 * | mp3  | MPEG-2 Layer III, 24 kHz mono, 64 kbit/s CBR | @breezystack/lamejs (LGPL-3.0, pure JS) |
 * | opus | Ogg Opus (RFC 7845), 24 kHz input rate, 20 ms frames, 32 kbit/s VOIP | opusscript (MIT; libopus BSD, wasm) + our Ogg page writer |
 * | flac | FLAC 16-bit, 24 kHz mono, fixed 2048-sample blocks, fixed predictors + Rice; streamed: STREAMINFO total samples 0 ("unknown") | our encoder (flac.ts) |
 */
import { createRequire } from 'node:module';
import type { SpeechFormat } from './types.js';
import { SPEECH_SAMPLE_RATE } from './types.js';
import { FlacEncoder } from './flac.js';
import { OggOpusWriter, type OpusFrameEncoder } from './ogg-opus.js';

export interface AudioEncoder {
  readonly contentType: string;
  push(samples: Float32Array): Uint8Array;
  end(): Uint8Array;
  /** Patches a whole file (header fields only the end knows); streamed files keep their "unknown" markers. */
  finalize(file: Uint8Array): Uint8Array;
}

const EMPTY = new Uint8Array(0);

export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    out[i] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32767);
  }
  return out;
}

class PcmEncoder implements AudioEncoder {
  readonly contentType = 'audio/pcm';
  push(samples: Float32Array): Uint8Array {
    const out = new Uint8Array(samples.length * 4);
    const view = new DataView(out.buffer);
    for (let i = 0; i < samples.length; i++) view.setFloat32(i * 4, samples[i], true);
    return out;
  }
  end(): Uint8Array { return EMPTY; }
  finalize(file: Uint8Array): Uint8Array { return file; }
}

export const WAV_HEADER_BYTES = 44;

class WavEncoder implements AudioEncoder {
  readonly contentType = 'audio/wav';
  private started = false;
  push(samples: Float32Array): Uint8Array {
    const header = this.started ? 0 : WAV_HEADER_BYTES;
    const out = new Uint8Array(header + samples.length * 2);
    const view = new DataView(out.buffer);
    if (!this.started) {
      writeWavHeader(view, 0xffffffff);
      this.started = true;
    }
    const pcm = floatToInt16(samples);
    for (let i = 0; i < pcm.length; i++) view.setInt16(header + i * 2, pcm[i], true);
    return out;
  }
  end(): Uint8Array {
    if (this.started) return EMPTY;
    return this.push(new Float32Array(0));
  }
  finalize(file: Uint8Array): Uint8Array {
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const dataBytes = file.byteLength - WAV_HEADER_BYTES;
    view.setUint32(4, 36 + dataBytes, true);
    view.setUint32(40, dataBytes, true);
    return file;
  }
}

function writeWavHeader(view: DataView, dataBytes: number): void {
  const ascii = (at: number, s: string) => { for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i)); };
  ascii(0, 'RIFF');
  view.setUint32(4, dataBytes === 0xffffffff ? 0xffffffff : 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, SPEECH_SAMPLE_RATE, true);
  view.setUint32(28, SPEECH_SAMPLE_RATE * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
}

interface LameModule { Mp3Encoder: new (channels: number, rate: number, kbps: number) => { encodeBuffer(left: Int16Array): Uint8Array; flush(): Uint8Array } }
let lame: Promise<LameModule> | undefined;

class Mp3Encoder implements AudioEncoder {
  readonly contentType = 'audio/mpeg';
  private readonly encoder;
  constructor(mod: LameModule) {
    this.encoder = new mod.Mp3Encoder(1, SPEECH_SAMPLE_RATE, 64);
  }
  push(samples: Float32Array): Uint8Array {
    // lamejs works best fed in multiples of its 576-sample granule; it buffers internally either way.
    return copy(this.encoder.encodeBuffer(floatToInt16(samples)));
  }
  end(): Uint8Array { return copy(this.encoder.flush()); }
  finalize(file: Uint8Array): Uint8Array { return file; }
}

const copy = (u: Uint8Array) => (u.length ? new Uint8Array(u) : EMPTY);

const require = createRequire(import.meta.url);
type OpusScriptCtor = new (rate: number, channels: number, application: number) => {
  encode(pcm: Buffer, frameSize: number): Uint8Array;
  setBitrate(bitrate: number): void;
  delete(): void;
};

function opusFrameEncoder(): OpusFrameEncoder {
  const OpusScript = require('opusscript') as OpusScriptCtor & { Application: { VOIP: number } };
  const enc = new OpusScript(SPEECH_SAMPLE_RATE, 1, OpusScript.Application.VOIP);
  enc.setBitrate(32_000);
  return {
    // opusscript wants the frame as bytes (int16 little-endian in a Buffer); an Int16Array is misread.
    encode: (frame: Int16Array) => new Uint8Array(enc.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), frame.length)),
    close: () => enc.delete(),
  };
}

class OpusEncoder implements AudioEncoder {
  readonly contentType = 'audio/ogg';
  private readonly writer = new OggOpusWriter(opusFrameEncoder(), SPEECH_SAMPLE_RATE);
  push(samples: Float32Array): Uint8Array { return this.writer.push(floatToInt16(samples)); }
  end(): Uint8Array { return this.writer.end(); }
  finalize(file: Uint8Array): Uint8Array { return file; }
}

class FlacStreamEncoder implements AudioEncoder {
  readonly contentType = 'audio/flac';
  private readonly flac = new FlacEncoder(SPEECH_SAMPLE_RATE);
  push(samples: Float32Array): Uint8Array { return this.flac.push(floatToInt16(samples)); }
  end(): Uint8Array { return this.flac.end(); }
  finalize(file: Uint8Array): Uint8Array { return this.flac.finalize(file); }
}

/** Creates the encoder for a format (loads its library on first use). */
export async function createEncoder(format: SpeechFormat): Promise<AudioEncoder> {
  switch (format) {
    case 'pcm': return new PcmEncoder();
    case 'wav': return new WavEncoder();
    case 'mp3': {
      lame ??= import('@breezystack/lamejs') as unknown as Promise<LameModule>;
      return new Mp3Encoder(await lame);
    }
    case 'opus': return new OpusEncoder();
    case 'flac': return new FlacStreamEncoder();
  }
}
