// Behind a real reverse proxy (nginx, appending the visitor's address to X-Forwarded-For), each visitor
// gets their own per-address bucket when the relay trusts one proxy hop, and all share the proxy's bucket
// when it trusts none. Visitors are told apart by their source address (127.0.0.2, 127.0.0.3: all of
// 127/8 is loopback on Linux).
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { ORIGIN, SECRET, UPSTREAM, UPSTREAM_KEY, fakeUpstream, json } from './helpers.js';
import { requireNginx, startNginx } from './nginx-helpers.js';

/** `POST /session` from `localAddress`, with extra headers; the status. */
function session(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: '/session', method: 'POST', localAddress, agent: false,
      headers: { origin: ORIGIN, 'content-length': '0', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const running: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];
beforeAll(requireNginx);
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await ('stop' in r ? r.stop() : r.close());
});
afterAll(async () => {
  for (const r of running.splice(0)) await ('stop' in r ? r.stop() : r.close());
});

/** A relay behind nginx, two sessions per address per minute. */
async function relayBehindNginx(trustProxy: number | undefined) {
  const relay = createRelay({
    upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: fakeUpstream(() => json({})).fetch },
    allowedOrigins: [ORIGIN], secret: SECRET, trustProxy,
    limits: { sessionsPerMinute: 1, sessionBurst: 2 },
  });
  const served: ServedRelay = await serveRelay(relay, { port: 0, hostname: '127.0.0.1' });
  running.push(served);
  const nginx = await startNginx([served.url]);
  running.push(nginx);
  return nginx.url;
}

describe('--trust-proxy behind a real reverse proxy', () => {
  it('trusting one hop: each visitor has their own bucket, and a forged X-Forwarded-For does not buy a new one', async () => {
    const url = await relayBehindNginx(1);
    expect([await session(url, '127.0.0.2'), await session(url, '127.0.0.2'), await session(url, '127.0.0.2')]).toEqual([200, 200, 429]);
    // Another visitor is not affected by the first one's empty bucket.
    expect([await session(url, '127.0.0.3'), await session(url, '127.0.0.3')]).toEqual([200, 200]);
    // The first visitor claiming to be someone else: nginx appends the real address, which is the one believed.
    expect(await session(url, '127.0.0.2', { 'x-forwarded-for': '198.51.100.9' })).toBe(429);
  });

  it('trusting none (the default): every visitor shares the proxy’s bucket', async () => {
    const url = await relayBehindNginx(undefined);
    expect([await session(url, '127.0.0.2'), await session(url, '127.0.0.2')]).toEqual([200, 200]);
    expect(await session(url, '127.0.0.3')).toBe(429);
  });

  it('trusting two hops when only one proxy stands in front: the client-written entry is believed (why hops must match)', async () => {
    const url = await relayBehindNginx(2);
    // Documented hazard: with one hop too many, a client can pick its bucket. Each forged address gets a fresh one.
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect([await session(url, '127.0.0.2', { 'x-forwarded-for': forged }), await session(url, '127.0.0.2', { 'x-forwarded-for': forged })]).toEqual([200, 200]);
    }
  });
});
