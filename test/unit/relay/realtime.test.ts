// The relay's realtime route: one-time tickets from `POST /v1/client/sessions`, and the WebSocket
// upgrade piping a page socket to a real `ws` upstream over loopback.
import { Mistral } from '@mistralai/mistralai';
import { HTTPClient } from '@mistralai/mistralai/lib/http.js';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore, type RelayStateStore } from '../../../src/relay/index.js';
import { ORIGIN, UPSTREAM_KEY, fakeUpstream, makeRelay, openSession, sleep, within } from './helpers.js';
import { audioChunk, mintTicket, openPage, ticketFor, useRealtimeHarness } from './realtime-helpers.js';

const MODEL = 'voxtral-mini-transcribe-realtime-2602';
const PATH = `/api/v1/audio/transcriptions/realtime?model=${MODEL}`;

const { relayOver, withUpstream, open, refused } = useRealtimeHarness();

describe('RelayStateStore.useOnce (memory)', () => {
  it('is true once per id, false after, until its ttl has passed', async () => {
    let now = 1_000_000;
    const store = createMemoryStateStore({ now: () => now });
    expect(await store.useOnce('ticket:a', 60)).toBe(true);
    expect(await store.useOnce('ticket:a', 60)).toBe(false);
    expect(await store.useOnce('ticket:b', 60)).toBe(true);
    now += 59_000;
    expect(await store.useOnce('ticket:a', 60)).toBe(false);
    now += 2_000;
    expect(await store.useOnce('ticket:a', 60)).toBe(true);
  });
});

describe('POST /v1/client/sessions (answered by the relay)', () => {
  it('mints a single-use rt_ ticket in the platform shape, living at most 60 s, without calling upstream', async () => {
    const http = fakeUpstream();
    const now = Math.floor(Date.now() / 1000) * 1000; // the relay's clock, stopped on a whole second
    const relay = makeRelay(http.fetch, { now: () => now });
    const { token } = await openSession(relay);
    const res = await mintTicket(relay, token);
    expect(res.status).toBe(201);
    const body = await res.json() as any;
    expect(body).toMatchObject({ object: 'client.session', purpose: 'realtime' });
    expect(body.client_secret.value).toMatch(/^rt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(body.client_secret.expires_at).toBe(body.expires_at);
    expect(body.expires_at).toBe(new Date(now + 60_000).toISOString());
    const short = await (await mintTicket(relay, token, { purpose: 'realtime', model: MODEL, ttl_seconds: 10 })).json() as any;
    expect(short.expires_at).toBe(new Date(now + 10_000).toISOString());
    const long = await (await mintTicket(relay, token, { purpose: 'realtime', model: MODEL, ttl_seconds: 900 })).json() as any;
    expect(long.expires_at, 'capped at 60 s').toBe(new Date(now + 60_000).toISOString());
    expect(http.calls).toHaveLength(0);
  });

  it("the official SDK's realtime.sessions.create parses the relay's answer", async () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    const relay = makeRelay(fakeUpstream().fetch, { now: () => now });
    const { token } = await openSession(relay);
    const httpClient = new HTTPClient({
      fetcher: (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init);
        request.headers.set('origin', ORIGIN);
        return relay.fetch(request);
      },
    });
    const sdk = new Mistral({ apiKey: token, serverURL: 'http://relay.test/api', httpClient });
    const session = await sdk.realtime.sessions.create({ purpose: 'realtime', model: MODEL, ttlSeconds: 30 });
    expect(session.clientSecret.value).toMatch(/^rt_/);
    expect(session.expiresAt.getTime()).toBe(now + 30_000);
  });

  it('needs the transcription scope and an allowed model', async () => {
    const noScope = makeRelay(fakeUpstream().fetch, { policy: { scopes: ['conversations'] } });
    const a = await openSession(noScope);
    const res = await mintTicket(noScope, a.token);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ object: 'error', code: 'scope_not_allowed' });

    const oneModel = makeRelay(fakeUpstream().fetch, { policy: { models: [MODEL], limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } } });
    const b = await openSession(oneModel);
    expect((await mintTicket(oneModel, b.token)).status).toBe(201);
    const other = await mintTicket(oneModel, b.token, { purpose: 'realtime', model: 'another-model' });
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ code: 'model_not_allowed' });
    expect((await mintTicket(oneModel, 'not-a-token')).status).toBe(401);
  });

  it('answers 422 in the platform shape for bad bodies', async () => {
    const relay = makeRelay(fakeUpstream().fetch);
    const { token } = await openSession(relay);
    const cases: Array<[unknown, string, string]> = [
      [{ model: MODEL }, 'purpose', 'missing'],
      [{ purpose: 'chat', model: MODEL }, 'purpose', 'literal_error'],
      [{ purpose: 'realtime' }, 'model', 'missing'],
      [{ purpose: 'realtime', model: 7 }, 'model', 'string_type'],
      [{ purpose: 'realtime', model: MODEL, ttl_seconds: 'soon' }, 'ttl_seconds', 'int_type'],
      [{ purpose: 'realtime', model: MODEL, ttl_seconds: 0 }, 'ttl_seconds', 'greater_than_equal'],
    ];
    for (const [body, field, type] of cases) {
      const res = await mintTicket(relay, token, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const answer = await res.json() as any;
      expect(answer.detail).toContainEqual(expect.objectContaining({ loc: ['body', field], type }));
    }
    const notJson = await relay.fetch(new Request('http://relay.test/api/v1/client/sessions', {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: ORIGIN }, body: '{',
    }));
    expect(notJson.status).toBe(400);
  });
});

describe('the realtime WebSocket through the relay', () => {
  it('pipes a session end to end: subprotocol, the relay key upstream only, update, audio, done, close', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    const ticket = await ticketFor(relay, token);
    let handshake = '';
    const page = open(await openPage(served.url, PATH, ['realtime', ticket]));
    page.socket.once('upgrade', (res) => { handshake = JSON.stringify(res.headers); });
    expect(page.protocol).toBe('realtime');
    expect((await page.next('session.created')).session.audio_format).toEqual({ encoding: 'pcm_s16le', sample_rate: 16000 });

    page.socket.send(JSON.stringify({ type: 'session.update', session: { audio_format: { encoding: 'pcm_s16le', sample_rate: 24000 } }, extra: 'dropped' }));
    expect((await page.next('session.updated')).session.audio_format.sample_rate).toBe(24000);
    page.socket.send(JSON.stringify({ type: 'input_audio.append', audio: audioChunk(800) }));
    page.socket.send(JSON.stringify({ type: 'input_audio.append', audio: audioChunk(800) }));
    page.socket.send(JSON.stringify({ type: 'input_audio.flush' }));
    page.socket.send(JSON.stringify({ type: 'input_audio.end' }));
    const done = await page.next('transcription.done');
    expect(done.text).toBe('heard 3200 bytes');
    expect((await page.closed).code).toBe(1000);

    const seen = upstream.connections[0]!;
    expect(seen.url).toBe(`/v1/audio/transcriptions/realtime?model=${MODEL}`);
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(seen.headers.origin).toBeUndefined();
    expect(seen.headers['sec-websocket-protocol']).toBeUndefined();
    expect(seen.received.map((m) => m.type)).toEqual(['session.update', 'input_audio.append', 'input_audio.append', 'input_audio.flush', 'input_audio.end']);
    expect(seen.received[0]).not.toHaveProperty('extra');
    expect(page.raw.join('\n') + handshake).not.toContain(UPSTREAM_KEY);
  });

  it('never passes the upstream key to the page, even when the upstream echoes it', async () => {
    const upstream = await withUpstream({
      onConnect: (socket) => {
        socket.send(JSON.stringify({ type: 'session.created', session: { request_id: `r-${UPSTREAM_KEY}`, model: MODEL, audio_format: { encoding: 'pcm_s16le', sample_rate: 16000 } } }));
        return true;
      },
    });
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    const created = await page.next('session.created');
    expect(created.session.request_id).toBe('r-[redacted]');
  });

  it('a ticket works once: a second relay instance sharing the state store refuses it with 401, before any upstream connection', async () => {
    const upstream = await withUpstream();
    const store = createMemoryStateStore();
    const a = await relayOver(upstream, { store });
    const b = await relayOver(upstream, { store });
    const { token } = await openSession(a.relay);
    const ticket = await ticketFor(a.relay, token);
    const first = open(await openPage(a.served.url, PATH, ['realtime', ticket]));
    await first.next('session.created');
    const again = refused(await openPage(b.served.url, PATH, ['realtime', ticket]));
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ object: 'error', type: 'authentication_error', message: expect.stringContaining('already used') });
    expect(refused(await openPage(a.served.url, PATH, ['realtime', ticket])).status).toBe(401);
    expect(upstream.connections).toHaveLength(1);
  });

  it('refuses expired, malformed, missing and wrong-model tickets with 401, and revoked sessions', async () => {
    const upstream = await withUpstream();
    let now = Date.now();
    const { relay, served } = await relayOver(upstream, { now: () => now });
    const { token, session_id } = await openSession(relay);
    const expiring = await ticketFor(relay, token);
    const wrongModel = await ticketFor(relay, token, 'voxtral-mini-latest');
    const forRevoked = await ticketFor(relay, token);
    const tampered = expiring.slice(0, -3) + (expiring.endsWith('AAA') ? 'BBB' : 'AAA');

    expect(refused(await openPage(served.url, PATH, ['realtime', tampered])).status).toBe(401);
    expect(refused(await openPage(served.url, PATH, ['realtime'])).status).toBe(401);
    expect(refused(await openPage(served.url, PATH, [expiring.replace('rt_', 'xx_')])).status).toBe(401);
    const wrong = refused(await openPage(served.url, PATH, ['realtime', wrongModel]));
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toContain('voxtral-mini-latest');
    now += 61_000;
    const expired = refused(await openPage(served.url, PATH, ['realtime', expiring]));
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('expired');
    now -= 61_000;
    await relay.revokeSession(session_id);
    expect(refused(await openPage(served.url, PATH, ['realtime', forRevoked])).status).toBe(401);
    expect(upstream.connections).toHaveLength(0);
  });

  it('revoking a session closes its open sockets: at once on this instance, within the check interval on another sharing the store', async () => {
    const upstream = await withUpstream();
    const store = createMemoryStateStore();
    // Each instance sees the shared store through its own window, which notes what its polls were told.
    let revoked = false;
    const polls = { a: 0, b: 0, bToldRevoked: 0 };
    const through = (name: 'a' | 'b'): RelayStateStore => ({
      ...store,
      // b misses the store's announcement (as after a dropped pub/sub connection): only its poll can tell it.
      onRevoked: name === 'b' ? () => () => {} : store.onRevoked,
      async isRevoked(ids, issued) {
        const answer = await store.isRevoked(ids, issued);
        if (revoked) { polls[name]++; if (name === 'b' && answer) polls.bToldRevoked++; }
        return answer;
      },
    });
    // Instance a never polls within the test: its socket must be closed by the revocation itself.
    const a = await relayOver(upstream, { store: through('a'), realtime: { revocationCheckMs: 60_000 } });
    const b = await relayOver(upstream, { store: through('b'), realtime: { revocationCheckMs: 100 } });
    const { token, session_id } = await openSession(a.relay);
    const other = await openSession(a.relay);
    const here = open(await openPage(a.served.url, PATH, ['realtime', await ticketFor(a.relay, token)]));
    const there = open(await openPage(b.served.url, PATH, ['realtime', await ticketFor(a.relay, token)]));
    const unrelated = open(await openPage(a.served.url, PATH, ['realtime', await ticketFor(a.relay, other.token)]));
    await Promise.all([here.next('session.created'), there.next('session.created'), unrelated.next('session.created')]);

    revoked = true;
    await a.relay.revokeSession(session_id);
    expect((await here.next('error')).error).toMatchObject({ code: 401, message: expect.stringContaining('revoked') });
    expect((await within(here.closed, 5_000, 'local close')).code).toBe(1008);
    expect(polls.a, 'closed by the revocation itself, not by a poll of the store').toBe(0);
    expect((await there.next('error')).error.code).toBe(401);
    expect((await within(there.closed, 5_000, 'remote close')).code).toBe(1008);
    expect(polls.bToldRevoked, 'closed when its own poll of the shared store found the session revoked').toBeGreaterThan(0);
    // The upstream sockets of the revoked session are closed too; the other session goes on.
    await within(upstream.connections[0]!.closed, 5_000, 'upstream close');
    await within(upstream.connections[1]!.closed, 5_000, 'upstream close');
    unrelated.socket.send(JSON.stringify({ type: 'input_audio.end' }));
    expect((await unrelated.next('transcription.done')).type).toBe('transcription.done');
  });

  it('refuses a wrong or missing Origin with 403 (cross-site WebSocket hijacking)', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    const ticket = await ticketFor(relay, token);
    expect(refused(await openPage(served.url, PATH, ['realtime', ticket], 'https://evil.example')).status).toBe(403);
    const missing = refused(await openPage(served.url, PATH, ['realtime', ticket], null));
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('origin_mismatch');
    expect(upstream.connections).toHaveLength(0);
    // The refusals did not use the ticket up.
    open(await openPage(served.url, PATH, ['realtime', ticket]));
  });

  it('does not upgrade path tricks, other paths or extra query parameters', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    for (const path of [
      `/api/v1/audio/transcriptions%2Frealtime?model=${MODEL}`,
      `/api//v1/audio/transcriptions/realtime?model=${MODEL}`,
      `/API/v1/audio/transcriptions/realtime?model=${MODEL}`,
      `/api/v1/audio/Transcriptions/realtime?model=${MODEL}`,
      `/api/v1/audio/transcriptions/realtime/?model=${MODEL}`,
      `/api/v1/audio/transcriptions/realtime;x=1?model=${MODEL}`,
      `/api/v1/conversations`,
    ]) {
      expect(refused(await openPage(served.url, path, ['realtime', await ticketFor(relay, token)])).status, path).toBe(404);
    }
    const extra = refused(await openPage(served.url, `${PATH}&token=x`, ['realtime', await ticketFor(relay, token)]));
    expect(extra.status).toBe(400);
    expect(upstream.connections).toHaveLength(0);
  });

  it('forwards only the four client message types, answering the others with an error event', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await page.next('session.created');
    page.socket.send(JSON.stringify({ type: 'conversation.item.create', item: {} }));
    expect((await page.next('error')).error).toEqual({ message: "Unknown message type 'conversation.item.create'", code: 400 });
    page.socket.send('not json');
    expect((await page.next('error')).error.code).toBe(400);
    page.socket.send(JSON.stringify({ type: 'input_audio.append', audio: 'not base64!' }));
    expect((await page.next('error')).error.code).toBe(422);
    page.socket.send(JSON.stringify({ type: 'session.update', session: { audio_format: { encoding: 'mp3', sample_rate: 16000 } } }));
    expect((await page.next('error')).error.code).toBe(422);
    page.socket.send(JSON.stringify({ type: 'input_audio.flush' }));
    await within((async () => { while (!upstream.connections[0]!.received.length) await sleep(10); })(), 5_000, 'flush upstream');
    expect(upstream.connections[0]!.received).toEqual([{ type: 'input_audio.flush' }]);
  });

  it('closes with an error event on an oversize frame, too much audio, and idleness', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream, { realtime: { maxFrameBytes: 4096, maxAudioBytes: 6000, idleTimeoutMs: 300 } });
    const { token } = await openSession(relay);

    const big = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await big.next('session.created');
    big.socket.send(JSON.stringify({ type: 'input_audio.append', audio: audioChunk(2000) }));
    expect((await big.next('error')).error.code).toBe(413);
    expect((await big.closed).code).toBe(1009);

    const much = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await much.next('session.created');
    for (let i = 0; i < 4; i++) much.socket.send(JSON.stringify({ type: 'input_audio.append', audio: audioChunk(1000) }));
    expect((await much.next('error')).error).toMatchObject({ code: 413, message: expect.stringContaining('6000') });
    expect((await much.closed).code).toBe(1008);
    // Two chunks (4000 bytes) passed, the one over the cap did not.
    expect(upstream.connections[1]!.received).toHaveLength(2);

    const idle = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await idle.next('session.created');
    expect((await idle.next('error')).error.code).toBe(408);
    expect((await idle.closed).code).toBe(1008);
    expect(await within(upstream.connections[2]!.closed, 5_000, 'upstream close')).toBeGreaterThan(0);
  });

  it('holds the session stream cap: a second socket is refused with 429 while the first is open', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream, { policy: { limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 1 } } });
    const { token } = await openSession(relay);
    const first = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await first.next('session.created');
    expect(refused(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)])).status).toBe(429);
    first.socket.close();
    await first.closed;
    // The relay frees the slot when the page socket closes, before it closes the upstream one.
    await within(upstream.connections[0]!.closed, 5_000, 'upstream close');
    const second = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await second.next('session.created');
  });

  it('answers 502 when the upstream refuses the socket, and an error event when it drops mid-session', async () => {
    const refusing = await withUpstream({ verify: () => false });
    const a = await relayOver(refusing);
    const s = await openSession(a.relay);
    const no = refused(await openPage(a.served.url, PATH, ['realtime', await ticketFor(a.relay, s.token)]));
    expect(no.status).toBe(502);
    expect(JSON.stringify(no.body)).not.toContain(UPSTREAM_KEY);

    const dropping = await withUpstream({
      onConnect: (socket) => {
        socket.send(JSON.stringify({ type: 'session.created', session: { request_id: 'r', model: MODEL, audio_format: { encoding: 'pcm_s16le', sample_rate: 16000 } } }));
        setTimeout(() => socket.close(1011, 'engine crashed'), 100);
        return true;
      },
    });
    const b = await relayOver(dropping);
    const t = await openSession(b.relay);
    const page = open(await openPage(b.served.url, PATH, ['realtime', await ticketFor(b.relay, t.token)]));
    await page.next('session.created');
    expect((await page.next('error')).error.code).toBe(502);
    expect((await page.closed).code).toBe(1011);
  });

  it('a malformed handshake with a good ticket leaves no upstream socket or stream slot behind', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream, { policy: { limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 1 } } });
    const { token } = await openSession(relay);
    const port = new URL(served.url).port;
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', async () => {
        socket.write([
          `GET ${PATH} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', `Origin: ${ORIGIN}`,
          `Sec-WebSocket-Protocol: realtime, ${await ticketFor(relay, token)}`, 'Sec-WebSocket-Version: 13', '', '',
        ].join('\r\n'));
      });
      let data = '';
      socket.on('data', (d) => { data += d.toString(); });
      socket.on('close', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(await within(upstream.connections[0]!.closed, 5_000, 'upstream close')).toBeGreaterThan(0);
    // The slot was given back: a proper socket opens under a cap of 1.
    const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await page.next('session.created');
  });

  it('closes the upstream socket when the page goes away', async () => {
    const upstream = await withUpstream();
    const { relay, served } = await relayOver(upstream);
    const { token } = await openSession(relay);
    const page = open(await openPage(served.url, PATH, ['realtime', await ticketFor(relay, token)]));
    await page.next('session.created');
    page.socket.terminate();
    expect(await within(upstream.connections[0]!.closed, 5_000, 'upstream close')).toBeGreaterThan(0);
  });
});
