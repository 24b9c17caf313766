/**
 * Byte helpers shared by the relay's stream readers, and its random ids (runtime-neutral: plain
 * `Uint8Array`s and Web Crypto).
 */
import { joinChunks } from '../server/read-capped.js';

/** `a` followed by `b`, in a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * `chunks` as one array (`length`: their bytes in all, when known); a single chunk is returned as it is,
 * more are joined by the server floor's {@link joinChunks} (the same join as `readCapped`'s).
 */
export function joinBytes(chunks: Uint8Array[], length = byteLengthOf(chunks)): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : joinChunks(chunks, length);
}

function byteLengthOf(chunks: Uint8Array[]): number {
  let length = 0;
  for (const c of chunks) length += c.length;
  return length;
}

/** First index of `needle` (non-empty) in `bytes` at or after `from`, or -1. */
export function indexOfBytes(bytes: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = bytes.length - needle.length;
  for (let i = bytes.indexOf(first, from); i !== -1 && i <= last; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** A random url-safe id of `bytes` random bytes (Web Crypto, so it runs on any runtime). */
export function randomId(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let s = '';
  for (const b of buf) s += b.toString(16).padStart(2, '0');
  return s;
}
