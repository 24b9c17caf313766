import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  api, deltaEvent, fakeUpstream, json, makeRelay, openSession, scriptedStream, sleep, sseEvent, startedEvent, within, withoutIds,
  type ScriptedStream,
} from './helpers.js';

const decoder = new TextDecoder();
afterEach(() => { vi.useRealTimers(); });
const START = { model: 'm', inputs: 'hi', stream: true };

/** Reads a streamed answer to its end. */
async function readText(response: Response) {
  const reader = response.body!.getReader();
  let text = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
  return { text: withoutIds(text) };
}

function streamingRelay(makeStream: (req: Request) => ScriptedStream, options: Parameters<typeof makeRelay>[1] = {}) {
  const streams: ScriptedStream[] = [];
  const upstream = fakeUpstream((req) => {
    const s = makeStream(req);
    streams.push(s);
    return s.response;
  });
  return { upstream, streams, relay: makeRelay(upstream.fetch, options) };
}

describe('SSE passthrough', () => {
  it('answers with SSE headers at once, before the first upstream byte', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const { relay, streams } = streamingRelay((req) => scriptedStream([startedEvent('conv_1'), deltaEvent('a')], { after: released, signal: req.signal }));
    const { token } = await openSession(relay);
    // The upstream sends no byte until released, so an answer now can only carry headers.
    const res = await within(api(relay, '/v1/conversations', { token, body: START }), 5_000, 'the answer while the upstream body is silent');
    expect(streams[0]!.emitted, 'no upstream byte was sent before the answer').toHaveLength(0);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-store, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    release();
    expect(withoutIds(await res.text())).toBe(startedEvent('conv_1') + deltaEvent('a'));
  });

  it('passes bytes unmodified when the upstream is never silent for a heartbeat interval', async () => {
    const events = [startedEvent('conv_1'), deltaEvent('Hello'), deltaEvent(' world'), sseEvent('conversation.response.done', { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })];
    const { relay } = streamingRelay(() => scriptedStream(events), { heartbeatMs: 10_000 });
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: START });
    expect(withoutIds(await res.text())).toBe(events.join(''));
  });

  it('no buffering: each event is passed on before the upstream sends the next', async () => {
    // Lockstep: the upstream writes an event only once the previous one has come out of the relay, so a relay
    // that held bytes back (for more bytes, a whole batch or the end of the stream) would never get the next.
    const events = [startedEvent('conv_1'), ...Array.from({ length: 8 }, (_, i) => deltaEvent(`t${i}`))];
    let upstreamBody!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start(c) { upstreamBody = c; } });
    const upstream = fakeUpstream(() => new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    const relay = makeRelay(upstream.fetch, { heartbeatMs: 10_000 });
    const { token } = await openSession(relay);
    const reader = (await within(api(relay, '/v1/conversations', { token, body: START }), 5_000, 'the answer')).body!.getReader();
    for (const [i, event] of events.entries()) {
      upstreamBody.enqueue(new TextEncoder().encode(event));
      const { value } = await within(reader.read(), 5_000, `event ${i} out of the relay before the upstream sends the next`);
      expect(withoutIds(decoder.decode(value))).toBe(event);
    }
    upstreamBody.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('heartbeat: a silent upstream gets `: ping` comments at the configured interval', async () => {
    // Timers are faked: the interval is checked on the relay's own clock, not the machine's speed.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { relay } = streamingRelay((req) => scriptedStream([startedEvent('conv_1')], { holdOpen: true, signal: req.signal }), { heartbeatMs: 50 });
      const { token } = await openSession(relay);
      const res = await api(relay, '/v1/conversations', { token, body: START });
      const reader = res.body!.getReader();
      let text = '';
      const reading = (async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
      })();
      const pings = () => text.split(': ping\n\n').length - 1;
      await vi.advanceTimersByTimeAsync(0);
      expect(withoutIds(text)).toBe(startedEvent('conv_1'));
      await vi.advanceTimersByTimeAsync(49);
      expect(pings(), 'no ping before the interval').toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(pings(), 'one ping at the interval').toBe(1);
      await vi.advanceTimersByTimeAsync(49);
      expect(pings()).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(pings()).toBe(2);
      await vi.advanceTimersByTimeAsync(50);
      expect(pings()).toBe(3);
      expect(withoutIds(text)).toBe(startedEvent('conv_1') + ': ping\n\n'.repeat(3));
      await reader.cancel();
      await reading;
    } finally {
      vi.useRealTimers();
    }
  });

  it('never puts a ping inside an event cut across chunks', async () => {
    const whole = deltaEvent('split');
    const parts = [startedEvent('conv_1'), whole.slice(0, 20), whole.slice(20)];
    const { relay } = streamingRelay(() => scriptedStream(parts, { intervalMs: 200 }));
    const { token } = await openSession(relay);
    const { text } = await readText(await api(relay, '/v1/conversations', { token, body: START }));
    expect(text).toContain(whole);
    expect(text.replaceAll(': ping\n\n', '')).toBe(parts.join(''));
  });

  it('with heartbeats the SSE stays parseable (only comment lines added)', async () => {
    const events = [startedEvent('conv_1'), deltaEvent('a'), deltaEvent('b')];
    const { relay } = streamingRelay(() => scriptedStream(events, { intervalMs: 120 }));
    const { token } = await openSession(relay);
    const { text } = await readText(await api(relay, '/v1/conversations', { token, body: START }));
    expect(text).toContain(': ping');
    expect(text.split('\n\n').filter((b) => b && !b.startsWith(':'))).toEqual(events.map((e) => e.slice(0, -2)));
  });
});

// Without resumable streams (`resume: false`) the page going away aborts the upstream at once; with them
// (the default) it is read on and only a user stop aborts it: see resume.test.ts.
describe('abort and completion', () => {
  it('a client abort (request signal) reaches the upstream', async () => {
    const { relay, streams } = streamingRelay((req) => scriptedStream([startedEvent('conv_1'), deltaEvent('a')], { intervalMs: 50, holdOpen: true, signal: req.signal }), { resume: false });
    const { token } = await openSession(relay);
    const abort = new AbortController();
    const res = await api(relay, '/v1/conversations', { token, body: START, signal: abort.signal });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    expect(await within(streams[0]!.stopped, 5_000, 'upstream abort')).toMatch(/signal|cancel/);
  });

  it('a client that stops reading (body cancel) aborts the upstream', async () => {
    let upstreamSignal: AbortSignal | undefined;
    const { relay, streams } = streamingRelay((req) => { upstreamSignal = req.signal; return scriptedStream([startedEvent('conv_1')], { holdOpen: true }); }, { resume: false });
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: START });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await within(streams[0]!.stopped, 5_000, 'upstream cancel')).toBe('cancel');
    expect(upstreamSignal!.aborted).toBe(true);
  });

  it('the stream slot is freed by an abort', async () => {
    const { relay } = streamingRelay((req) => scriptedStream([startedEvent('conv_1')], { holdOpen: true, signal: req.signal }), {
      policy: { limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 1 } }, resume: false,
    });
    const { token } = await openSession(relay);
    for (let i = 0; i < 3; i++) {
      const res = await api(relay, '/v1/conversations', { token, body: START });
      expect(res.status).toBe(200);
      await res.body!.cancel();
    }
  });

  it('normal completion is not an abort: the upstream signal stays unaborted, even if the client aborts afterwards', async () => {
    let upstreamSignal: AbortSignal | undefined;
    const { relay } = streamingRelay((req) => { upstreamSignal = req.signal; return scriptedStream([startedEvent('conv_1'), deltaEvent('x')]); });
    const { token } = await openSession(relay);
    const abort = new AbortController();
    const res = await api(relay, '/v1/conversations', { token, body: START, signal: abort.signal });
    await res.text();
    abort.abort();
    await sleep(10);
    expect(upstreamSignal!.aborted).toBe(false);
  });

  it('a JSON answer read to the end is not aborted either', async () => {
    let upstreamSignal: AbortSignal | undefined;
    const upstream = fakeUpstream((req) => { upstreamSignal = req.signal; return json({ object: 'list', data: [] }); });
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const abort = new AbortController();
    await (await api(relay, '/v1/models', { token, signal: abort.signal })).text();
    abort.abort();
    expect(upstreamSignal!.aborted).toBe(false);
  });
});

describe('upstream trouble mid-stream', () => {
  function breakingUpstream(parts: string[]) {
    const upstream = fakeUpstream(() => {
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
          await sleep(20);
          controller.error(new Error('socket hang up'));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    return upstream;
  }

  it('a reset between events → one conversation.response.error event, then close; no retry', async () => {
    const upstream = breakingUpstream([startedEvent('conv_1'), deltaEvent('a')]);
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const text = withoutIds(await (await api(relay, '/v1/conversations', { token, body: START })).text());
    const blocks = text.split('\n\n').filter(Boolean);
    expect(blocks).toHaveLength(3);
    expect(blocks[2]).toMatch(/^event: conversation\.response\.error\ndata: /);
    const data = JSON.parse(blocks[2]!.split('data: ')[1]!);
    expect(data).toMatchObject({ type: 'conversation.response.error', code: 502 });
    expect(upstream.calls).toHaveLength(1);
  });

  it('a reset inside an event → the client stream errors (a half event is never completed)', async () => {
    const upstream = breakingUpstream([startedEvent('conv_1'), 'event: message.output.delta\ndata: {"ty']);
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: START });
    await expect(res.text()).rejects.toThrow();
    expect(upstream.calls).toHaveLength(1);
  });

  it('an upstream silent past the idle timeout is aborted and the stream ends with an error event', async () => {
    const { relay, streams } = streamingRelay((req) => scriptedStream([startedEvent('conv_1')], { holdOpen: true, signal: req.signal }), { streamIdleTimeoutMs: 150 });
    const { token } = await openSession(relay);
    const text = await (await api(relay, '/v1/conversations', { token, body: START })).text();
    expect(text).toMatch(/event: conversation\.response\.error\n/);
    expect(await within(streams[0]!.stopped, 5_000, 'upstream abort')).toBeTruthy();
  });
});

describe('tokens and streams', () => {
  it('a stream started before exp outlives the token; a new call after exp → 401', async () => {
    let now = Date.now();
    const { relay } = streamingRelay(() => scriptedStream([startedEvent('conv_1'), ...Array.from({ length: 6 }, (_, i) => deltaEvent(`${i}`))], { intervalMs: 40 }), {
      now: () => now, heartbeatMs: 10_000,
    });
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: START });
    const reader = res.body!.getReader();
    await reader.read();
    now += 11 * 60_000; // past exp + skew
    expect((await api(relay, '/v1/conversations/conv_1', { token, body: { inputs: 'more' } })).status).toBe(401);
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest.match(/event: message\.output\.delta/g)).toHaveLength(6);
  });

  it('concurrent stream cap: the N+1th stream → 429; other sessions unaffected; JSON calls unaffected', async () => {
    const { relay } = streamingRelay((req) => scriptedStream([startedEvent(`conv_${Math.random().toString(16).slice(2, 10)}`)], { holdOpen: true, signal: req.signal }), {
      policy: { limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } }, resume: false,
    });
    const a = await openSession(relay);
    const b = await openSession(relay);
    const open = [await api(relay, '/v1/conversations', { token: a.token, body: START }), await api(relay, '/v1/conversations', { token: a.token, body: START })];
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const third = await api(relay, '/v1/conversations', { token: a.token, body: START });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.json()).toMatchObject({ object: 'error', type: 'rate_limit_error', code: 'too_many_streams' });
    const other = await api(relay, '/v1/conversations', { token: b.token, body: START });
    expect(other.status).toBe(200);
    await other.body!.cancel();
    await open[0]!.body!.cancel();
    const again = await api(relay, '/v1/conversations', { token: a.token, body: START });
    expect(again.status).toBe(200);
    await again.body!.cancel();
    await open[1]!.body!.cancel();
  });

  it('learns ownership from the first SSE event before passing it on', async () => {
    const { relay } = streamingRelay(() => scriptedStream([startedEvent('conv_owned'), deltaEvent('x')], { intervalMs: 200 }));
    const a = await openSession(relay);
    const b = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token: a.token, body: START });
    const reader = res.body!.getReader();
    const first = decoder.decode((await reader.read()).value);
    expect(first).toContain('conv_owned');
    // The page can use the id as soon as it sees it.
    expect((await api(relay, '/v1/conversations/conv_owned/history', { token: a.token })).status).not.toBe(404);
    expect((await api(relay, '/v1/conversations/conv_owned/history', { token: b.token })).status).toBe(404);
    await reader.cancel();
  });
});
