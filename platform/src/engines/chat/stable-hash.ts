/**
 * Deterministic stand-ins for randomness in `parley-local`: ids and wording choices derived from a hash of what
 * was said, so the same request always gets the same answer.
 */

function hash32(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // final avalanche so that similar inputs give unrelated ids
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A deterministic alphanumeric id of `length` characters derived from `key`. */
export function shortId(key: string, length = 9): string {
  let state = hash32(key, 0x9e3779b9);
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += ALPHANUM[((t ^ (t >>> 14)) >>> 0) % ALPHANUM.length];
  }
  return out;
}

/** One of `options`, chosen by the hash of `key` and by `seed`. */
export function pick<T>(options: readonly T[], key: string, seed: number): T {
  const i = (hash32(key) + Math.abs(Math.trunc(seed))) % options.length;
  return options[i];
}
