// Refused bodies on the relay over real sockets: six clients send 10 MB (in about a second each) to a conversation route at once,
// with and without Content-Length. Each must read the 413 in the relay's error shape, never EPIPE/ECONNRESET
// (the relay drains what a refused client is still sending before answering: src/server/body-guard.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, ANY, createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { ORIGIN, SECRET, UPSTREAM_KEY } from '../relay/helpers.js';
import { sendBody } from './send-body.js';

let upstream: ServedFetch;
let served: ServedRelay;
let upstreamCalls = 0;

beforeAll(async () => {
  upstream = await serveFetch(async (request) => {
    upstreamCalls++;
    await request.arrayBuffer();
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  });
  const relay = createRelay({
    upstream: { baseUrl: upstream.url, apiKey: UPSTREAM_KEY },
    basePath: '/api', secret: SECRET, allowedOrigins: [ORIGIN],
    policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY] },
    bodyLimits: { conversations: 1024 * 1024 }, // 10 MB is then refused as it streams (the default cap is 27.7 MB)
  });
  served = await serveRelay(relay);
});

/** A new session (each test its own: the per-session rate limit is not what is tested). */
async function mint(): Promise<string> {
  const res = await fetch(`${served.url}/api/session`, { method: 'POST', headers: { origin: ORIGIN } });
  return ((await res.json()) as { token: string }).token;
}

afterAll(async () => {
  await served?.close();
  await upstream?.close();
});

const TEN_MB = 10 * 1024 * 1024;

describe('a refused body is answered, not cut (relay)', () => {
  for (const contentLength of [true, false]) {
    it(`six parallel 10 MB bodies to /v1/conversations ${contentLength ? 'with Content-Length' : 'chunked'} → six readable 413s`, async () => {
      const url = `${served.url}/api/v1/conversations`;
      const headers = { authorization: `Bearer ${await mint()}`, 'content-type': 'application/json' };
      const results = await Promise.all(Array.from({ length: 6 }, () => sendBody(url, {
        size: TEN_MB, contentLength, headers, chunkBytes: 128 * 1024, paceMs: 30, // a client on a line slower than localhost
        head: Buffer.from('{"inputs":"'), tail: Buffer.from('"}'),
      })));
      for (const r of results) {
        expect(r.error, `client error after ${r.written} bytes`).toBeUndefined();
        expect(r.lateError, `socket error after the answer, ${r.written} bytes sent`).toBeUndefined();
        expect(r.sentAll).toBe(true);
        expect(r.status).toBe(413);
        const body = JSON.parse(r.text!) as { object: string; type: string; code: string };
        expect(body.object).toBe('error');
        expect(body.code).toBe('request_too_large');
      }
      expect(upstreamCalls).toBe(0);
    });
  }
});
