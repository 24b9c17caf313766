import { describe, expect, it } from 'vitest';
import { ORIGIN, RELAY, api, fakeUpstream, json, makeRelay, openSession, sessionCall } from './helpers.js';

const EVIL = ['null', 'https://evil.example', 'https://shop.example.evil.example', 'https://evilshop.example', 'http://shop.example', 'https://shop.example:8443', 'https://SHOP.example', 'https://shop.example/'];

function setup() {
  const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
  return { upstream, relay: makeRelay(upstream.fetch) };
}

describe('CORS', () => {
  it('an allowed origin gets the exact echo, Vary: Origin, and readable Retry-After/Server-Timing', async () => {
    const { relay } = setup();
    const { token } = await openSession(relay);
    const res = await api(relay, '/v1/models', { token, headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('errors for an allowed origin are readable too (the page can show a 401 or 429)', async () => {
    const { relay } = setup();
    const res = await api(relay, '/v1/models', { token: 'bad', headers: { origin: ORIGIN } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it.each(EVIL)('origin %s is refused, and can read nothing but the refusal', async (origin) => {
    const { relay, upstream } = setup();
    const { token } = await openSession(relay);
    // Well-formed origins may read the 403 (so the site owner learns why); null and malformed ones get no echo at all.
    const canonical = !['null', 'https://SHOP.example', 'https://shop.example/'].includes(origin);
    const res = await api(relay, '/v1/models', { token, headers: { origin } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('origin_not_allowed');
    expect(res.headers.get('access-control-allow-origin')).toBe(canonical ? origin : null);
    expect(res.headers.get('access-control-expose-headers')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
    const session = await sessionCall(relay, undefined, { origin });
    expect(session.status).toBe(403);
    expect((await session.json()).code).toBe('origin_not_allowed');
    expect(session.headers.get('access-control-allow-origin')).toBe(canonical ? origin : null);
    // Any other answer (here: no such route) stays unreadable to it.
    const other = await api(relay, '/v1/nothing-here', { token, headers: { origin } });
    expect(other.status).toBe(404);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await relay.fetch(new Request(`${RELAY}/v1/models`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }));
    expect(preflight.status).toBe(canonical ? 204 : 403);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(canonical ? origin : null);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(upstream.calls).toHaveLength(0);
  });

  it('preflight for an allowed origin lists the route methods and the Authorization header', async () => {
    const { relay, upstream } = setup();
    const res = await relay.fetch(new Request(`${RELAY}/v1/conversations`, {
      method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, GET');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toContain('Origin');
    const session = await relay.fetch(new Request(`${RELAY}/session`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } }));
    expect(session.status).toBe(204);
    expect(session.headers.get('access-control-allow-methods')).toBe('POST');
    expect(upstream.calls).toHaveLength(0);
  });

  it('same-origin pages are allowed by default, and not when allowSameOrigin is false', async () => {
    // relay.test is a name, not localhost or an IP: same-origin is judged against the configured public origin.
    const relay = makeRelay(fakeUpstream(() => json({ object: 'list', data: [] })).fetch, { publicOrigin: 'http://relay.test' });
    const own = await openSession(relay, undefined, { origin: 'http://relay.test' });
    const res = await api(relay, '/v1/models', { token: own.token, headers: { origin: 'http://relay.test' } });
    expect(res.status).toBe(200);
    // A token minted for another page's origin is not usable from here.
    expect((await api(relay, '/v1/models', { token: (await openSession(relay)).token, headers: { origin: 'http://relay.test' } })).status).toBe(403);
    const strict = makeRelay(fakeUpstream().fetch, { allowSameOrigin: false, publicOrigin: 'http://relay.test' });
    expect((await strict.fetch(new Request(`${RELAY}/session`, { method: 'POST', headers: { origin: 'http://relay.test' } }))).status).toBe(403);
  });

  it('requests without Origin (server-side SDK use) need only the token', async () => {
    const { relay } = setup();
    const res = await api(relay, '/v1/models', { token: (await openSession(relay)).token });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a malformed allowed origin at startup', () => {
    expect(() => makeRelay(fakeUpstream().fetch, { allowedOrigins: ['https://shop.example/path'] })).toThrow(/origin/);
    expect(() => makeRelay(fakeUpstream().fetch, { allowedOrigins: ['*'] })).toThrow(/origin/);
  });
});
