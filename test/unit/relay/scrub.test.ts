import { describe, expect, it } from 'vitest';
import { REDACTED, createKeyScrubber } from '../../../src/relay/proxy/scrub.js';

const KEY = 'sk-upstream-SECRET-4f9a2c7e1b';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Runs `chunks` through a fresh scrubber; returns what passed, chunk by chunk, and the flush. */
function scrubAll(key: string, chunks: string[]): { out: string; pieces: string[] } {
  const scrubber = createKeyScrubber(key);
  const pieces = chunks.map((c) => decoder.decode(scrubber.push(encoder.encode(c))));
  pieces.push(decoder.decode(scrubber.flush()));
  return { out: pieces.join(''), pieces };
}

/** Every way to cut `text` into two pieces, and into three. */
function* splits(text: string): Generator<string[]> {
  for (let i = 0; i <= text.length; i++) {
    yield [text.slice(0, i), text.slice(i)];
    for (let j = i; j <= text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
  }
}

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the streaming key scrubber', () => {
  it('replaces the key wherever it is cut: every split into two and three chunks', () => {
    const text = `{"echo":"Bearer ${KEY}","again":"${KEY}${KEY}","near":"sk-upstream-SECRE"}`;
    const expected = text.split(KEY).join(REDACTED);
    let cases = 0;
    for (const chunks of splits(text)) {
      const { out } = scrubAll(KEY, chunks);
      expect(out, JSON.stringify(chunks)).toBe(expected);
      expect(out).not.toContain(KEY);
      cases++;
    }
    expect(cases).toBeGreaterThan(5000);
  });

  it('matches split/join on random texts made of key pieces, cut at random (seeded)', () => {
    // Keys that overlap themselves are the hard case for "hold the longest prefix" logic.
    for (const key of [KEY, 'abab', 'aaa', 'abcab', 'x']) {
      const random = prng(key.length * 7919);
      const alphabet = [...new Set([...key, 'z', '\n'])];
      for (let round = 0; round < 400; round++) {
        let text = '';
        const length = Math.floor(random() * 120);
        while (text.length < length) {
          text += random() < 0.3 ? key.slice(0, 1 + Math.floor(random() * key.length)) : alphabet[Math.floor(random() * alphabet.length)];
        }
        const chunks: string[] = [];
        for (let at = 0; at < text.length;) {
          const n = Math.floor(random() * 12);
          chunks.push(text.slice(at, at + n));
          at += n;
        }
        const { out } = scrubAll(key, chunks);
        expect(out, `${key} ${JSON.stringify(chunks)}`).toBe(text.split(key).join(REDACTED));
      }
    }
  });

  it('holds back only what could begin the key: a chunk ending an SSE event passes whole, at once', () => {
    const scrubber = createKeyScrubber(KEY);
    const event = 'event: message.output.delta\ndata: {"content":"sk-ups is not the key"}\n\n';
    expect(decoder.decode(scrubber.push(encoder.encode(event)))).toBe(event);
    // The end of this chunk could be the start of the key: it waits for the next chunk.
    expect(decoder.decode(scrubber.push(encoder.encode('data: sk-up')))).toBe('data: ');
    expect(decoder.decode(scrubber.push(encoder.encode('grade\n\n')))).toBe('sk-upgrade\n\n');
    expect(scrubber.flush().length).toBe(0);
  });

  it('gives back held bytes at the end, and passes chunks untouched when there is nothing to do', () => {
    const scrubber = createKeyScrubber(KEY);
    const plain = encoder.encode('plain text');
    expect(scrubber.push(plain)).toBe(plain);
    expect(decoder.decode(scrubber.push(encoder.encode('… sk-upstream')))).toBe('… ');
    expect(decoder.decode(scrubber.flush())).toBe('sk-upstream');
  });

  it('works on binary bodies (bytes that are not UTF-8)', () => {
    const key = encoder.encode(KEY);
    const body = new Uint8Array([0xff, 0x00, 0xfe, ...key, 0x80, 0x81, ...key.subarray(0, 5)]);
    for (let cut = 0; cut <= body.length; cut++) {
      const scrubber = createKeyScrubber(KEY);
      const out = [...scrubber.push(body.subarray(0, cut)), ...scrubber.push(body.subarray(cut)), ...scrubber.flush()];
      expect(out).toEqual([0xff, 0x00, 0xfe, ...encoder.encode(REDACTED), 0x80, 0x81, ...key.subarray(0, 5)]);
    }
  });

  it('an empty key changes nothing', () => {
    const { out } = scrubAll('', ['a', 'b']);
    expect(out).toBe('ab');
  });
});
