import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { ORIGIN, deltaEvent, fakeUpstream, json, makeRelay, openSession, scriptedStream, startedEvent, within, withoutIds, type ScriptedStream } from './helpers.js';

let served: ServedRelay | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Sends raw bytes and returns the whole answer (the request says Connection: close). */
function rawHttp(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (d) => { data += d.toString('latin1'); });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    setTimeout(() => { socket.destroy(); resolve(data); }, 2000);
  });
}

describe('Node adapter over loopback HTTP', () => {
  it('a client disconnect mid-stream aborts the upstream request', async () => {
    const streams: ScriptedStream[] = [];
    const upstream = fakeUpstream((req) => {
      const s = scriptedStream([startedEvent('conv_n'), deltaEvent('a'), deltaEvent('b')], { intervalMs: 30, holdOpen: true, signal: req.signal });
      streams.push(s);
      return s.response;
    });
    // Without resumable streams: with them the relay reads on after the visitor left (resume.test.ts).
    const relay = makeRelay(upstream.fetch, { getClientIp: undefined, resume: false });
    const { token } = await openSession(relay);
    served = await serveRelay(relay);

    const firstChunk = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${served!.url}/api/v1/conversations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: ORIGIN },
      }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.toString());
          req.destroy(); // the visitor closes the tab
        });
      });
      req.on('error', () => {});
      req.end(JSON.stringify({ model: 'm', inputs: 'hi', stream: true }));
      setTimeout(() => reject(new Error('no first chunk')), 2000);
    });
    expect(firstChunk).toContain('conversation.response.started');
    expect(await within(streams[0]!.stopped, 5_000, 'upstream abort')).toMatch(/signal|cancel/);
  });

  it('flushes the answer headers before the first upstream byte', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const streams: ScriptedStream[] = [];
    const upstream = fakeUpstream((req) => {
      const s = scriptedStream([startedEvent('conv_h')], { after: released, signal: req.signal });
      streams.push(s);
      return s.response;
    });
    const relay = makeRelay(upstream.fetch, { heartbeatMs: 10_000 });
    const { token } = await openSession(relay);
    served = await serveRelay(relay);
    // The upstream sends no byte until released, so headers seen now were flushed ahead of the body.
    const res = await within(new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${served!.url}/api/v1/conversations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'm', inputs: 'hi', stream: true }));
    }), 5_000, 'the answer headers while the upstream body is silent');
    expect(streams[0]!.emitted, 'no upstream byte was sent before the headers').toHaveLength(0);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    release();
    let body = '';
    for await (const chunk of res) body += chunk.toString();
    expect(withoutIds(body)).toBe(startedEvent('conv_h'));
  });

  it('raw request targets with dot segments, encodings, backslashes or NUL never reach the upstream', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const relay = makeRelay(upstream.fetch);
    const { token } = await openSession(relay);
    served = await serveRelay(relay);
    const targets = [
      '/api/v1/./models',
      '/api/v1/models/../models',
      '/api/v1/conversations/%2e%2e/admin',
      '/api/v1/conversations/x/%2E%2E/history',
      '/api/v1/x/../models',
      '/api/./v1/models',
      '/api/v1/conversations/x\\admin',
      '/api/v1/models\0',
      'http://evil.example/api/v1/./models',
    ];
    for (const target of targets) {
      const answer = await rawHttp(served.port, `GET ${target} HTTP/1.1\r\nHost: relay.test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 (400|404) /);
    }
    const trace = await rawHttp(served.port, `TRACE /api/v1/models HTTP/1.1\r\nHost: relay.test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(trace).toMatch(/^HTTP\/1\.1 405 /);
    expect(upstream.calls).toHaveLength(0);
    // Control: the plain path works, and an absolute-form target never changes the upstream host.
    const ok = await rawHttp(served.port, `GET http://evil.example/api/v1/models HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(ok).toMatch(/^HTTP\/1\.1 200 /);
    expect(new URL(upstream.calls[0]!.url).host).toBe('platform.internal');
  });

  it('limits by the socket address; a client X-Forwarded-For is not believed', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const relay = makeRelay(upstream.fetch, { getClientIp: undefined, limits: { requestsPerMinute: 60, burst: 2, sessionsPerMinute: 60, sessionBurst: 60 } });
    const { token } = await openSession(relay);
    served = await serveRelay(relay);
    const statuses: number[] = [];
    for (const xff of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
      const res = await fetch(`${served.url}/api/v1/models`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': xff } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
