// The parts of resumable streams that need no server: cutting SSE bytes into whole blocks at every
// chunk boundary and every line-ending style (LF, CRLF, CR) with ids added, and the bounds of the
// memory buffers (bytes per stream, bytes and streams in all: oldest ended evicted first, live kept; ttl).
import { describe, expect, it } from 'vitest';
import { EventFramer, withEventId } from '../../../src/relay/streams/event-frames.js';
import { createMemoryStreamBuffers, isStreamId, newStreamId, resumeLimitsOf } from '../../../src/relay/streams/resumable.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Frames `text` cut at `cuts`, ids `s:<n>` added to events; the output text and the ids given. */
function frameAll(text: string, cuts: number[]): { out: string; events: number; pending: boolean } {
  const bytes = encoder.encode(text);
  const framer = new EventFramer();
  let out = '';
  let events = 0;
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    for (const f of framer.push(bytes.subarray(at, cut))) out += decoder.decode(f.event ? withEventId(f.bytes, `s:${++events}`) : f.bytes);
    at = cut;
  }
  return { out, events, pending: framer.pending };
}

describe('EventFramer', () => {
  const cases: Array<[string, string, string]> = [
    ['LF', 'event: a\ndata: 1\n\n: ping\n\ndata: 2\n\n', 'event: a\ndata: 1\nid: s:1\n\n: ping\n\ndata: 2\nid: s:2\n\n'],
    ['CRLF', 'event: a\r\ndata: 1\r\n\r\n: ping\r\n\r\ndata: 2\r\n\r\n', 'event: a\r\ndata: 1\r\nid: s:1\n\n: ping\r\n\r\ndata: 2\r\nid: s:2\n\n'],
    ['CR', 'event: a\rdata: 1\r\r: ping\r\rdata: 2\r\r', 'event: a\rdata: 1\rid: s:1\n\n: ping\r\rdata: 2\rid: s:2\n\n'],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name}: whole blocks at every cut into two and three chunks, ids on events only, the rest of the bytes unchanged`, () => {
      const n = encoder.encode(input).length;
      for (let i = 0; i <= n; i++) {
        for (let j = i; j <= n; j += 3) {
          const { out, events, pending } = frameAll(input, [i, j]);
          expect(out, `cuts ${i}, ${j}`).toBe(expected);
          expect(events).toBe(2);
          expect(pending).toBe(false);
        }
      }
    });
  }

  it('holds an unfinished block, and gives it back as it came', () => {
    const framer = new EventFramer();
    expect(framer.push(encoder.encode('data: 1\n\ndata: 2\n'))).toHaveLength(1);
    expect(framer.pending).toBe(true);
    expect(decoder.decode(framer.rest())).toBe('data: 2\n');
    expect(framer.pending).toBe(false);
  });

  it('the id is the last line, so it wins over an id the upstream sent', () => {
    expect(decoder.decode(withEventId(encoder.encode('id: upstream\ndata: x\n\n'), 'rs_x:1'))).toBe('id: upstream\ndata: x\nid: rs_x:1\n\n');
  });
});

describe('stream ids', () => {
  it('rs_ and 22 base64url characters, never the same twice', () => {
    const ids = new Set(Array.from({ length: 200 }, newStreamId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(isStreamId(id), id).toBe(true);
    expect(isStreamId('rs_short')).toBe(false);
    expect(isStreamId('rs_AAAAAAAAAAAAAAAAAAAAA/')).toBe(false);
  });
});

describe('memory buffers', () => {
  const bytes = (n: number) => new Uint8Array(n);
  const limits = (over: Parameters<typeof resumeLimitsOf>[0]) => resumeLimitsOf(over);

  it('a stream beyond maxBytesPerStream is dropped (gone), others are not', async () => {
    const buffers = createMemoryStreamBuffers(limits({ maxBytesPerStream: 100 }));
    const big = buffers.start('rs_big', 's')!;
    const small = buffers.start('rs_small', 's')!;
    big.append(1, bytes(60));
    small.append(1, bytes(60));
    big.append(2, bytes(60));
    expect(big.resumable).toBe(false);
    expect(small.resumable).toBe(true);
    expect(await buffers.read('rs_big', 's', 0)).toEqual({ kind: 'gone' });
    expect(await buffers.read('rs_small', 's', 0)).toMatchObject({ kind: 'events', last: 1, ended: false });
  });

  it('over maxBytesTotal the oldest ENDED stream is evicted first; live streams are kept (a newcomer that does not fit is dropped)', async () => {
    const buffers = createMemoryStreamBuffers(limits({ maxBytesTotal: 250 }));
    const old = buffers.start('rs_old', 's')!;
    const live = buffers.start('rs_live', 's')!;
    const ended = buffers.start('rs_ended', 's')!;
    old.append(1, bytes(100));
    live.append(1, bytes(100));
    old.end();
    ended.append(1, bytes(50));
    ended.end();
    const next = buffers.start('rs_next', 's')!;
    next.append(1, bytes(100)); // 350 > 250: the oldest ended one (rs_old) goes
    expect((await buffers.read('rs_old', 's', 0)).kind).toBe('gone');
    expect((await buffers.read('rs_ended', 's', 0)).kind).toBe('events');
    expect(buffers.usage).toEqual({ streams: 3, bytes: 250 });
    next.append(2, bytes(100)); // rs_ended evicted, then still 300 > 250 with only live ones: rs_next is dropped
    expect((await buffers.read('rs_ended', 's', 0)).kind).toBe('gone');
    expect(next.resumable).toBe(false);
    expect(live.resumable).toBe(true);
    expect(buffers.usage).toEqual({ streams: 1, bytes: 100 });
  });

  it('maxStreams: the oldest ended stream makes room; with only live ones a new stream is not kept', () => {
    const buffers = createMemoryStreamBuffers(limits({ maxStreams: 2 }));
    const first = buffers.start('rs_1', 's')!;
    buffers.start('rs_2', 's');
    first.end();
    expect(buffers.start('rs_3', 's')).not.toBeNull();
    expect(buffers.start('rs_4', 's')).toBeNull();
  });

  it('an ended stream is kept ttlSeconds, then forgotten', async () => {
    let now = 1_000_000;
    const buffers = createMemoryStreamBuffers(limits({ ttlSeconds: 10 }), () => now);
    const w = buffers.start('rs_t', 's')!;
    w.append(1, bytes(1));
    w.end();
    now += 9_999;
    expect((await buffers.read('rs_t', 's', 0)).kind).toBe('events');
    now += 1;
    expect((await buffers.read('rs_t', 's', 0)).kind).toBe('gone');
    expect(buffers.usage).toEqual({ streams: 0, bytes: 0 });
  });

  it('a live stream silent for ttlSeconds + the idle time is forgotten (its writer died without ending it)', async () => {
    let now = 1_000_000;
    const buffers = createMemoryStreamBuffers(limits({ ttlSeconds: 10 }), () => now, 5);
    const w = buffers.start('rs_l', 's')!;
    now += 14_000;
    w.append(1, bytes(1)); // an event renews it
    now += 14_999;
    expect((await buffers.read('rs_l', 's', 0)).kind).toBe('events');
    now += 1;
    expect((await buffers.read('rs_l', 's', 0)).kind).toBe('gone');
    expect(w.resumable).toBe(false);
  });

  it('refuses limits that are not positive numbers', () => {
    expect(() => resumeLimitsOf({ ttlSeconds: 0 })).toThrow(/resume\.ttlSeconds/);
    expect(() => resumeLimitsOf({ maxBytesTotal: Number.NaN })).toThrow(/resume\.maxBytesTotal/);
  });
});
