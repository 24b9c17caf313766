// Same-origin judged against the public origin, and the DNS-rebinding case, over real HTTP: the Host
// header is what a rebound page's browser sends, so the requests here set it by hand (node:http).
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayOptions, type ServedRelay } from '../../../src/relay/index.js';
import { SECRET, UPSTREAM, UPSTREAM_KEY, fakeUpstream, json } from './helpers.js';

const served: ServedRelay[] = [];
afterEach(async () => {
  await Promise.all(served.splice(0).map((s) => s.close()));
});

async function serve(options: Partial<RelayOptions> = {}) {
  const relay = createRelay({
    upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: fakeUpstream(() => json({ object: 'list', data: [] })).fetch },
    secret: SECRET,
    policy: { scopes: ['conversations', 'models:read'], agents: [], models: ['*'] },
    ...options,
  });
  const server = await serveRelay(relay, { port: 0, hostname: '127.0.0.1' });
  served.push(server);
  return server;
}

/** `POST /session` over HTTP with the given Host and Origin headers. */
function openSession(server: ServedRelay, host: string, origin: string): Promise<{ status: number; allowOrigin: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/session', method: 'POST', headers: { host, origin, 'content-length': '0' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allowOrigin: res.headers['access-control-allow-origin'] as string | undefined, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('same-origin without a public origin: only localhost and IP hosts', () => {
  it('a DNS-rebound name (Host and Origin both evil.example) is refused; localhost and IP literals are same-origin', async () => {
    const server = await serve();
    const rebound = await openSession(server, `evil.example:${server.port}`, `http://evil.example:${server.port}`);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ object: 'error', code: 'origin_not_allowed' });
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, `192.168.1.20:${server.port}`]) {
      const own = await openSession(server, host, `http://${host}`);
      expect(own.status, host).toBe(200);
      expect(own.allowOrigin).toBe(`http://${host}`);
    }
    // Same-origin means the very same origin: another port or scheme of localhost is another site.
    expect((await openSession(server, `localhost:${server.port}`, `http://localhost:${server.port + 1}`)).status).toBe(403);
    expect((await openSession(server, `localhost:${server.port}`, `https://localhost:${server.port}`)).status).toBe(403);
  });
});

describe('same-origin with a public origin', () => {
  it('a page is same-origin only when its Origin is the public origin, whatever the Host says', async () => {
    const server = await serve({ publicOrigin: 'https://chat.shop.example' });
    // Behind a TLS proxy the Host is the public name and the page's Origin is the public origin.
    expect((await openSession(server, 'chat.shop.example', 'https://chat.shop.example')).status).toBe(200);
    // The Host is not consulted: a rebound name, or a matching Host for another origin, does not pass.
    expect((await openSession(server, `evil.example:${server.port}`, `http://evil.example:${server.port}`)).status).toBe(403);
    expect((await openSession(server, 'chat.shop.example', 'http://chat.shop.example')).status).toBe(403);
    // With a public origin set, even localhost pages are not same-origin (they are another origin).
    expect((await openSession(server, `127.0.0.1:${server.port}`, `http://127.0.0.1:${server.port}`)).status).toBe(403);
  });

  it('allowed origins still work beside it, and a malformed public origin is refused at creation', async () => {
    const server = await serve({ publicOrigin: 'https://chat.shop.example', allowedOrigins: ['https://shop.example'] });
    expect((await openSession(server, 'chat.shop.example', 'https://shop.example')).status).toBe(200);
    expect(() => createRelay({ upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY }, publicOrigin: 'chat.shop.example' })).toThrow(/publicOrigin 'chat\.shop\.example' is not an origin/);
  });

  it('allowSameOrigin false wins over the public origin', async () => {
    const server = await serve({ publicOrigin: 'https://chat.shop.example', allowSameOrigin: false });
    expect((await openSession(server, 'chat.shop.example', 'https://chat.shop.example')).status).toBe(403);
  });
});
