// The Node adapter's own paths: the keep-alive node:http upstream client (used when the relay has no
// upstream.fetch) and request bodies read straight from the socket, against a real node:http upstream.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayOptions, type ServedRelay } from '../../../src/relay/index.js';
import { ORIGIN, SECRET, UPSTREAM_KEY, within, withoutIds } from './helpers.js';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string; closed: Promise<void> }

let servers: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const s of servers.reverse()) await s.close();
  servers = [];
});

/** A real upstream on loopback; `handle` answers each request after its body was read. */
async function upstream(handle: (res: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    const closed = new Promise<void>((r) => res.on('close', () => r()));
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body, closed };
      seen.push(s);
      handle(res, s);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

async function relayOn(baseUrl: string, options: Partial<RelayOptions> = {}) {
  const relay = createRelay({
    upstream: { baseUrl, apiKey: UPSTREAM_KEY },
    allowedOrigins: [ORIGIN], secret: SECRET, retryDelayMs: 0,
    limits: { requestsPerMinute: 10_000, burst: 10_000, sessionsPerMinute: 10_000, sessionBurst: 10_000 },
    policy: { limits: { requestsPerMinute: 10_000, burst: 10_000, concurrentStreams: 5 } },
    onError: (e) => { if (process.env.DEBUG_RELAY) console.error(e); },
    ...options,
  });
  const served: ServedRelay = await serveRelay(relay);
  servers.push(served);
  const session = await (await fetch(`${served.url}/session`, { method: 'POST', headers: { origin: ORIGIN } })).json() as { token: string };
  const headers = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json', origin: ORIGIN };
  return { url: served.url, headers };
}

const conversation = (extra: Record<string, unknown> = {}) => JSON.stringify({ object: 'conversation.response', conversation_id: 'conv_n1', outputs: [], ...extra });

function sendJson(res: ServerResponse, body: string, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'set-cookie': 'a=b', server: 'up' }).end(body);
}

describe('the Node upstream client (no upstream.fetch given)', () => {
  it('forwards with the relay key and allowlisted headers only, and answers small JSON whole with the key scrubbed', async () => {
    const up = await upstream((res, seen) => sendJson(res, conversation({ echo: `key ${UPSTREAM_KEY} in ${seen.url}` })));
    const relay = await relayOn(up.url);
    const res = await fetch(`${relay.url}/v1/conversations`, {
      method: 'POST', headers: { ...relay.headers, cookie: 'c=d', 'x-forwarded-for': '1.2.3.4', 'x-request-id': 'r1' },
      body: JSON.stringify({ inputs: 'hi' }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(JSON.parse(text).echo).toBe('key [redacted] in /v1/conversations');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('server')).toBeNull();
    const seen = up.seen[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-forwarded-for']).toBeUndefined();
    expect(seen.headers['x-request-id']).toBe(res.headers.get('x-request-id')); // the relay's own, not the client's 'r1'
    expect(seen.headers['x-request-id']).not.toBe('r1');
    // Sent by node:http, not by the global fetch (which adds `user-agent: node` and `sec-fetch-mode`).
    expect(seen.headers['user-agent']).toBeUndefined();
    expect(seen.headers['sec-fetch-mode']).toBeUndefined();
    expect(JSON.parse(seen.body)).toEqual({ inputs: 'hi' });
    // The conversation is owned: the next call on it passes the ownership check.
    const again = await fetch(`${relay.url}/v1/conversations/conv_n1`, { method: 'POST', headers: relay.headers, body: JSON.stringify({ inputs: 'more' }) });
    expect(again.status).toBe(200);
    expect(up.seen[1]!.url).toBe('/v1/conversations/conv_n1');
  });

  it('passes a large answer through as a stream, intact', async () => {
    const big = conversation({ filler: 'x'.repeat(300_000) });
    const up = await upstream((res, seen) => (seen.url === '/v1/conversations' ? sendJson(res, conversation()) : sendJson(res, big)));
    const relay = await relayOn(up.url);
    await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    const res = await fetch(`${relay.url}/v1/conversations/conv_n1`, { method: 'POST', headers: relay.headers, body: '{"inputs":"b"}' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(big);
  });

  it('streams SSE as it comes, and a client leaving closes the upstream request', async () => {
    const up = await upstream((res, seen) => {
      if (!seen.body.includes('"stream":true')) return sendJson(res, conversation());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message.output.delta\ndata: {"n":1}\n\n');
      // …and holds the stream open.
    });
    // Without resumable streams: with them the relay reads on after the client left (resume.test.ts).
    const relay = await relayOn(up.url, { resume: false });
    await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    const first = await within(new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${relay.url}/v1/conversations/conv_n1`, { method: 'POST', headers: relay.headers }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.toString());
          req.destroy();
        });
      });
      req.on('error', () => {});
      req.end(JSON.stringify({ inputs: 'b', stream: true }));
      req.on('close', () => reject(new Error('closed before the first event')));
    }), 5_000, 'the first event');
    expect(first).toContain('data: {"n":1}');
    await within(up.seen[1]!.closed, 5_000, 'the upstream request closed');
  });

  it('SSE read straight from the upstream socket: the key scrubbed across chunks, a broken upstream ends with an error event', async () => {
    const half = Math.floor(UPSTREAM_KEY.length / 2);
    const up = await upstream((res, seen) => {
      if (!seen.body.includes('"stream":true')) return sendJson(res, conversation());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message.output.delta\ndata: {"echo":"${UPSTREAM_KEY.slice(0, half)}`);
      setTimeout(() => res.write(`${UPSTREAM_KEY.slice(half)}"}\n\n`), 20);
      setTimeout(() => res.socket?.destroy(), 60); // the platform goes away mid-stream
    });
    const relay = await relayOn(up.url);
    await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    const res = await fetch(`${relay.url}/v1/conversations/conv_n1`, { method: 'POST', headers: relay.headers, body: '{"inputs":"b","stream":true}' });
    expect(res.status).toBe(200);
    const text = await within(res.text(), 5_000, 'the end of the stream');
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain(UPSTREAM_KEY.slice(0, half));
    expect(withoutIds(text)).toContain('data: {"echo":"[redacted]"}\n\n');
    expect(text).toMatch(/event: conversation\.response\.error\ndata: .*The platform stream broke/);
  });

  it('a client leaving before a JSON answer closes the upstream request', async () => {
    const up = await upstream((res, seen) => {
      if (seen.url === '/v1/conversations') sendJson(res, conversation());
      // …the append is never answered.
    });
    const relay = await relayOn(up.url);
    await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    const req = httpRequest(`${relay.url}/v1/conversations/conv_n1`, { method: 'POST', headers: relay.headers });
    req.on('error', () => {});
    req.end('{"inputs":"b"}');
    await within(new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (up.seen.length < 2) return;
        clearInterval(poll);
        resolve();
      }, 5);
    }), 5_000, 'the upstream call');
    req.destroy(); // the visitor closes the tab
    await within(up.seen[1]!.closed, 5_000, 'the upstream request closed');
  });

  it('answers 502 in its own words when the upstream cannot be reached', async () => {
    const up = await upstream(() => {});
    const port = new URL(up.url).port;
    await servers.pop()!.close(); // nothing listens there any more
    const relay = await relayOn(`http://127.0.0.1:${port}`);
    const res = await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    expect(res.status).toBe(502);
    expect((await res.json()).code).toBe('upstream_unavailable');
  });

  it('an answer that breaks off after its headers is a 502, and the POST is not sent again', async () => {
    const up = await upstream((res) => {
      const body = conversation();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, 10));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const relay = await relayOn(up.url);
    const res = await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    expect(res.status).toBe(502);
    expect((await res.json()).code).toBe('upstream_unavailable');
    expect(up.seen.filter((s) => s.url === '/v1/conversations')).toHaveLength(1);
  });

  it('carries bodiless statuses, and answers 502 for a status a Response cannot carry', async () => {
    const up = await upstream((res, seen) => {
      if (seen.url === '/v1/conversations') return sendJson(res, conversation());
      if (seen.method === 'DELETE') return res.writeHead(205, { 'content-length': '0' }).end();
      res.writeHead(600, { 'content-type': 'application/json', 'content-length': '2' }).end('{}');
    });
    const relay = await relayOn(up.url);
    await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    const odd = await fetch(`${relay.url}/v1/conversations/conv_n1`, { headers: relay.headers });
    expect(odd.status, await odd.clone().text()).toBe(502);
    expect((await odd.json()).code).toBe('upstream_unavailable');
    const deleted = await fetch(`${relay.url}/v1/conversations/conv_n1`, { method: 'DELETE', headers: relay.headers });
    expect(deleted.status).toBe(205);
    expect(await deleted.text()).toBe('');
  });

  it('is not used when the relay was given its own upstream.fetch', async () => {
    const up = await upstream((res) => sendJson(res, conversation()));
    const calls: string[] = [];
    const relay = await relayOn(up.url, {
      upstream: { baseUrl: up.url, apiKey: UPSTREAM_KEY, fetch: async (request) => { calls.push(request.url); return fetch(request); } },
    });
    const res = await fetch(`${relay.url}/v1/conversations`, { method: 'POST', headers: relay.headers, body: '{"inputs":"a"}' });
    expect(res.status).toBe(200);
    expect(calls).toEqual([`${up.url}/v1/conversations`]);
  });
});

describe('request bodies read from the socket (Node adapter)', () => {
  /** Sends a request by hand; `chunks` are written one by one, `gapMs` apart. */
  function raw(url: string, head: string, chunks: string[], gapMs = 0): Promise<string> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', async () => {
        socket.write(head);
        for (const c of chunks) {
          if (socket.destroyed) break;
          socket.write(c);
          if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        }
      });
      let data = '';
      socket.on('data', (d) => { data += d.toString('latin1'); if (/\r\n\r\n[\s\S]*\}/.test(data)) { socket.destroy(); resolve(data); } });
      socket.on('close', () => resolve(data));
      socket.on('error', (e) => (data ? resolve(data) : reject(e)));
    });
  }

  const head = (path: string, headers: Record<string, string>, framing: string) =>
    `POST ${path} HTTP/1.1\r\nHost: relay.test\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}${framing}\r\n`;

  it('refuses a chunked JSON body that grows past the cap with 413, without an upstream call', async () => {
    const up = await upstream((res) => sendJson(res, conversation()));
    const relay = await relayOn(up.url, { bodyLimits: { conversations: 1000 } });
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
    const answer = await raw(relay.url, head('/v1/conversations', relay.headers, 'Transfer-Encoding: chunked\r\n'),
      [chunk(`{"inputs":"${'x'.repeat(600)}`), chunk(`${'y'.repeat(600)}"}`), '0\r\n\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(up.seen).toHaveLength(0);
  });

  it('cuts a JSON body that stops arriving with 408', async () => {
    const up = await upstream((res) => sendJson(res, conversation()));
    const relay = await relayOn(up.url, { bodyRate: { idleTimeoutMs: 300, graceMs: 300, minBytesPerSecond: 1024 } });
    const answer = await within(raw(relay.url, head('/v1/conversations', relay.headers, 'Content-Length: 40\r\n'), ['{"inputs":']), 10_000, 'the 408');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(up.seen).toHaveLength(0);
  });

  it('reads a body that arrives in pieces', async () => {
    const up = await upstream((res) => sendJson(res, conversation()));
    const relay = await relayOn(up.url);
    const body = JSON.stringify({ inputs: 'in pieces' });
    const answer = await raw(relay.url, head('/v1/conversations', relay.headers, `Content-Length: ${body.length}\r\n`), [body.slice(0, 5), body.slice(5)], 20);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(JSON.parse(up.seen[0]!.body)).toEqual({ inputs: 'in pieces' });
  });
});
