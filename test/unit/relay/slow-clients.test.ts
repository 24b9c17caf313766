// Slow clients against a served relay (serveRelay, real sockets): headers dribbled a byte at a time,
// bodies dribbled or stalled, idle keep-alive sockets. Small option values keep the test short; what is
// asserted is that the socket closes or the 408 arrives, never how long it took (the times are printed).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, ANY, DEFAULT_BODY_RATE_LIMITS, createRelay, serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { DEFAULT_SERVER_TIMEOUTS, serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { ORIGIN, SECRET, UPSTREAM_KEY, within } from './helpers.js';

/** What the upstream saw of one request. */
interface Seen { path: string; complete?: boolean; failed?: boolean; aborted: Promise<void> }

let upstream: ServedFetch;
let served: ServedRelay;
let token: string;
const seen: Seen[] = [];

beforeAll(async () => {
  upstream = await serveFetch(async (request) => {
    let aborted!: () => void;
    const entry: Seen = { path: new URL(request.url).pathname, aborted: new Promise((r) => { aborted = r; }) };
    request.signal.addEventListener('abort', () => aborted(), { once: true });
    seen.push(entry);
    try {
      await request.arrayBuffer();
      entry.complete = true;
    } catch {
      entry.failed = true;
      aborted();
    }
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  });
  const relay = createRelay({
    upstream: { baseUrl: upstream.url, apiKey: UPSTREAM_KEY },
    basePath: '/api', secret: SECRET, allowedOrigins: [ORIGIN],
    policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY] },
    bodyRate: { idleTimeoutMs: 400, minBytesPerSecond: 200, graceMs: 400 },
  });
  served = await serveRelay(relay, {
    timeouts: { headersTimeoutMs: 600, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 300, timeoutCheckIntervalMs: 100 },
  });
  const res = await fetch(`${served.url}/api/session`, { method: 'POST', headers: { origin: ORIGIN } });
  token = ((await res.json()) as { token: string }).token;
});

afterAll(async () => {
  await served?.close();
  await upstream?.close();
});

/** A raw connection to the relay: what it received, and a promise of its close. */
async function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(served.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d) => { text += d.toString('latin1'); });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/** Writes `text` one byte every `everyMs` until it is written or the socket closes; returns how many bytes went. */
function dribble(socket: Socket, text: string, everyMs: number): { sent: () => number; stop: () => void } {
  let i = 0;
  const timer = setInterval(() => {
    if (i >= text.length || socket.destroyed) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
  return { sent: () => i, stop: () => clearInterval(timer) };
}

/** Waits until `check` holds (polling), with a generous safety net. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  await within((async () => { while (!check()) await new Promise((r) => setTimeout(r, 20)); })(), ms, what);
}

describe('slow clients are dropped (Node adapter timeouts)', () => {
  it('headers sent at a byte at a time → the socket is closed before they are complete', async () => {
    const { socket, closed, received } = await open();
    const headers = `GET /api/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n`;
    const started = performance.now();
    const slow = dribble(socket, headers, 20);
    await within(closed, 15_000, 'socket close');
    console.log(`[slow-clients] headers at 50 B/s, headersTimeoutMs 600: socket closed after ${Math.round(performance.now() - started)} ms`);
    expect(slow.sent()).toBeLessThan(headers.length);
    expect(received()).toMatch(/^(HTTP\/1\.1 408|$)/);
  });

  it('an idle keep-alive socket is closed after its response', async () => {
    const { socket, closed, received } = await open();
    socket.write(`GET /api/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: keep-alive\r\n\r\n`);
    await until(() => received().includes('"ok":true'), 'response');
    const answered = performance.now();
    await within(closed, 15_000, 'keep-alive socket close');
    console.log(`[slow-clients] keepAliveTimeoutMs 300: idle socket closed ${Math.round(performance.now() - answered)} ms after its response`);
    expect(received()).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('slow bodies → 408 in the relay error shape (createRelay bodyRate)', () => {
  it('a JSON body at a few bytes per second → 408 request_timeout, no upstream call', async () => {
    const before = seen.length;
    const { socket, closed, received } = await open();
    const body = JSON.stringify({ inputs: 'x'.repeat(500) });
    socket.write(`POST /api/v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    const slow = dribble(socket, body, 20);
    await until(() => received().includes('\r\n\r\n{'), '408 answer');
    slow.stop();
    expect(received()).toMatch(/^HTTP\/1\.1 408/);
    expect(received()).toContain('"code":"request_timeout"');
    expect(received()).toContain('"object":"error"');
    expect(slow.sent()).toBeLessThan(body.length);
    expect(seen.length).toBe(before);
    socket.end();
    await within(closed, 15_000, 'socket close');
  });

  it('a transcription upload that starts well, then dribbles → 408, and the upstream upload is aborted', async () => {
    const before = seen.length;
    const { socket, received } = await open();
    const head = `--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nvoxtral-mini-latest\r\n`
      + `--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF\0\0\0\0WAVEfmt ${'\0'.repeat(100)}`;
    const rest = 'x'.repeat(5000);
    socket.write(`POST /api/v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
      + `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${head.length + rest.length + 8}\r\n\r\n${head}`);
    const slow = dribble(socket, rest, 20);
    await until(() => received().includes('\r\n\r\n{'), '408 answer');
    slow.stop();
    expect(received()).toMatch(/^HTTP\/1\.1 408/);
    expect(received()).toContain('"code":"request_timeout"');
    expect(seen.length).toBe(before + 1);
    const call = seen[before]!;
    expect(call.path).toBe('/v1/audio/transcriptions');
    await within(call.aborted, 5_000, 'upstream abort');
    expect(call.complete).not.toBe(true);
    socket.destroy();
  });

  it('a session request body dribbled → 408 too', async () => {
    const { socket, received } = await open();
    const body = JSON.stringify({ note: 'y'.repeat(300) });
    socket.write(`POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${ORIGIN}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    const slow = dribble(socket, body, 20);
    await until(() => received().includes('\r\n\r\n{'), '408 answer');
    slow.stop();
    expect(received()).toMatch(/^HTTP\/1\.1 408/);
    expect(received()).toContain('"code":"request_timeout"');
    socket.destroy();
  });

  it('a body that stops → 408 after the idle timeout', async () => {
    const { socket, received } = await open();
    socket.write(`POST /api/v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
      + 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"inputs":');
    await until(() => received().includes('\r\n\r\n{'), '408 answer');
    expect(received()).toMatch(/^HTTP\/1\.1 408/);
    expect(received()).toContain('No request body bytes arrived');
    socket.destroy();
  });

  it('a body at a fair pace passes', async () => {
    const { socket, received } = await open();
    const body = JSON.stringify({ inputs: 'hello' });
    socket.write(`POST /api/v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    // Two halves 100 ms apart: never idle for 400 ms, and done within the grace period.
    socket.write(body.slice(0, 10));
    setTimeout(() => socket.write(body.slice(10)), 100);
    await until(() => received().includes('"ok":true'), 'answer');
    expect(received()).toMatch(/^HTTP\/1\.1 200/);
    socket.destroy();
  });
});

describe('defaults', () => {
  it('drop a 1 byte/s client well within 30 s (headers ≤ 20 s + one check; a body at the grace period)', () => {
    expect(DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs + DEFAULT_SERVER_TIMEOUTS.timeoutCheckIntervalMs).toBeLessThan(30_000);
    expect(DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs).toBeLessThanOrEqual(20_000);
    // Node closes an idle keep-alive socket about 1 s after keepAliveTimeout.
    expect(DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs + 1_000).toBeLessThanOrEqual(5_000);
    // A 1 byte/s body is below the minimum rate from the first second: it is cut when the grace period ends.
    expect(DEFAULT_BODY_RATE_LIMITS.minBytesPerSecond).toBeGreaterThan(1);
    expect(Math.min(DEFAULT_BODY_RATE_LIMITS.graceMs, DEFAULT_BODY_RATE_LIMITS.idleTimeoutMs * 1000)).toBeLessThan(30_000);
  });
});
