// The Node adapter's drain (served.drain(), node/drain-server.ts) in this process, over real sockets: a
// request that arrives on a connection opened before the drain (pipelined behind an open reply) is answered
// 503 `relay_draining` with `Connection: close` once the reply finished, and the connection is then closed;
// a realtime socket still open at the drain deadline gets an `error` event and close 1001 (going away).
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { RELAY_RESTARTING } from '../../../src/relay/drain.js';
import { ORIGIN, UPSTREAM, UPSTREAM_KEY, deltaEvent, fakeUpstream, makeRelay, openSession, scriptedStream, sseEvent, startedEvent, within } from './helpers.js';
import { fakeRealtimeUpstream, openPage, ticketFor } from './realtime-helpers.js';

const served: ServedRelay[] = [];
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) await c();
});

describe('serveRelay: drain', () => {
  it('answers a request pipelined on an open connection with 503 relay_draining and Connection: close, after the open reply finished', async () => {
    const events = [startedEvent('conv_pipelined')];
    for (let i = 0; i < 20; i++) events.push(deltaEvent(`p${i} `));
    events.push(sseEvent('conversation.response.done', { usage: {}, created_at: '2026-01-01T00:00:00.000000Z' }));
    const upstream = fakeUpstream(() => scriptedStream(events, { intervalMs: 20 }).response);
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    const server = await serveRelay(relay);
    served.push(server);

    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { received += chunk; });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = JSON.stringify({ model: 'm', inputs: 'hi', stream: true });
    socket.write(`POST /api/v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${ORIGIN}\r\nAuthorization: Bearer ${token}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await within(waitUntil(() => received.includes('p2 ')), 10_000, 'the first deltas');

    expect(relay.draining).toBe(false);
    const drained = server.drain({ timeoutMs: 60_000 });
    expect(server.draining).toBe(true);
    expect(relay.draining).toBe(true);
    socket.write(`POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${ORIGIN}\r\nContent-Length: 0\r\n\r\n`);

    expect(await within(drained, 30_000, 'the drain')).toEqual({ handedOver: 0, endedAtDeadline: 0 });
    await within(closed, 10_000, 'the server to close the connection');
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('p19 ');
    expect(first).toContain('conversation.response.done');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4))).toMatchObject({ object: 'error', code: 'relay_draining' });
    // Nothing new reached the platform after the drain began.
    expect(upstream.calls).toHaveLength(1);
  });

  it('closes a realtime socket still open at the drain deadline with an error event and 1001, and the upstream socket with it', async () => {
    const realtime = await fakeRealtimeUpstream();
    cleanups.push(() => realtime.close());
    const http = fakeUpstream();
    const relay = makeRelay(http.fetch, { upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: http.fetch, webSocketBaseUrl: () => realtime.url } });
    const server = await serveRelay(relay);
    served.push(server);
    const { token } = await openSession(relay);
    const model = 'voxtral-mini-transcribe-realtime-2602';
    const page = await openPage(server.url, `/api/v1/audio/transcriptions/realtime?model=${model}`, ['realtime', await ticketFor(relay, token, model)]);
    if (page.kind !== 'open') throw new Error(`refused ${page.status}: ${page.body}`);
    cleanups.push(() => page.socket.terminate());
    await page.next('session.created');

    // The socket stays open through the drain time, then is ended.
    const report = await within(server.drain({ timeoutMs: 300 }), 30_000, 'the drain');
    expect(report).toEqual({ handedOver: 0, endedAtDeadline: 1 });
    expect(await page.next('error')).toEqual({ type: 'error', error: { message: RELAY_RESTARTING, code: 503 } });
    expect((await within(page.closed, 10_000, 'the page socket to close')).code).toBe(1001);
    expect(realtime.connections).toHaveLength(1);
    await within(realtime.connections[0]!.closed, 10_000, 'the upstream socket to close');
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}
