// Flood-proofing of the relay's realtime WebSocket (src/relay/realtime-guard.ts), over real sockets on
// loopback: the message rate and invalid-message caps per session (error event, close 1008), and
// backpressure both ways (a side whose writes are not read stops the relay reading the other side,
// and nothing is lost when it reads again). The relay as a child process under a million frames:
// realtime-flood.process.test.ts.
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { describeRelayConfig, relayHelp, relayOptionsOf, resolveRelayConfig } from '../../../src/relay/config.js';
import { createRealtimeGuards, DEFAULT_REALTIME_FLOOD_LIMITS } from '../../../src/relay/realtime-guard.js';
import { TokenBucket } from '../../../src/server/socket-flow.js';
import type { RelayOptions } from '../../../src/relay/index.js';
import { openSession, sleep, within } from './helpers.js';
import { openPage, ticketFor, useRealtimeHarness } from './realtime-helpers.js';

const MODEL = 'voxtral-mini-transcribe-realtime-2602';
const PATH = `/api/v1/audio/transcriptions/realtime?model=${MODEL}`;
const MB = 1024 * 1024;
const CREATED = JSON.stringify({ type: 'session.created', session: { request_id: 'r', model: MODEL, audio_format: { encoding: 'pcm_s16le', sample_rate: 16000 } } });

const { relayOver, withUpstream, open } = useRealtimeHarness();

/** A relay with these realtime caps over a realtime stand-in (`upstreamOptions`), and a page socket of a new session. */
async function pageOn(realtime: RelayOptions['realtime'], upstreamOptions: Parameters<typeof withUpstream>[0] = {}) {
  const upstream = await withUpstream(upstreamOptions);
  const { relay, served } = await relayOver(upstream, { realtime });
  const { token } = await openSession(relay);
  const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
  return { upstream, page };
}

/** Resolves once `condition` holds (checked every 20 ms), failing after `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  await within((async () => { while (!condition()) await sleep(20); })(), ms, what);
}

describe('realtime flood caps', () => {
  it('the token bucket gives its burst at once, then its rate', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([true, true, true, false]);
    expect(bucket.take(50)).toBe(false);
    expect(bucket.take(100)).toBe(true);
    expect(bucket.take(10_000)).toBe(true);
    expect([bucket.take(10_000), bucket.take(10_000), bucket.take(10_000)]).toEqual([true, true, false]);
  });

  it('a session over its message rate gets an error event 429 and close 1008; the upstream got no more than the burst and is closed', async () => {
    const { upstream, page } = await pageOn({ messagesPerSecond: 5, messageBurst: 10 });
    await page.next('session.created');
    for (let i = 0; i < 200; i++) page.socket.send(JSON.stringify({ type: 'input_audio.flush' }));
    const error = await page.next('error');
    expect(error.error).toMatchObject({ code: 429, message: expect.stringContaining('at most 5 messages a second') });
    expect(await page.closed).toMatchObject({ code: 1008, reason: expect.stringContaining('Too many messages') });
    expect(await within(upstream.connections[0]!.closed, 5_000, 'upstream close')).toBeGreaterThan(0);
    expect(upstream.connections[0]!.received.length).toBeLessThanOrEqual(10);
    expect(page.messages.filter((m) => m.type === 'error')).toHaveLength(1);
  });

  it('a session sending only a few messages a second is never cut', async () => {
    const { page } = await pageOn({ messagesPerSecond: 20, messageBurst: 5 });
    await page.next('session.created');
    for (let i = 0; i < 12; i++) {
      page.socket.send(JSON.stringify({ type: 'input_audio.flush' }));
      await sleep(100);
    }
    page.socket.send(JSON.stringify({ type: 'input_audio.end' }));
    expect((await page.next('transcription.done')).text).toBe('heard 0 bytes');
    expect((await page.closed).code).toBe(1000);
    expect(page.messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('invalid messages are answered one by one up to the cap, then the socket is closed with 1008', async () => {
    const { upstream, page } = await pageOn({ maxInvalidMessages: 3 });
    await page.next('session.created');
    for (let i = 0; i < 1000; i++) page.socket.send('x');
    const { code, reason } = await page.closed;
    expect(code).toBe(1008);
    expect(reason).toContain('Too many invalid messages');
    const errors = page.messages.filter((m) => m.type === 'error').map((m) => m.error);
    expect(errors).toEqual([
      ...Array.from({ length: 3 }, () => ({ code: 400, message: 'Messages must be JSON' })),
      { code: 400, message: 'Too many invalid messages (more than 3 in this session)' },
    ]);
    expect(await within(upstream.connections[0]!.closed, 5_000, 'upstream close')).toBeGreaterThan(0);
    expect(upstream.connections[0]!.received).toEqual([]);
  });

  it("a session's sockets share its counts, and a new ticket does not reset them; another session is not affected", async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream, { realtime: { maxInvalidMessages: 3 } });
    const { token } = await openSession(relay);
    const a = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    const b = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await a.next('session.created');
    await b.next('session.created');
    a.socket.send('x');
    a.socket.send('x');
    expect((await a.next('error')).error.message).toBe('Messages must be JSON');
    expect((await a.next('error')).error.message).toBe('Messages must be JSON');
    b.socket.send('x');
    expect((await b.next('error')).error.message).toBe('Messages must be JSON');
    b.socket.send('x');
    expect((await b.next('error')).error.message).toMatch(/Too many invalid messages/);
    expect((await b.closed).code).toBe(1008);
    a.socket.close();
    await a.closed;
    // Reconnecting with a fresh ticket: the session's count is still over.
    const c = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await c.next('session.created');
    c.socket.send('x');
    expect((await c.next('error')).error.message).toMatch(/Too many invalid messages/);
    expect((await c.closed).code).toBe(1008);
    // Another visitor's session starts with its own counts.
    const other = await openSession(relay);
    const d = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, other.token)]));
    await d.next('session.created');
    d.socket.send('x');
    expect((await d.next('error')).error.message).toBe('Messages must be JSON');
    d.socket.send(JSON.stringify({ type: 'input_audio.end' }));
    expect((await d.closed).code).toBe(1000);
  });

  it("a session's counts are forgotten some time after its last socket, not while one is open", () => {
    const limits = { ...DEFAULT_REALTIME_FLOOD_LIMITS, maxInvalidMessages: 1 };
    const guards = createRealtimeGuards(limits, () => 0);
    const first = guards.open('s1');
    const second = guards.open('s1');
    expect(first.invalid()).toBeNull();
    expect(second.invalid()).toMatchObject({ status: 400 });
    first.release();
    first.release(); // twice is once
    expect(guards.size).toBe(1);
    second.release();
    expect(guards.size).toBe(1); // kept for a while (a timer, unref'd)
    guards.open('s2').release();
    expect(guards.size).toBe(2);
  });
});

describe('realtime backpressure', () => {
  /** More than the socket buffers between two loopback sockets can hold (4 MB sent + 32 MB received, each way). */
  const BEYOND_BUFFERS = 128 * MB;

  /**
   * Sends `make(i)` on `socket`, keeping at most 1 MB queued on this side, until `BEYOND_BUFFERS` bytes
   * were written out or nothing more could be for 2 s (the reader stopped reading).
   */
  function pump(socket: WebSocket, make: (i: number) => string) {
    let queued = 0;
    let writtenBytes = 0;
    let progress = performance.now();
    return within(new Promise<{ queued: number; writtenBytes: number }>((resolve) => {
      const tick = () => {
        while (socket.readyState === WebSocket.OPEN && socket.bufferedAmount < MB && writtenBytes < BEYOND_BUFFERS) {
          const message = make(queued++);
          socket.send(message, (error) => {
            if (error) return;
            writtenBytes += message.length;
            progress = performance.now();
          });
        }
        if (writtenBytes >= BEYOND_BUFFERS || performance.now() - progress > 2000 || socket.readyState !== WebSocket.OPEN) resolve({ queued, writtenBytes });
        else setTimeout(tick, 10);
      };
      tick();
    }), 120_000, 'pump');
  }

  it('a page that does not read its replies stops the relay reading the upstream; when it reads again it gets every message, in order', async () => {
    let pumped: ReturnType<typeof pump> | undefined;
    const { page } = await pageOn({ maxBufferedBytes: 64 * 1024, stallTimeoutMs: 120_000 }, {
      onConnect: (socket) => {
        socket.send(CREATED);
        const text = 'y'.repeat(64 * 1024);
        pumped = pump(socket, (i) => JSON.stringify({ type: 'transcription.text.delta', text, i }));
        return true;
      },
    });
    page.socket.pause();
    await until(() => pumped !== undefined, 10_000, 'upstream connection');
    const { queued, writtenBytes } = await pumped!;
    // The relay stopped reading: what the upstream could write out is what socket buffers hold, not all it had.
    expect(writtenBytes).toBeLessThan(BEYOND_BUFFERS);
    page.socket.resume();
    await until(() => page.messages.length >= queued + 1, 60_000, `all ${queued} deltas`);
    const deltas = page.messages.filter((m) => m.type === 'transcription.text.delta');
    expect(deltas.map((m) => m.i)).toEqual(Array.from({ length: queued }, (_, i) => i));
    expect(page.messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('an upstream that does not read stops the relay reading the page; nothing the page sent is lost', async () => {
    let upstreamSocket: WebSocket | undefined;
    const received: number[] = [];
    const upstream = await withUpstream({
      onConnect: (socket) => {
        upstreamSocket = socket;
        socket.send(CREATED);
        socket.pause();
        socket.on('message', (data) => received.push(JSON.parse(data.toString()).audio.length));
        return true;
      },
    });
    const { relay, served } = await relayOver(upstream, {
      realtime: { maxBufferedBytes: 64 * 1024, messagesPerSecond: 100_000, messageBurst: 100_000, maxAudioBytes: 1024 * MB },
    });
    const { token } = await openSession(relay);
    const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await page.next('session.created');
    const audio = 'AAAA'.repeat(32 * 1024); // 128 KB of base64
    const { queued, writtenBytes } = await pump(page.socket, () => JSON.stringify({ type: 'input_audio.append', audio }));
    expect(writtenBytes).toBeLessThan(BEYOND_BUFFERS);
    upstreamSocket!.resume();
    await until(() => received.length >= queued, 60_000, `all ${queued} appends upstream`);
    expect(received).toEqual(Array.from({ length: queued }, () => audio.length));
    expect(page.messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('a page that stays over the bound is closed with 1008 after the stall timeout, and its upstream socket with it', async () => {
    const { upstream, page } = await pageOn({ maxBufferedBytes: 64 * 1024, stallTimeoutMs: 300 }, {
      onConnect: (socket) => {
        socket.send(CREATED);
        const text = 'z'.repeat(16 * 1024);
        const pump = () => {
          while (socket.readyState === WebSocket.OPEN && socket.bufferedAmount < 4 * MB) socket.send(JSON.stringify({ type: 'transcription.text.delta', text }));
          if (socket.readyState === WebSocket.OPEN) setTimeout(pump, 10);
        };
        pump();
        return true;
      },
    });
    page.socket.pause();
    expect(await within(upstream.connections[0]!.closed, 30_000, 'upstream close')).toBeGreaterThan(0);
    page.socket.resume();
    const { code } = await within(page.closed, 30_000, 'page close');
    // 1008 when the close frame got through before the relay cut the socket, 1006 when it did not.
    expect([1008, 1006]).toContain(code);
  });
});

describe('realtime flood settings', () => {
  it('default to 100/s, 400 at once, 20 invalid, 1 MiB, 15 s; the flags, the environment and the file set them; nonsense is refused', () => {
    const resolve = (flags: Record<string, unknown> = {}, env: Record<string, string> = {}, file?: string) =>
      resolveRelayConfig({ flags: file ? { ...flags, config: 'r.json' } : flags, env, readFile: () => file ?? '{}' });
    expect(resolve().realtime).toEqual({ messagesPerSecond: 100, messageBurst: 400, maxInvalidMessages: 20, maxBufferedBytes: MB, stallTimeoutMs: 15_000 });
    expect(relayOptionsOf({ ...resolve({ 'realtime-rate': '30', 'realtime-burst': '60' }), platformApiKey: 'k' }).realtime)
      .toEqual({ messagesPerSecond: 30, messageBurst: 60, maxInvalidMessages: 20, maxBufferedBytes: MB, stallTimeoutMs: 15_000 });
    expect(resolve({}, { PARLEY_REALTIME_MAX_INVALID: '5', PARLEY_REALTIME_STALL_TIMEOUT_MS: '2000' }).realtime).toMatchObject({ maxInvalidMessages: 5, stallTimeoutMs: 2000 });
    expect(resolve({}, {}, '{"realtime": {"maxBufferedBytes": 65536}}').realtime.maxBufferedBytes).toBe(65536);
    expect(() => resolve({ 'realtime-rate': '0' })).toThrow(/--realtime-rate must be a whole number from 1 to 100000/);
    expect(() => resolve({}, {}, '{"realtime": {"rate": 5}}')).toThrow(/unknown key 'realtime.rate'/);
    expect(describeRelayConfig(resolve(), 'memory').join('\n')).toMatch(/realtime +100 messages\/s per session, burst 400, 20 invalid/);
    expect(relayHelp()).toMatch(/--realtime-max-invalid <n> +invalid realtime messages a session may send/);
  });
});
