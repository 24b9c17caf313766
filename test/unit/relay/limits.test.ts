import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress, createMemoryStateStore, parseIp } from '../../../src/relay/index.js';
import { ORIGIN, api, fakeUpstream, json, makeRelay, openSession, sessionCall } from './helpers.js';

function listUpstream() {
  return fakeUpstream(() => json({ object: 'list', data: [] }));
}

describe('per-session token bucket', () => {
  it('a burst over the bucket → 429 with Retry-After; other sessions are unaffected; it refills', async () => {
    let now = Date.now();
    const upstream = listUpstream();
    const relay = makeRelay(upstream.fetch, { now: () => now, policy: { limits: { requestsPerMinute: 6, burst: 3, concurrentStreams: 2 } } });
    const a = await openSession(relay);
    const b = await openSession(relay);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(relay, '/v1/models', { token: a.token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await api(relay, '/v1/models', { token: a.token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10'); // 6/min → one token per 10 s
    expect(await limited.json()).toMatchObject({ object: 'error', type: 'rate_limit_error', code: 'rate_limited', param: null });
    expect(upstream.calls).toHaveLength(3);
    expect((await api(relay, '/v1/models', { token: b.token })).status).toBe(200);
    now += 10_000;
    expect((await api(relay, '/v1/models', { token: a.token })).status).toBe(200);
    expect((await api(relay, '/v1/models', { token: a.token })).status).toBe(429);
  });

  it('the limit follows the session across refreshed tokens', async () => {
    const relay = makeRelay(listUpstream().fetch, { policy: { limits: { requestsPerMinute: 1, burst: 2, concurrentStreams: 1 } } });
    const a = await openSession(relay);
    await api(relay, '/v1/models', { token: a.token });
    await api(relay, '/v1/models', { token: a.token });
    const refreshed = await openSession(relay, { token: a.token });
    expect((await api(relay, '/v1/models', { token: refreshed.token })).status).toBe(429);
  });
});

describe('per-address limits', () => {
  function relayWithAddress(getIp: (r: Request) => string, options: Parameters<typeof makeRelay>[1] = {}) {
    return makeRelay(listUpstream().fetch, {
      getClientIp: getIp,
      limits: { requestsPerMinute: 60, burst: 2, sessionsPerMinute: 60, sessionBurst: 100 },
      ...options,
    });
  }

  it('limits API calls per address across sessions', async () => {
    const relay = relayWithAddress((r) => r.headers.get('x-test-ip')!);
    const a = await openSession(relay, undefined, { origin: ORIGIN, 'x-test-ip': '198.51.100.1' });
    const b = await openSession(relay, undefined, { origin: ORIGIN, 'x-test-ip': '198.51.100.1' });
    const ip = (i: string) => ({ 'x-test-ip': i });
    expect((await api(relay, '/v1/models', { token: a.token, headers: ip('198.51.100.1') })).status).toBe(200);
    expect((await api(relay, '/v1/models', { token: b.token, headers: ip('198.51.100.1') })).status).toBe(200);
    expect((await api(relay, '/v1/models', { token: b.token, headers: ip('198.51.100.1') })).status).toBe(429);
    expect((await api(relay, '/v1/models', { token: b.token, headers: ip('198.51.100.2') })).status).toBe(200);
  });

  it('IPv6 addresses in the same /56 share a bucket; another /56 does not', async () => {
    const relay = relayWithAddress((r) => r.headers.get('x-test-ip')!);
    const { token } = await openSession(relay);
    const call = (ip: string) => api(relay, '/v1/models', { token, headers: { 'x-test-ip': ip } }).then((r) => r.status);
    expect(await call('2001:db8:1234:5600::1')).toBe(200);
    expect(await call('2001:db8:1234:56ff:ffff::9')).toBe(200);
    expect(await call('2001:0db8:1234:5680:0:0:0:1')).toBe(429);
    expect(await call('2001:db8:1234:5700::1')).toBe(200);
  });

  it('limits session minting per address', async () => {
    const relay = relayWithAddress(() => '192.0.2.9', { limits: { requestsPerMinute: 60, burst: 60, sessionsPerMinute: 6, sessionBurst: 2 } });
    expect((await sessionCall(relay)).status).toBe(200);
    expect((await sessionCall(relay)).status).toBe(200);
    const third = await sessionCall(relay);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('10');
  });

  it('a spoofed X-Forwarded-For from an untrusted hop does not reset the bucket', async () => {
    const relay = makeRelay(listUpstream().fetch, {
      getClientIp: undefined,
      limits: { requestsPerMinute: 60, burst: 2, sessionsPerMinute: 60, sessionBurst: 100 },
    });
    const { token } = await openSession(relay);
    const env = { clientIp: '203.0.113.50' };
    const call = (xff: string) => relay.fetch(new Request('http://relay.test/api/v1/models', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': xff } }), env).then((r) => r.status);
    expect([await call('1.1.1.1'), await call('2.2.2.2'), await call('3.3.3.3')]).toEqual([200, 200, 429]);
  });
});

describe('client address', () => {
  const req = (xff?: string) => new Request('http://x/', { headers: xff ? { 'x-forwarded-for': xff } : {} });

  it('uses the host socket address by default and ignores X-Forwarded-For', () => {
    expect(clientAddress(req('1.2.3.4'), { clientIp: '10.0.0.1' }, {})).toBe('10.0.0.1');
    expect(clientAddress(req('1.2.3.4'), { incoming: { socket: { remoteAddress: '10.0.0.2' } } }, {})).toBe('10.0.0.2');
    expect(clientAddress(req(), undefined, {})).toBe('unknown');
  });

  it('with trustProxy, takes the address the trusted hop saw', () => {
    expect(clientAddress(req('6.6.6.6, 1.2.3.4'), { clientIp: '10.0.0.1' }, { trustProxy: true })).toBe('1.2.3.4');
    expect(clientAddress(req('6.6.6.6, 1.2.3.4, 10.0.0.5'), { clientIp: '10.0.0.1' }, { trustProxy: 2 })).toBe('1.2.3.4');
    expect(clientAddress(req('1.2.2.355'), { clientIp: '10.0.0.1' }, { trustProxy: true })).toBe('10.0.0.1');
  });

  it('parses addresses strictly and keys IPv6 by /56', () => {
    expect(parseIp('1.2.2.355')).toBeNull();
    expect(parseIp('01.2.3.4')).toBeNull();
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:c633:6407')).toBe('198.51.100.7');
    expect(addressKey('2001:db8:aaaa:bbcc:1::1')).toBe('2001:db8:aaaa:bb00::/56');
    expect(addressKey('[2001:db8:aaaa:bbff::2]')).toBe('2001:db8:aaaa:bb00::/56');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/56');
    expect(parseIp('1::2::3')).toBeNull();
    expect(parseIp('1:2:3:4:5:6:7:8:9')).toBeNull();
  });
});

describe('memory state store', () => {
  it('token buckets refill over time and report when to retry', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now });
    const spec = { capacity: 2, refillPerSecond: 0.5 };
    expect((await store.takeToken('k', spec)).allowed).toBe(true);
    expect((await store.takeToken('k', spec)).allowed).toBe(true);
    expect(await store.takeToken('k', spec)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    now = 2000;
    expect((await store.takeToken('k', spec)).allowed).toBe(true);
  });

  it('ownership expires, lists newest first, and is bounded per session', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now, maxConversationsPerSession: 2 });
    await store.setConversationOwner('c1', 's', 10);
    await store.setConversationOwner('c2', 's', 100);
    await store.setConversationOwner('c3', 's', 100);
    expect(await store.listConversations('s')).toEqual(['c3', 'c2']);
    expect(await store.getConversationOwner('c1')).toBeNull();
    now = 200_000;
    expect(await store.getConversationOwner('c3')).toBeNull();
    expect(await store.listConversations('s')).toEqual([]);
  });

  it('stream slots and revocations', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now });
    const slot = await store.openStream('s', 1);
    expect(slot).toEqual(expect.any(String));
    expect(await store.openStream('s', 1)).toBeNull();
    await store.closeStream('s', 'not-a-slot');
    expect(await store.openStream('s', 1)).toBeNull();
    await store.closeStream('s', slot!);
    expect(await store.openStream('s', 1)).toEqual(expect.any(String));
    await store.revoke('sid', 5);
    expect(await store.isRevoked(['x', 'sid'])).toBe(true);
    now = 6000;
    expect(await store.isRevoked(['sid'])).toBe(false);
  });
});

describe('two relay instances sharing one store', () => {
  it('rate limits, conversation ownership and revocation hold across instances', async () => {
    const store = createMemoryStateStore();
    const upstream = fakeUpstream((req) => json({ conversation_id: 'conv_shared', object: 'list', data: [], url: req.url }));
    const options = { store, policy: { limits: { requestsPerMinute: 6, burst: 3, concurrentStreams: 2 } } };
    const one = makeRelay(upstream.fetch, options);
    const two = makeRelay(upstream.fetch, options);
    const a = await openSession(one);
    const b = await openSession(two);
    await api(one, '/v1/conversations', { token: a.token, body: { model: 'm', inputs: 'x' } });
    expect((await api(two, '/v1/conversations/conv_shared/history', { token: a.token })).status).toBe(200);
    expect((await api(two, '/v1/conversations/conv_shared/history', { token: b.token })).status).toBe(404);
    // Burst 3: start (one), history (two), then one more on each instance.
    expect((await api(two, '/v1/models', { token: a.token })).status).toBe(200);
    expect((await api(one, '/v1/models', { token: a.token })).status).toBe(429);
    await one.revokeSession(b.session_id);
    expect((await api(two, '/v1/models', { token: b.token })).status).toBe(401);
  });
});
