/**
 * A small streaming FLAC encoder (our own, MIT like the project): mono, 16-bit, fixed block size,
 * per block the cheapest of CONSTANT, VERBATIM or FIXED prediction orders 0–4 with Rice-coded residuals
 * (partition order 0, best parameter searched). Lossless; typically 40–60 % of WAV size for speech.
 *
 * Stream header: "fLaC" + STREAMINFO (last metadata block). Streamed output leaves total samples and MD5
 * at 0, which the format defines as "unknown"; `finalize` fills both in for whole files.
 */
import { createHash } from 'node:crypto';
import { concat } from './ogg-opus.js';

export const FLAC_BLOCK_SIZE = 2048;

class BitWriter {
  private bytes = new Uint8Array(8192);
  private length = 0;
  private acc = 0; // pending bits (fewer than 8), right-aligned
  private accBits = 0;

  write(value: number, bits: number): void {
    // Split writes wider than 24 bits so the accumulator stays inside 32-bit integer maths.
    if (bits > 24) {
      this.write(Math.floor(value / 2 ** 24), bits - 24);
      this.write(value % 2 ** 24, 24);
      return;
    }
    this.acc = (this.acc << bits) | (value & ((1 << bits) - 1));
    this.accBits += bits;
    while (this.accBits >= 8) {
      this.accBits -= 8;
      this.byte((this.acc >>> this.accBits) & 0xff);
    }
    this.acc &= (1 << this.accBits) - 1;
  }

  /** `q` zero bits then a one bit. */
  unary(q: number): void {
    while (q >= 24) { this.write(0, 24); q -= 24; }
    this.write(1, q + 1);
  }

  alignToByte(): void {
    if (this.accBits) this.write(0, 8 - this.accBits);
  }

  private byte(b: number): void {
    if (this.length === this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes[this.length++] = b;
  }

  get byteLength(): number { return this.length; }
  view(from = 0): Uint8Array { return this.bytes.subarray(from, this.length); }
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

const CRC8 = new Uint8Array(256);
const CRC16 = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c8 = i;
  for (let j = 0; j < 8; j++) c8 = c8 & 0x80 ? ((c8 << 1) ^ 0x07) & 0xff : (c8 << 1) & 0xff;
  CRC8[i] = c8;
  let c16 = i << 8;
  for (let j = 0; j < 8; j++) c16 = c16 & 0x8000 ? ((c16 << 1) ^ 0x8005) & 0xffff : (c16 << 1) & 0xffff;
  CRC16[i] = c16;
}
const crc8 = (b: Uint8Array) => b.reduce((c, x) => CRC8[c ^ x], 0);
const crc16 = (b: Uint8Array) => b.reduce((c, x) => ((c << 8) & 0xffff) ^ CRC16[(c >> 8) ^ x], 0);

const SAMPLE_RATE_CODES: Record<number, number> = { 8000: 4, 16000: 5, 22050: 6, 24000: 7, 32000: 8, 44100: 9, 48000: 10, 96000: 11 };

export class FlacEncoder {
  private pending = new Int16Array(0);
  private frameNumber = 0;
  private totalSamples = 0;
  private started = false;
  private readonly md5 = createHash('md5');

  constructor(private readonly sampleRate: number, private readonly blockSize = FLAC_BLOCK_SIZE) {}

  push(samples: Int16Array): Uint8Array {
    const parts: Uint8Array[] = [];
    if (!this.started) parts.push(this.streamHeader());
    const all = new Int16Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    let at = 0;
    while (all.length - at >= this.blockSize) {
      parts.push(this.frame(all.subarray(at, at + this.blockSize)));
      at += this.blockSize;
    }
    this.pending = all.slice(at);
    return concat(parts);
  }

  end(): Uint8Array {
    const parts: Uint8Array[] = [];
    if (!this.started) parts.push(this.streamHeader());
    if (this.pending.length) parts.push(this.frame(this.pending));
    this.pending = new Int16Array(0);
    return concat(parts);
  }

  /** Fills STREAMINFO's total sample count and MD5 in a whole file produced by this encoder. */
  finalize(file: Uint8Array): Uint8Array {
    // STREAMINFO body starts at byte 8; total samples are its bits 108..143 (36 bits), MD5 bytes 18..33.
    const info = 8;
    const total = this.totalSamples;
    file[info + 13] = (file[info + 13] & 0xf0) | (Math.floor(total / 2 ** 32) & 0x0f);
    new DataView(file.buffer, file.byteOffset).setUint32(info + 14, total >>> 0, false);
    file.set(this.md5.digest(), info + 18);
    return file;
  }

  private streamHeader(): Uint8Array {
    this.started = true;
    const w = new BitWriter();
    for (const c of 'fLaC') w.write(c.charCodeAt(0), 8);
    w.write(1, 1); // last metadata block
    w.write(0, 7); // STREAMINFO
    w.write(34, 24);
    w.write(this.blockSize, 16); // min block size
    w.write(this.blockSize, 16); // max block size
    w.write(0, 24); // min frame size: unknown
    w.write(0, 24); // max frame size: unknown
    w.write(this.sampleRate, 20);
    w.write(0, 3); // channels - 1
    w.write(15, 5); // bits per sample - 1
    w.write(0, 36); // total samples: unknown (streamed)
    for (let i = 0; i < 16; i++) w.write(0, 8); // MD5: unknown
    return w.take();
  }

  private frame(block: Int16Array): Uint8Array {
    const n = block.length;
    this.totalSamples += n;
    this.md5.update(new Uint8Array(block.buffer, block.byteOffset, block.byteLength)); // little-endian host
    const w = new BitWriter();
    w.write(0b11111111111110, 14);
    w.write(0, 1); // reserved
    w.write(0, 1); // fixed block size
    const sizeCode = n === this.blockSize && [256, 512, 1024, 2048, 4096, 8192, 16384, 32768].includes(n) ? 8 + Math.log2(n / 256) : 7;
    w.write(sizeCode, 4);
    const rateCode = SAMPLE_RATE_CODES[this.sampleRate] ?? 0;
    w.write(rateCode, 4);
    w.write(0, 4); // mono
    w.write(0b100, 3); // 16 bits per sample
    w.write(0, 1);
    for (const b of utf8Number(this.frameNumber++)) w.write(b, 8);
    if (sizeCode === 7) w.write(n - 1, 16);
    w.write(crc8(w.view()), 8);
    this.subframe(w, block);
    w.alignToByte();
    w.write(crc16(w.view()), 16);
    return w.take();
  }

  private subframe(w: BitWriter, x: Int16Array): void {
    const n = x.length;
    let constant = true;
    for (let i = 1; i < n && constant; i++) constant = x[i] === x[0];
    if (constant) {
      w.write(0, 1); w.write(0b000000, 6); w.write(0, 1);
      w.write(x[0] & 0xffff, 16);
      return;
    }
    // Residuals of every fixed order, pick the order and Rice parameter with the fewest bits.
    let best: { order: number; k: number; bits: number; residual: Int32Array } | undefined;
    for (let order = 0; order <= 4 && order < n; order++) {
      const residual = new Int32Array(n - order);
      for (let i = order; i < n; i++) {
        let p = 0;
        switch (order) {
          case 1: p = x[i - 1]; break;
          case 2: p = 2 * x[i - 1] - x[i - 2]; break;
          case 3: p = 3 * x[i - 1] - 3 * x[i - 2] + x[i - 3]; break;
          case 4: p = 4 * x[i - 1] - 6 * x[i - 2] + 4 * x[i - 3] - x[i - 4]; break;
        }
        residual[i - order] = x[i] - p;
      }
      const { k, bits } = bestRice(residual);
      const total = order * 16 + 6 + 4 + bits;
      if (!best || total < best.bits) best = { order, k, bits: total, residual };
    }
    if (!best || best.bits >= n * 16) {
      w.write(0, 1); w.write(0b000001, 6); w.write(0, 1);
      for (let i = 0; i < n; i++) w.write(x[i] & 0xffff, 16);
      return;
    }
    w.write(0, 1); w.write(0b001000 | best.order, 6); w.write(0, 1);
    for (let i = 0; i < best.order; i++) w.write(x[i] & 0xffff, 16);
    w.write(0, 2); // Rice, 4-bit parameters
    w.write(0, 4); // partition order 0
    w.write(best.k, 4);
    const k = best.k;
    const mask = (1 << k) - 1;
    for (const r of best.residual) {
      const u = r >= 0 ? r * 2 : -r * 2 - 1;
      w.unary(u >>> k);
      if (k) w.write(u & mask, k);
    }
  }
}

/** Rice parameter 0..14 minimising the coded size of the residuals (bits excluding the 4-bit parameter). */
function bestRice(residual: Int32Array): { k: number; bits: number } {
  let best = { k: 0, bits: Infinity };
  let sum = 0;
  for (const r of residual) sum += r >= 0 ? r * 2 : -r * 2 - 1;
  const mean = sum / Math.max(1, residual.length);
  const guess = Math.max(0, Math.min(14, Math.floor(Math.log2(Math.max(1, mean)))));
  for (let k = Math.max(0, guess - 1); k <= Math.min(14, guess + 1); k++) {
    let bits = 0;
    for (const r of residual) {
      const u = r >= 0 ? r * 2 : -r * 2 - 1;
      bits += (u >>> k) + 1 + k;
    }
    if (bits < best.bits) best = { k, bits };
  }
  return best;
}

/** FLAC's UTF-8-like coding of the frame number. */
function utf8Number(v: number): number[] {
  if (v < 0x80) return [v];
  const bytes: number[] = [];
  let len = 2;
  while (v >= 2 ** (5 * len + 1)) len++;
  for (let i = len - 1; i > 0; i--) {
    bytes.unshift(0x80 | (v & 0x3f));
    v = Math.floor(v / 64);
  }
  bytes.unshift(((0xff << (8 - len)) & 0xff) | v);
  return bytes;
}
