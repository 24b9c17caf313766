import { describe, expect, it, vi } from 'vitest';
import { ORIGIN, UPSTREAM_KEY, api, everyByte, fakeUpstream, json, makeRelay, openSession } from './helpers.js';

describe('request headers (client → upstream)', () => {
  it('drops credentials, cookies, forwarding and hop-by-hop headers and those named in Connection; sets the key', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/models', {
      token,
      headers: {
        cookie: 'session=abc',
        'proxy-authorization': 'Basic eHl6',
        forwarded: 'for=1.2.3.4',
        'x-forwarded-for': '1.2.3.4',
        'x-forwarded-host': 'evil.example',
        'x-real-ip': '1.2.3.4',
        connection: 'keep-alive, x-foo, accept-language',
        'keep-alive': 'timeout=5',
        'x-foo': 'named in Connection',
        te: 'trailers',
        trailer: 'x-bar',
        upgrade: 'h2c',
        'accept-language': 'fr',
        'x-internal-debug': '1',
        'x-request-id': 'req-123',
        accept: 'application/json',
      },
    });
    expect(res.status).toBe(200);
    const seen = upstream.calls[0]!.headers;
    expect([...seen.keys()].sort()).toEqual(['accept', 'accept-encoding', 'authorization', 'x-request-id']);
    expect(seen.get('authorization')).toBe(`Bearer ${UPSTREAM_KEY}`);
    // The relay's own request id (a client's is taken only from a trusted proxy: watch.test.ts), also answered.
    expect(seen.get('x-request-id')).not.toBe('req-123');
    expect(seen.get('x-request-id')).toBe(res.headers.get('x-request-id'));
  });

  it('forwards the JSON body bytes unchanged with their content type', async () => {
    const upstream = fakeUpstream(async (req) => json({ conversation_id: 'conv_a', echo: await req.text(), type: req.headers.get('content-type') }));
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const raw = '{ "model":"m",  "inputs":"héllo" }';
    const res = await api(relay, '/v1/conversations', { token, rawBody: raw, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(await res.json()).toMatchObject({ echo: raw, type: 'application/json; charset=utf-8' });
  });
});

describe('response headers (upstream → client)', () => {
  it('drops Set-Cookie, Server, internal and Connection-named headers; adds no-store, nosniff, Server-Timing', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }, 200, {
      'set-cookie': 'upstream=1; HttpOnly',
      server: 'platform/1.2',
      'x-powered-by': 'x',
      'x-org-id': 'org_1',
      'mistral-correlation-id': 'c',
      'x-ratelimit-remaining-tokens': '5',
      connection: 'x-secret-hop',
      'x-secret-hop': 'hop',
      'x-request-id': 'req-9',
      'cache-control': 'public, max-age=600',
      'access-control-allow-origin': '*',
    }));
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/models', { token, headers: { origin: ORIGIN } });
    const names = [...res.headers.keys()].sort();
    expect(names).toEqual([
      'access-control-allow-origin', 'access-control-expose-headers', 'cache-control', 'content-type',
      'server-timing', 'vary', 'x-content-type-options', 'x-request-id',
    ]);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('server-timing')).toMatch(/^relay;dur=\d+(\.\d+)?, upstream;dur=\d+(\.\d+)?$/);
  });

  it('Server-Timing measures the relay only, not the upstream wait', async () => {
    // performance.now is faked: the relay's own work takes 7 ms of the fake clock (in its client-address
    // lookup), the upstream's answer 120 ms, and nothing else moves it.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const upstream = fakeUpstream(() => { vi.advanceTimersByTime(120); return json({ object: 'list', data: [] }); });
      const relay = makeRelay(upstream.fetch, { getClientIp: () => { vi.advanceTimersByTime(7); return '203.0.113.7'; } });
      const { token } = await openSession(relay);
      const res = await api(relay, '/v1/models', { token });
      expect(res.headers.get('server-timing')).toBe('relay;dur=7.00, upstream;dur=120.00');
    } finally {
      vi.useRealTimers();
    }
  });

  it("the relay's own answers carry the same headers", async () => {
    const relay = makeRelay(fakeUpstream().fetch);
    for (const res of [await api(relay, '/v1/models'), await api(relay, '/v1/nothing'), await openSession(relay).then(() => api(relay, '/v1/models', { token: 'x' }))]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('server-timing')).toMatch(/^relay;dur=/);
    }
  });
});

describe('upstream failures', () => {
  it('one retry on a connection failure, then the answer', async () => {
    let n = 0;
    const upstream = fakeUpstream(() => {
      if (n++ === 0) throw new TypeError(`fetch failed: connect ECONNREFUSED (Authorization: Bearer ${UPSTREAM_KEY})`);
      return json({ object: 'list', data: [] });
    });
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    expect((await api(relay, '/v1/models', { token })).status).toBe(200);
    expect(upstream.calls).toHaveLength(2);
  });

  it('one retry on 502/503 (also for a POST with its body sent again), never a second', async () => {
    const bodies: string[] = [];
    const upstream = fakeUpstream(async (req) => { bodies.push(await req.text()); return json({ message: 'busy' }, 503); });
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: { model: 'm', inputs: 'x' } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'server_error', code: 'upstream_error', param: null });
    expect(bodies).toEqual([JSON.stringify({ model: 'm', inputs: 'x' }), JSON.stringify({ model: 'm', inputs: 'x' })]);
  });

  it('no retry for a 500 or 4xx', async () => {
    for (const status of [500, 400, 404, 422, 429]) {
      const upstream = fakeUpstream(() => json({ object: 'error', message: 'nope' }, status));
      const relay = makeRelay(upstream.fetch);
      const { token } = await openSession(relay);
      expect((await api(relay, '/v1/models', { token })).status).toBe(status);
      expect(upstream.calls).toHaveLength(1);
    }
  });

  it('passes 4xx bodies (validation details) through; replaces 5xx bodies with its own', async () => {
    const detail = { detail: [{ loc: ['body', 'inputs'], msg: 'Field required', type: 'missing' }] };
    const relay422 = makeRelay(fakeUpstream(() => json(detail, 422)).fetch);
    const t = (await openSession(relay422)).token;
    const res = await api(relay422, '/v1/conversations', { token: t, body: { model: 'm' } });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual(detail);

    const relay500 = makeRelay(fakeUpstream(() => json({ message: 'stack trace at /srv/platform.js', internal: true }, 500, { 'retry-after': '7' })).fetch);
    const res500 = await api(relay500, '/v1/models', { token: (await openSession(relay500)).token });
    expect(res500.status).toBe(500);
    expect(res500.headers.get('retry-after')).toBe('7');
    expect(await res500.text()).not.toContain('stack trace');
  });

  it('an upstream 401 (our key refused) or redirect becomes 502, so the page does not think its token failed', async () => {
    for (const response of [json({ message: 'bad key' }, 401), new Response(null, { status: 302, headers: { location: 'https://evil.example/' } })]) {
      const relay = makeRelay(fakeUpstream(() => response.clone()).fetch);
      const res = await api(relay, '/v1/models', { token: (await openSession(relay)).token });
      expect(res.status).toBe(502);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('a slow upstream gets 504 and is aborted', async () => {
    let aborted = false;
    const upstream = fakeUpstream((req) => new Promise((_, reject) => req.signal.addEventListener('abort', () => { aborted = true; reject(req.signal.reason); })));
    const relay = makeRelay(upstream.fetch, { upstreamTimeoutMs: 50 });
    const res = await api(relay, '/v1/models', { token: (await openSession(relay)).token });
    expect(res.status).toBe(504);
    expect(aborted).toBe(true);
  });
});

describe('the upstream key never reaches the client', () => {
  it('in no response byte or header, on success or on any failure path', async () => {
    const leaky = `{"message":"invalid key ${UPSTREAM_KEY}","key":"${UPSTREAM_KEY}"}`;
    const handlers: Array<() => Response | Promise<Response>> = [
      () => json({ object: 'list', data: [{ id: 'm' }] }),
      () => new Response(leaky, { status: 400, headers: { 'content-type': 'application/json', 'x-echo': UPSTREAM_KEY } }),
      () => new Response(leaky, { status: 401, headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer ${UPSTREAM_KEY}` } }),
      () => new Response(leaky, { status: 403, headers: { 'content-type': 'application/json' } }),
      () => new Response(leaky, { status: 404, headers: { 'content-type': 'application/json' } }),
      () => new Response(leaky, { status: 422, headers: { 'content-type': 'application/json' } }),
      () => new Response(leaky, { status: 429, headers: { 'content-type': 'application/json' } }),
      () => new Response(leaky, { status: 500, headers: { 'content-type': 'application/json', 'set-cookie': `k=${UPSTREAM_KEY}` } }),
      () => new Response(leaky, { status: 502 }),
      () => new Response(leaky, { status: 503 }),
      () => { throw new Error(`connect failed with ${UPSTREAM_KEY}`); },
      () => new Response(null, { status: 307, headers: { location: `https://x.example/?key=${UPSTREAM_KEY}` } }),
    ];
    for (const handler of handlers) {
      const relay = makeRelay(fakeUpstream(handler).fetch, { onError: () => {} });
      const session = await openSession(relay);
      for (const [path, body] of [['/v1/models', undefined], ['/v1/conversations', { model: 'm', inputs: 'x' }], ['/v1/conversations', { model: 'm', inputs: 'x', stream: true }]] as const) {
        const all = await everyByte(await api(relay, path, { token: session.token, body }));
        expect(all).not.toContain(UPSTREAM_KEY);
        expect(all).not.toContain(UPSTREAM_KEY.slice(3, 20));
      }
    }
  });
});
