/**
 * A WAV file read as it streams: the RIFF header first (which may itself arrive in pieces), then the
 * PCM of the `data` chunk turned into mono float samples fragment by fragment. Integer PCM (8, 16,
 * 24, 32 bit) and IEEE float (32, 64 bit), plain or WAVE_FORMAT_EXTENSIBLE; channels are mixed to mono.
 */

/** The `fmt ` chunk of a WAV file. */
export interface WavFormat {
  /** 1 = integer PCM, 3 = IEEE float (an extensible header is resolved to one of these). */
  audioFormat: 1 | 3;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per frame (all channels of one sample instant). */
  blockAlign: number;
}

/** Where the header ended: the format, and the offset of the first PCM byte. */
export interface WavHeader {
  format: WavFormat;
  dataOffset: number;
  /** Declared size of the `data` chunk; null when unknown (0 or 0xFFFFFFFF: a streamed file). */
  dataBytes: number | null;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

function fourcc(view: DataView, offset: number): string {
  return String.fromCharCode(view.getUint8(offset), view.getUint8(offset + 1), view.getUint8(offset + 2), view.getUint8(offset + 3));
}

/**
 * Parses a WAV header from the bytes received so far. Returns null while more bytes are needed;
 * throws on something that is not a WAV file or a format this reader does not handle.
 */
export function parseWavHeader(bytes: Uint8Array): WavHeader | null {
  if (bytes.length < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (fourcc(view, 0) !== 'RIFF' || fourcc(view, 8) !== 'WAVE') throw new Error('Not a WAV file (no RIFF/WAVE header)');
  let offset = 12;
  let format: WavFormat | null = null;
  while (offset + 8 <= bytes.length) {
    const id = fourcc(view, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'data') {
      if (!format) throw new Error('WAV data chunk before its fmt chunk');
      return { format, dataOffset: body, dataBytes: size === 0 || size === 0xffffffff ? null : size };
    }
    if (body + size > bytes.length) return null; // this chunk is not complete yet
    if (id === 'fmt ') format = readFormat(view, body, size);
    offset = body + size + (size & 1); // chunks are padded to an even length
  }
  return null;
}

function readFormat(view: DataView, offset: number, size: number): WavFormat {
  if (size < 16) throw new Error('WAV fmt chunk too short');
  let tag = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bitsPerSample = view.getUint16(offset + 14, true);
  // Extensible: the real format is the first two bytes of the sub-format GUID.
  if (tag === WAVE_FORMAT_EXTENSIBLE && size >= 26) tag = view.getUint16(offset + 24, true);
  const ok = channels > 0 && sampleRate > 0 && blockAlign === channels * (bitsPerSample / 8)
    && ((tag === WAVE_FORMAT_PCM && [8, 16, 24, 32].includes(bitsPerSample))
      || (tag === WAVE_FORMAT_IEEE_FLOAT && (bitsPerSample === 32 || bitsPerSample === 64)));
  if (!ok) throw new Error(`Unsupported WAV format (tag ${tag}, ${bitsPerSample} bit, ${channels} channels)`);
  return { audioFormat: tag as 1 | 3, channels, sampleRate, bitsPerSample, blockAlign };
}

/** Reads one sample of `format` at `offset` as a float in [-1, 1]. */
function readSample(view: DataView, offset: number, format: WavFormat): number {
  if (format.audioFormat === WAVE_FORMAT_IEEE_FLOAT) {
    return format.bitsPerSample === 32 ? view.getFloat32(offset, true) : view.getFloat64(offset, true);
  }
  switch (format.bitsPerSample) {
    case 8: return (view.getUint8(offset) - 128) / 128;
    case 16: return view.getInt16(offset, true) / 32768;
    case 24: {
      const v = view.getUint8(offset) | (view.getUint8(offset + 1) << 8) | (view.getInt8(offset + 2) << 16);
      return v / 8388608;
    }
    default: return view.getInt32(offset, true) / 2147483648;
  }
}

/** Converts whole frames of PCM bytes to mono floats (channels averaged). */
export function wavFramesToMono(bytes: Uint8Array, format: WavFormat): Float32Array {
  const frames = Math.floor(bytes.length / format.blockAlign);
  const out = new Float32Array(frames);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = format.bitsPerSample / 8;
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    const base = f * format.blockAlign;
    for (let c = 0; c < format.channels; c++) sum += readSample(view, base + c * width, format);
    out[f] = sum / format.channels;
  }
  return out;
}

/** A streamed WAV file: push fragments, get mono samples as soon as whole frames are in. */
export class WavStreamDecoder {
  #pending: Uint8Array = new Uint8Array(0);
  #header: WavHeader | null = null;
  #dataLeft = Infinity;

  /** The header, once it has been read. */
  get header(): WavHeader | null {
    return this.#header;
  }

  /** Sample rate of the file; null until the header is read. */
  get sampleRate(): number | null {
    return this.#header?.format.sampleRate ?? null;
  }

  /** Mono samples completed by `bytes` (empty while the header is incomplete). */
  push(bytes: Uint8Array): Float32Array {
    let buffer = concat(this.#pending, bytes);
    if (!this.#header) {
      const header = parseWavHeader(buffer);
      if (!header) {
        this.#pending = buffer;
        return new Float32Array(0);
      }
      this.#header = header;
      this.#dataLeft = header.dataBytes ?? Infinity;
      buffer = buffer.subarray(header.dataOffset);
    }
    // Bytes after the data chunk (LIST chunks and the like) are not audio.
    if (buffer.length > this.#dataLeft) buffer = buffer.subarray(0, this.#dataLeft);
    const { blockAlign } = this.#header.format;
    const whole = buffer.length - (buffer.length % blockAlign);
    const samples = wavFramesToMono(buffer.subarray(0, whole), this.#header.format);
    this.#dataLeft -= whole;
    this.#pending = buffer.slice(whole);
    return samples;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
