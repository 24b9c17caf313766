// The relay's byte helpers over the server floor's one join, and its random ids (src/relay/bytes.ts, src/server/read-capped.ts),
// and the whole-text scrub (src/relay/proxy/scrub.ts scrubKey) the headers, read bodies and realtime messages share.
import { describe, expect, it } from 'vitest';
import { concatBytes, indexOfBytes, joinBytes, randomId } from '../../../src/relay/bytes.js';
import { REDACTED, scrubKey } from '../../../src/relay/proxy/scrub.js';
import { joinChunks, readCapped } from '../../../src/server/read-capped.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('byte joins', () => {
  it('joinBytes gives a single chunk back as it is and joins several, with or without their length', () => {
    const one = bytes(1, 2);
    expect(joinBytes([one])).toBe(one);
    expect([...joinBytes([bytes(1), bytes(), bytes(2, 3)])]).toEqual([1, 2, 3]);
    expect([...joinBytes([bytes(1), bytes(2, 3)], 3)]).toEqual([1, 2, 3]);
    expect(joinBytes([]).length).toBe(0);
  });

  it('joinChunks always makes a new array, so readCapped never hands out a chunk of its stream', async () => {
    const one = bytes(7, 8);
    const joined = joinChunks([one], 2);
    expect(joined).not.toBe(one);
    expect([...joined]).toEqual([7, 8]);
    const body = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(one); c.close(); } });
    const read = await readCapped(body, 10);
    expect(read).not.toBe(one);
    expect([...read]).toEqual([7, 8]);
  });

  it('concatBytes and indexOfBytes', () => {
    expect([...concatBytes(bytes(1), bytes(2))]).toEqual([1, 2]);
    expect(indexOfBytes(bytes(1, 2, 1, 2, 3), bytes(2, 3))).toBe(3);
    expect(indexOfBytes(bytes(1, 2, 3), bytes(3, 4))).toBe(-1);
  });
});

describe('randomId', () => {
  it('is `bytes` random bytes in hex, new every time', () => {
    expect(randomId(4)).toMatch(/^[0-9a-f]{8}$/);
    expect(randomId(16)).not.toBe(randomId(16));
  });
});

describe('scrubKey', () => {
  it('replaces every occurrence of the key in a text, and leaves texts without it (or an empty key) alone', () => {
    expect(scrubKey('a KEY b KEY', 'KEY')).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(scrubKey('nothing here', 'KEY')).toBe('nothing here');
    expect(scrubKey('KEY', '')).toBe('KEY');
  });
});
