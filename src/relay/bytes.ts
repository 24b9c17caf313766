/** Byte helpers shared by the relay's stream readers (runtime-neutral: plain `Uint8Array`s). */

/** `a` followed by `b`, in a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
