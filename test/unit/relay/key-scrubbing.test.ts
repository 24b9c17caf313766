// The upstream key never reaches a client, whatever the upstream echoes: passed-through JSON and
// binary bodies, SSE data cut across chunks at every position, allowed response headers. In-process
// upstreams give exact chunk boundaries; one run goes over real HTTP (relay and upstream both served).
import { afterEach, describe, expect, it } from 'vitest';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { ALL_SCOPES, ANY, createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { REDACTED } from '../../../src/relay/proxy/scrub.js';
import { ORIGIN, SECRET, UPSTREAM_KEY, api, everyByte, fakeUpstream, makeRelay, openSession, startedEvent, withoutIds } from './helpers.js';

const encoder = new TextEncoder();

/** An upstream answer whose body is exactly these chunks. */
function chunked(chunks: Array<string | Uint8Array>, headers: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? encoder.encode(c) : c);
      controller.close();
    },
  });
  return new Response(body, { headers });
}

const echoEvent = `event: message.output.delta\ndata: {"type":"message.output.delta","content":"the key is ${UPSTREAM_KEY}!"}\n\n`;

describe('the upstream key is scrubbed from everything passed through', () => {
  it('from a JSON body, cut into two chunks at every position', async () => {
    const text = JSON.stringify({ id: 'ag_1', instructions: `use Bearer ${UPSTREAM_KEY}`, copy: UPSTREAM_KEY });
    let cut = 0;
    const relay = makeRelay(fakeUpstream(() => chunked([text.slice(0, cut), text.slice(cut)], { 'content-type': 'application/json' })).fetch);
    const { token } = await openSession(relay);
    for (cut = 0; cut <= text.length; cut++) {
      const all = await everyByte(await api(relay, '/v1/agents/ag_1', { token }));
      expect(all, `cut at ${cut}`).not.toContain(UPSTREAM_KEY);
      expect(all).toContain(text.split(UPSTREAM_KEY).join(REDACTED));
    }
  });

  it('from SSE data, the event cut into two chunks at every position (and events still arrive whole)', async () => {
    let cut = 0;
    const relay = makeRelay(fakeUpstream(() => chunked(
      [startedEvent('conv_k'), echoEvent.slice(0, cut), echoEvent.slice(cut), 'event: done\ndata: {}\n\n'],
      { 'content-type': 'text/event-stream' },
    )).fetch);
    const { token } = await openSession(relay);
    for (cut = 0; cut <= echoEvent.length; cut++) {
      const res = await api(relay, '/v1/conversations', { token, body: { inputs: 'hi', stream: true } });
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const all = withoutIds(await everyByte(res));
      expect(all, `cut at ${cut}`).not.toContain(UPSTREAM_KEY);
      expect(all).toContain(echoEvent.split(UPSTREAM_KEY).join(REDACTED));
      expect(all).toContain('event: done\ndata: {}\n\n');
    }
  });

  it('from a binary body (speech audio), cut at every position', async () => {
    const key = encoder.encode(UPSTREAM_KEY);
    const audio = new Uint8Array([0xff, 0xfb, 0x90, 0x00, ...key, 0x00, 0xff, ...key, 0x01]);
    let cut = 0;
    const relay = makeRelay(fakeUpstream(() => chunked([audio.subarray(0, cut), audio.subarray(cut)], { 'content-type': 'audio/mpeg' })).fetch);
    const { token } = await openSession(relay);
    for (cut = 0; cut <= audio.length; cut++) {
      const res = await api(relay, '/v1/audio/speech', { token, body: { input: 'hello' } });
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const redacted = encoder.encode(REDACTED);
      expect([...bytes], `cut at ${cut}`).toEqual([0xff, 0xfb, 0x90, 0x00, ...redacted, 0x00, 0xff, ...redacted, 0x01]);
    }
  });

  it('from allowed response headers', async () => {
    const relay = makeRelay(fakeUpstream(() => new Response('{}', {
      headers: {
        'content-type': 'application/json',
        'x-request-id': `req-${UPSTREAM_KEY}`,
        'content-disposition': `attachment; filename="${UPSTREAM_KEY}.json"`,
        'content-language': UPSTREAM_KEY,
      },
    })).fetch);
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/agents/ag_1', { token });
    expect(await everyByte(res)).not.toContain(UPSTREAM_KEY);
    // The answer's X-Request-Id is the relay's own (watch.ts), whatever the upstream sent.
    expect(res.headers.get('x-request-id')).not.toContain('req-');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${REDACTED}.json"`);
  });
});

describe('over real HTTP', () => {
  let upstream: ServedFetch | undefined;
  let served: ServedRelay | undefined;
  afterEach(async () => {
    await served?.close();
    await upstream?.close();
    served = upstream = undefined;
  });

  it('an upstream echoing its key in SSE (cut mid-key, with pauses), JSON and headers: the client sees none of it', async () => {
    const half = UPSTREAM_KEY.length >> 1;
    upstream = await serveFetch(async (request) => {
      const url = new URL(request.url);
      const echoed = request.headers.get('authorization') ?? '';
      if (url.pathname === '/v1/conversations') {
        const parts = [startedEvent('conv_h'), `data: {"echo":"${echoed.slice(0, 7 + half)}`, `${echoed.slice(7 + half)}"}\n\n`];
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            for (const p of parts) {
              controller.enqueue(encoder.encode(p));
              await new Promise((r) => setTimeout(r, 20));
            }
            controller.close();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-request-id': echoed } });
      }
      return new Response(JSON.stringify({ echo: echoed }), { headers: { 'content-type': 'application/json', 'x-request-id': echoed } });
    });
    const relay = createRelay({
      upstream: { baseUrl: upstream.url, apiKey: UPSTREAM_KEY }, basePath: '/api', secret: SECRET, allowedOrigins: [ORIGIN],
      policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY] },
    });
    served = await serveRelay(relay);
    const session = await fetch(`${served.url}/api/session`, { method: 'POST', headers: { origin: ORIGIN } });
    const { token } = await session.json() as { token: string };
    const headers = { authorization: `Bearer ${token}`, origin: ORIGIN, 'content-type': 'application/json' };

    const stream = await fetch(`${served.url}/api/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ inputs: 'x', stream: true }) });
    const streamed = withoutIds(await everyByte(stream));
    expect(streamed).toContain(`data: {"echo":"Bearer ${REDACTED}"}\n\n`);
    const plain = await everyByte(await fetch(`${served.url}/api/v1/agents/ag_1`, { headers }));
    expect(plain).toContain(`{"echo":"Bearer ${REDACTED}"}`);
    for (const all of [streamed, plain]) expect(all).not.toContain(UPSTREAM_KEY);
  });
});
