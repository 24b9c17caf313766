// A million frames on one realtime socket against the built `parley-relay` (bin/parley-relay.js →
// dist/; run `npx tsc -p .` or `npm run build` first) run as a child process, so that its memory can be
// read from /proc: the relay closes the socket with 1008, its memory stays near where it started and
// stays there after the close, its upstream socket is closed, and another visitor is answered meanwhile.
// The helpers are bench/realtime-flood.mjs's (`npm run bench -- realtime-flood` prints the figures).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { measureFlood } from '../../../bench/realtime-flood.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const MB = 1024 * 1024;
/** Far above what the relay should hold for one socket, far below the 500+ MB seen before the caps. */
const PEAK_MARGIN = 150 * MB;

interface Measure {
  sent: number;
  close: { code: number; reason: string };
  received: { messages: number; bytes: number };
  unrelated: { status: number };
  startRss: number;
  peakRss: number;
  afterRss: number;
  upstreamOpen: number;
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/relay/realtime-guard.js'))) throw new Error('dist/ is missing or stale: run `npx tsc -p .` (or `npm run build`) before this test');
});

function expectBounded(m: Measure): void {
  expect(m.peakRss - m.startRss).toBeLessThan(PEAK_MARGIN);
  expect(m.afterRss - m.startRss).toBeLessThan(PEAK_MARGIN);
  expect(m.unrelated.status).toBe(200);
  expect(m.upstreamOpen).toBe(0);
}

describe('parley-relay under a realtime flood (child process)', () => {
  it('a million one-byte frames with the replies unread: closed with 1008, memory bounded, another visitor answered', async () => {
    const m: Measure = await measureFlood({ read: false, frames: 1_000_000 });
    expect(m.close).toEqual({ code: 1008, reason: 'Too many invalid messages (more than 20 in this session)' });
    // session.created, 20 error events and the one closing it (read after the flood).
    expect(m.received.messages).toBe(22);
    expectBounded(m);
  }, 180_000);

  it('a million one-byte frames with the replies read: the same', async () => {
    const m: Measure = await measureFlood({ read: true, frames: 1_000_000 });
    expect(m.close.code).toBe(1008);
    expect(m.received.messages).toBe(22);
    expectBounded(m);
  }, 180_000);

  it('a million valid messages: closed with 1008 at the message rate, memory bounded', async () => {
    const m: Measure = await measureFlood({ read: true, frames: 1_000_000, text: '{"type":"input_audio.flush"}' });
    expect(m.close).toEqual({ code: 1008, reason: expect.stringContaining('Too many messages') });
    expectBounded(m);
  }, 180_000);
});
