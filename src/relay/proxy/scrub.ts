/**
 * Scrubbing the upstream key out of passed-through bytes (JSON and binary bodies, SSE data), and out of
 * whole texts ({@link scrubKey}: headers, bodies read whole, realtime messages). The key may be split
 * across chunks, so a scrubber holds back only the longest end of a chunk that is a beginning of the key,
 * and lets everything else through at once: an SSE event ends in `\n\n`, which no key begins with, so
 * events are never delayed in practice.
 */
import { concatBytes, indexOfBytes } from '../bytes.js';

/** The text written in place of the key. */
export const REDACTED = '[redacted]';

const encoder = new TextEncoder();
const REDACTED_BYTES = encoder.encode(REDACTED);
const EMPTY = new Uint8Array(0);

/** Replaces the key in a text (a header value, a body read whole, a realtime message). */
export function scrubKey(text: string, apiKey: string): string {
  return apiKey && text.includes(apiKey) ? text.split(apiKey).join(REDACTED) : text;
}

/** A streaming scrubber: `push` each chunk in order, then `flush` once at the end. */
export interface KeyScrubber {
  /** The bytes that may be passed on now (possibly empty, possibly `chunk` itself). */
  push(chunk: Uint8Array): Uint8Array;
  /** The bytes held back at the end of the stream (never the key). */
  flush(): Uint8Array;
}

/** A scrubber for `key` (UTF-8); an empty key passes everything unchanged. */
export function createKeyScrubber(key: string): KeyScrubber {
  const needle = encoder.encode(key);
  if (!needle.length) return { push: (chunk) => chunk, flush: () => EMPTY };
  let held = EMPTY;
  return {
    push(chunk) {
      const bytes = held.length ? concatBytes(held, chunk) : chunk;
      const matches = findAll(bytes, needle);
      const keep = heldSuffix(bytes, needle, matches.length ? matches[matches.length - 1]! + needle.length : 0);
      held = keep ? bytes.slice(bytes.length - keep) : EMPTY;
      const end = bytes.length - keep;
      if (!matches.length) return end === bytes.length ? bytes : bytes.subarray(0, end);
      return replaceAll(bytes.subarray(0, end), matches, needle.length);
    },
    flush() {
      const rest = held;
      held = EMPTY;
      return rest;
    },
  };
}

/** Start offsets of every non-overlapping occurrence of `needle` in `bytes`. */
function findAll(bytes: Uint8Array, needle: Uint8Array): number[] {
  const found: number[] = [];
  for (let i = indexOfBytes(bytes, needle); i !== -1; i = indexOfBytes(bytes, needle, i + needle.length)) found.push(i);
  return found;
}

/**
 * How many bytes at the end of `bytes` (not before `from`) are a proper beginning of `needle`: the
 * longest such end, which a following chunk could complete into the key.
 */
function heldSuffix(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  const longest = Math.min(needle.length - 1, bytes.length - from);
  for (let n = longest; n > 0; n--) {
    if (startsWithAt(bytes, needle, bytes.length - n, n)) return n;
  }
  return 0;
}

/** Whether `bytes` at `at` holds the first `n` bytes of `needle`. */
function startsWithAt(bytes: Uint8Array, needle: Uint8Array, at: number, n: number): boolean {
  for (let j = 0; j < n; j++) if (bytes[at + j] !== needle[j]) return false;
  return true;
}

/** `bytes` with each match (all inside `bytes`) replaced by {@link REDACTED}. */
function replaceAll(bytes: Uint8Array, matches: number[], length: number): Uint8Array {
  const out = new Uint8Array(bytes.length + matches.length * (REDACTED_BYTES.length - length));
  let from = 0;
  let to = 0;
  for (const at of matches) {
    out.set(bytes.subarray(from, at), to);
    to += at - from;
    out.set(REDACTED_BYTES, to);
    to += REDACTED_BYTES.length;
    from = at + length;
  }
  out.set(bytes.subarray(from), to);
  return out;
}
