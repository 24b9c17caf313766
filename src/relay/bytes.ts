/** Byte helpers shared by the relay's stream readers (runtime-neutral: plain `Uint8Array`s). */

/** `a` followed by `b`, in a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `chunks` (of `length` bytes in all) as one array; a single chunk is returned as it is. */
export function joinBytes(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
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
