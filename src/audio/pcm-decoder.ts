/**
 * Raw `pcm` speech (float32 little-endian, mono, 24 kHz, no header) read fragment by fragment.
 * Fragments are cut anywhere (base64 deltas do not respect sample boundaries), so the 0–3 bytes of
 * a split sample are kept for the next fragment.
 */

/** Sample rate of the platform's `pcm` format. */
export const PCM_SAMPLE_RATE = 24_000;

const littleEndianHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Reads float32 LE samples from byte fragments of any length. */
export class Float32PcmDecoder {
  #carry = new Uint8Array(4);
  #carried = 0;

  /** The whole samples that `bytes` completes (possibly none). */
  push(bytes: Uint8Array): Float32Array {
    const total = this.#carried + bytes.length;
    const count = Math.floor(total / 4);
    const out = new Float32Array(count);
    if (count > 0) {
      // Join the carried bytes with the head of this fragment, then read aligned.
      const joined = new Uint8Array(count * 4);
      joined.set(this.#carry.subarray(0, this.#carried), 0);
      joined.set(bytes.subarray(0, count * 4 - this.#carried), this.#carried);
      if (littleEndianHost) {
        out.set(new Float32Array(joined.buffer, 0, count));
      } else {
        const view = new DataView(joined.buffer);
        for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
      }
    }
    const rest = total - count * 4;
    // The bytes left over are the tail of `bytes` (or of the carry, when `bytes` was tiny).
    const tail = new Uint8Array(rest);
    if (bytes.length >= rest) tail.set(bytes.subarray(bytes.length - rest));
    else {
      tail.set(this.#carry.subarray(this.#carried - (rest - bytes.length), this.#carried), 0);
      tail.set(bytes, rest - bytes.length);
    }
    this.#carry.set(tail, 0);
    this.#carried = rest;
    return out;
  }

  /** Bytes of an unfinished sample still held (0 when the stream ended on a sample boundary). */
  get pendingBytes(): number {
    return this.#carried;
  }
}
