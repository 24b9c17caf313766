// Two relay instances (createRelay + serveRelay, real HTTP) sharing one real redis-server, in front
// of one mock platform (a real HTTP server streaming SSE, and a real `ws` realtime server): tickets,
// revocation (library, subject, operator endpoint), buckets, stream counts and ownership hold across
// instances; revocation closes open SSE streams and sockets on both; Redis down → 503, then recovery.
// Delays of revocation are measured and printed, never asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import {
  ALL_SCOPES, ANY, createRedisStateStore, createRelay, serveRelay, type Relay, type RelayOptions, type RedisStateStore, type RelayStateStore, type ServedRelay,
} from '../../../src/relay/index.js';
import { ORIGIN, SECRET, api, fakeUpstream, makeRelay, openSession, readOn, scriptedStream, sseEvent, startedEvent, withoutIds } from './helpers.js';
import { fakeRealtimeUpstream, openPage, type Opened } from './realtime-helpers.js';
import { startRedis, waitFor, type RedisServer } from './redis-helpers.js';

const KEY = 'sk-upstream-multi-7d3e1f';
const OPERATOR_SECRET = 'operator-secret-0123456789-abcdefghijklmnop';
const MODEL = 'voxtral-mini-transcribe-realtime-2602';
const WS_PATH = `/api/v1/audio/transcriptions/realtime?model=${MODEL}`;
const SAFETY_MS = 10_000;

let redis: RedisServer;
let platform: ServedFetch;
let realtimeUpstream: Awaited<ReturnType<typeof fakeRealtimeUpstream>>;
const closers: Array<() => Promise<unknown>> = [];
let conversationCount = 0;
const upstreamAborts: string[] = [];

/** The mock platform: conversations (JSON, or SSE held open until the relay aborts), models. */
async function startPlatform(): Promise<ServedFetch> {
  const encoder = new TextEncoder();
  return serveFetch(async (request) => {
    if (request.headers.get('authorization') !== `Bearer ${KEY}`) return Response.json({ message: 'bad key' }, { status: 401 });
    const url = new URL(request.url);
    if (url.pathname === '/v1/models') return Response.json({ object: 'list', data: [] });
    const match = /^\/v1\/conversations(?:\/([A-Za-z0-9_-]+))?$/.exec(url.pathname);
    if (!match || request.method !== 'POST') return Response.json({ message: 'not found' }, { status: 404 });
    const body = await request.json() as { stream?: boolean };
    const id = match[1] ?? `conv_${++conversationCount}`;
    if (!body.stream) return Response.json({ object: 'conversation.response', conversation_id: id, outputs: [], usage: {} });
    let timer: ReturnType<typeof setInterval> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (type: string, data: Record<string, unknown>) =>
          controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`));
        send('conversation.response.started', { conversation_id: id, created_at: new Date().toISOString() });
        let n = 0;
        timer = setInterval(() => {
          try { send('message.output.delta', { content: `tok${n++} ` }); } catch { clearInterval(timer); }
        }, 50);
        request.signal.addEventListener('abort', () => { clearInterval(timer); upstreamAborts.push(id); });
      },
      cancel() {
        clearInterval(timer);
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
  });
}

/** One relay instance: its own Redis connection (as a separate process would have), served on loopback. */
interface Instance { relay: Relay; served: ServedRelay; store: RelayStateStore; url: string; errors: unknown[] }

async function instance(options: Partial<RelayOptions> = {}, wrap: (s: RedisStateStore) => RelayStateStore = (s) => s): Promise<Instance> {
  const redisStore = await createRedisStateStore({ url: redis.url, keyPrefix: 'multi:', onError: () => {} });
  closers.push(() => redisStore.close());
  const store = wrap(redisStore);
  const errors: unknown[] = [];
  const relay = createRelay({
    upstream: { baseUrl: platform.url, apiKey: KEY, webSocketBaseUrl: realtimeUpstream.url },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: SECRET,
    store,
    operatorSecret: OPERATOR_SECRET,
    // Announcements must do the closing: the polling fallback would take a minute.
    revocationCheckMs: 60_000,
    limits: { requestsPerMinute: 100_000, burst: 100_000, sessionsPerMinute: 100_000, sessionBurst: 100_000 },
    policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY], limits: { requestsPerMinute: 100_000, burst: 100_000, concurrentStreams: 20 } },
    retryDelayMs: 0,
    // The site names the end user (`user` in the session body) and may tighten limits (`tight`).
    authorize: (_request, context) => ({
      subject: typeof context.body.user === 'string' ? context.body.user : undefined,
      policy: context.body.tight ? { limits: { requestsPerMinute: 6, burst: 4, concurrentStreams: 1 } } : undefined,
    }),
    onError: (e) => errors.push(e),
    // A cancelled stream here ends (its endless upstream aborted); resumes across instances: resume.redis.test.ts.
    resume: false,
    ...options,
  });
  const served = await serveRelay(relay);
  closers.push(() => served.close());
  return { relay, served, store, url: `${served.url}/api`, errors };
}

let a: Instance;
let b: Instance;

beforeAll(async () => {
  redis = await startRedis();
  platform = await startPlatform();
  realtimeUpstream = await fakeRealtimeUpstream();
  a = await instance();
  b = await instance();
}, 60_000);

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await realtimeUpstream?.close();
  await platform?.close();
  await redis?.dispose();
});

/** `POST {relay}/session` from the page's origin. */
async function session(on: Instance, body: Record<string, unknown> = {}) {
  const res = await fetch(`${on.url}/session`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{ token: string; session_id: string; resume_token: string }>;
}

function call(on: Instance, path: string, token: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<Response> {
  const headers: Record<string, string> = { origin: ORIGIN, authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(on.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** An open SSE answer read continuously: its text so far, and a promise of how it ended. */
interface OpenStream { text: () => string; ended: Promise<string>; cancel: () => Promise<void> }

async function openStream(on: Instance, token: string, path = '/v1/conversations', body: Record<string, unknown> = { model: 'm', inputs: 'hi', stream: true }): Promise<OpenStream> {
  const res = await call(on, path, token, body);
  expect(res.status, res.status === 200 ? '' : await res.text()).toBe(200);
  const reading = readOn(res.body!);
  await waitFor(() => reading.text().includes('message.output.delta'), SAFETY_MS, 'the first delta');
  return reading;
}

async function ticket(on: Instance, token: string): Promise<string> {
  const res = await call(on, '/v1/client/sessions', token, { purpose: 'realtime', model: MODEL });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { client_secret: { value: string } }).client_secret.value;
}

function socket(opened: Opened): Extract<Opened, { kind: 'open' }> {
  if (opened.kind !== 'open') throw new Error(`refused ${opened.status}: ${opened.body}`);
  closers.push(async () => opened.socket.terminate());
  return opened;
}

/** Resolves with the ms from `since` until `check` holds (polled; the safety timeout fails the test). */
async function delayUntil(since: number, check: () => boolean | Promise<boolean>, what: string): Promise<number> {
  await waitFor(check, SAFETY_MS, what);
  return performance.now() - since;
}

const endedWithError = (s: OpenStream) => async () => s.text().includes('conversation.response.error') && (await Promise.race([s.ended, Promise.resolve('open')])) !== 'open';

describe('two relay instances on one Redis', () => {
  it('a realtime ticket used on one instance is refused on the other', async () => {
    const { token } = await session(a);
    const rt = await ticket(a, token);
    const first = socket(await openPage(a.served.url, WS_PATH, ['realtime', rt]));
    await first.next('session.created');
    const again = await openPage(b.served.url, WS_PATH, ['realtime', rt]);
    expect(again.kind).toBe('refused');
    if (again.kind === 'refused') {
      expect(again.status).toBe(401);
      expect(JSON.parse(again.body).message).toContain('already used');
    }
    // And the other way round.
    const rt2 = await ticket(b, token);
    socket(await openPage(b.served.url, WS_PATH, ['realtime', rt2]));
    expect((await openPage(a.served.url, WS_PATH, ['realtime', rt2])).kind).toBe('refused');
    first.socket.close();
  });

  it('revoking a session on one instance refuses it on both and closes its streams and sockets on both', async () => {
    const victim = await session(a);
    const bystander = await session(b);
    const streams = [await openStream(a, victim.token), await openStream(b, victim.token)];
    const other = await openStream(b, bystander.token);
    const sockets = [
      socket(await openPage(a.served.url, WS_PATH, ['realtime', await ticket(a, victim.token)])),
      socket(await openPage(b.served.url, WS_PATH, ['realtime', await ticket(b, victim.token)])),
    ];
    await Promise.all(sockets.map((s) => s.next('session.created')));
    const socketClosed = sockets.map((s) => { let code = 0; void s.closed.then((c) => { code = c.code; }); return () => code; });

    const t0 = performance.now();
    await a.relay.revokeSession(victim.session_id);
    const refusedOn = async (on: Instance) => (await call(on, '/v1/models', victim.token)).status === 401;
    const delays = {
      refusedOnA: await delayUntil(t0, () => refusedOn(a), 'refusal on a'),
      refusedOnB: await delayUntil(t0, () => refusedOn(b), 'refusal on b'),
      sseClosedOnA: await delayUntil(t0, endedWithError(streams[0]!), 'the stream on a to end'),
      sseClosedOnB: await delayUntil(t0, endedWithError(streams[1]!), 'the stream on b to end'),
      socketClosedOnA: await delayUntil(t0, () => socketClosed[0]!() === 1008, 'the socket on a to close'),
      socketClosedOnB: await delayUntil(t0, () => socketClosed[1]!() === 1008, 'the socket on b to close'),
    };
    console.log('[multi-instance] revokeSession on a → ms until:', JSON.stringify(Object.fromEntries(Object.entries(delays).map(([k, v]) => [k, Math.round(v)]))));

    for (const s of streams) {
      const error = /event: conversation\.response\.error\ndata: (.*)\n/.exec(s.text())![1]!;
      expect(JSON.parse(error)).toMatchObject({ code: 401, message: expect.stringContaining('revoked') });
    }
    expect((await sockets[1]!.next('error')).error).toMatchObject({ code: 401 });
    // The revoked streams' upstream requests were aborted; the bystander streams on.
    await waitFor(() => upstreamAborts.length >= 2, SAFETY_MS, 'the upstream aborts');
    const before = other.text().length;
    await waitFor(() => other.text().length > before, SAFETY_MS, 'the bystander stream to go on');
    expect((await call(a, '/v1/models', bystander.token)).status).toBe(200);
    // Its resume token is refused too.
    const resume = await fetch(`${b.url}/session`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify({ resume_token: victim.resume_token }) });
    expect(resume.status).toBe(401);
    await other.cancel();
  });

  it('rate-limit buckets are shared: a burst split across both instances hits 429', async () => {
    const { token } = await session(a, { tight: true }); // burst 4
    const statuses = [];
    for (const on of [a, b, a, b, a, b]) statuses.push((await call(on, '/v1/models', token)).status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });

  it('stream counts are shared: a session with one stream slot open on a is refused on b until it ends', async () => {
    const { token } = await session(b, { tight: true }); // one stream, burst 4
    const first = await openStream(a, token);
    const refused = await call(b, '/v1/conversations', token, { model: 'm', inputs: 'hi', stream: true });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_streams');
    await first.cancel();
    await waitFor(async () => {
      const res = await call(b, '/v1/conversations', token, { model: 'm', inputs: 'hi', stream: true });
      await res.body?.cancel();
      return res.status === 200;
    }, SAFETY_MS, 'the slot to be freed');
  });

  it('conversation ownership is shared: created via a, appended via b by the same session only', async () => {
    const owner = await session(a);
    const stranger = await session(b);
    const created = await call(a, '/v1/conversations', owner.token, { model: 'm', inputs: 'hi' });
    expect(created.status).toBe(200);
    const { conversation_id: id } = await created.json() as { conversation_id: string };
    expect((await call(b, `/v1/conversations/${id}`, owner.token, { inputs: 'more' })).status).toBe(200);
    expect((await call(b, `/v1/conversations/${id}`, stranger.token, { inputs: 'more' })).status).toBe(404);
    expect((await call(a, `/v1/conversations/${id}`, stranger.token, { inputs: 'more' })).status).toBe(404);
    // A streamed start on b records ownership from its first event, for a as well.
    const streamed = await openStream(b, owner.token);
    const streamedId = /"conversation_id":"([^"]+)"/.exec(streamed.text())![1]!;
    expect((await call(a, `/v1/conversations/${streamedId}`, owner.token, { inputs: 'more' })).status).toBe(200);
    expect((await call(a, `/v1/conversations/${streamedId}`, stranger.token, { inputs: 'more' })).status).toBe(404);
    await streamed.cancel();
  });

  it('revoking a subject ends every session of that user on both instances; a new sign-in works', async () => {
    const one = await session(a, { user: 'user-7' });
    const two = await session(b, { user: 'user-7' });
    const neighbour = await session(a, { user: 'user-8' });
    const streams = [await openStream(a, one.token), await openStream(b, two.token)];
    const sock = socket(await openPage(b.served.url, WS_PATH, ['realtime', await ticket(a, one.token)]));
    await sock.next('session.created');
    let sockCode = 0;
    void sock.closed.then((c) => { sockCode = c.code; });
    const unusedTicket = await ticket(a, two.token);

    const t0 = performance.now();
    await b.relay.revokeSubject('user-7');
    const delays = {
      sseClosedOnA: await delayUntil(t0, endedWithError(streams[0]!), 'a\'s stream to end'),
      sseClosedOnB: await delayUntil(t0, endedWithError(streams[1]!), 'b\'s stream to end'),
      socketClosed: await delayUntil(t0, () => sockCode === 1008, 'the socket to close'),
    };
    console.log('[multi-instance] revokeSubject on b → ms until:', JSON.stringify(Object.fromEntries(Object.entries(delays).map(([k, v]) => [k, Math.round(v)]))));
    for (const on of [a, b]) {
      expect((await call(on, '/v1/models', one.token)).status).toBe(401);
      expect((await call(on, '/v1/models', two.token)).status).toBe(401);
      expect((await call(on, '/v1/models', neighbour.token)).status).toBe(200);
    }
    expect((await openPage(b.served.url, WS_PATH, ['realtime', unusedTicket])).kind).toBe('refused');
    // The user signs in again: the new token (issued after the revocation) works on both.
    const back = await session(b, { user: 'user-7' });
    expect((await call(a, '/v1/models', back.token)).status).toBe(200);
    expect((await call(b, '/v1/models', back.token)).status).toBe(200);
    const fresh = await openStream(a, back.token);
    await fresh.cancel();
  });

  it('a missed announcement is caught by polling: an SSE stream on an instance deaf to pub/sub still closes', async () => {
    const deaf = await instance({ revocationCheckMs: 100 }, (s) => ({ ...s, onRevoked: () => () => {} }));
    const victim = await session(deaf);
    const stream = await openStream(deaf, victim.token);
    const t0 = performance.now();
    await a.relay.revokeSession(victim.session_id);
    const ms = await delayUntil(t0, endedWithError(stream), 'the deaf instance\'s stream to end');
    console.log(`[multi-instance] revocation reached an instance without pub/sub by polling (every 100 ms) after ${Math.round(ms)} ms`);
  });

  it('the operator endpoint: 401 without the secret, 404 when not configured, 200 revokes a session or a subject on both', async () => {
    const target = await session(a);
    const url = `${b.url}/operator/revoke`;
    const post = (headers: Record<string, string>, body: unknown, at = url) =>
      fetch(at, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const auth = { authorization: `Bearer ${OPERATOR_SECRET}` };

    const missing = await post({}, { session_id: target.session_id });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ object: 'error', code: 'unauthorized' });
    expect((await post({ authorization: `Bearer ${OPERATOR_SECRET}x` }, { session_id: target.session_id })).status).toBe(401);
    expect((await post({ authorization: 'Bearer short' }, { session_id: target.session_id })).status).toBe(401);
    expect((await call(a, '/v1/models', target.token)).status).toBe(200);

    expect((await post(auth, { session_id: target.session_id, subject: 'x' })).status).toBe(400);
    expect((await post(auth, {})).status).toBe(400);
    expect((await fetch(url, { method: 'POST', headers: auth, body: 'session_id=x' })).status).toBe(415);
    expect((await fetch(url, { headers: auth })).status).toBe(405);

    // From an allowed page origin too, the answer carries no CORS header: browsers cannot read it.
    const ok = await post({ ...auth, origin: ORIGIN }, { session_id: target.session_id });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
    expect(await ok.json()).toMatchObject({ object: 'revocation', session_id: target.session_id });
    for (const on of [a, b]) await waitFor(async () => (await call(on, '/v1/models', target.token)).status === 401, SAFETY_MS, 'refusal');

    const user = await session(b, { user: 'user-op' });
    const bySubject = await post(auth, { subject: 'user-op' });
    expect(bySubject.status).toBe(200);
    expect(await bySubject.json()).toMatchObject({ object: 'revocation', subject: 'user-op' });
    for (const on of [a, b]) expect((await call(on, '/v1/models', user.token)).status).toBe(401);

    // Without an operator secret the path does not exist.
    const plain = await instance({ operatorSecret: undefined });
    const absent = await post(auth, { session_id: target.session_id }, `${plain.url}/operator/revoke`);
    expect(absent.status).toBe(404);
    expect(await absent.json()).toMatchObject({ code: 'not_found' });
    expect(() => createRelay({ upstream: { baseUrl: platform.url, apiKey: KEY }, operatorSecret: 'too-short' })).toThrow(/operatorSecret/);

    expect(() => createRelay({ upstream: { baseUrl: platform.url, apiKey: KEY }, operatorSecret: 'a passphrase with spaces in it, long enough' })).toThrow(/whitespace/);

    // Failed attempts have their own per-address limit (burst 10); the right secret is never held up by them.
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++) status = (await post({ authorization: 'Bearer guess' }, { subject: 'x' })).status;
    expect(status).toBe(429);
    expect((await post(auth, { subject: 'someone-else' })).status).toBe(200);
  });

  it('Redis down → 503 state_store_unavailable on both (sessions, API calls, sockets), never an allow; back → recovery', async () => {
    const { token } = await session(a);
    const rt = await ticket(a, token);
    await redis.stop();
    try {
      for (const on of [a, b]) {
        const api = await call(on, '/v1/models', token);
        expect(api.status).toBe(503);
        expect(await api.json()).toMatchObject({ object: 'error', code: 'state_store_unavailable', type: 'server_error' });
        const mint = await fetch(`${on.url}/session`, { method: 'POST', headers: { origin: ORIGIN } });
        expect(mint.status).toBe(503);
        expect(await mint.json()).toMatchObject({ code: 'state_store_unavailable' });
      }
      const refused = await openPage(b.served.url, WS_PATH, ['realtime', rt]);
      expect(refused.kind).toBe('refused');
      if (refused.kind === 'refused') expect(refused.status).toBe(503);
      expect([...a.errors, ...b.errors].filter((e) => !(e instanceof Error && /redis|socket|ECONNREFUSED|closed/i.test(e.message)))).toEqual([]);
    } finally {
      await redis.start();
    }
    const t0 = performance.now();
    for (const on of [a, b]) await waitFor(async () => (await call(on, '/v1/models', token)).status === 200, 30_000, 'recovery');
    console.log(`[multi-instance] both instances answered again ${Math.round(performance.now() - t0)} ms after redis-server was back`);
    // Revocation works again after the restart, announcements included (the subscribers reconnected).
    const victim = await session(b);
    const stream = await openStream(b, victim.token);
    await a.relay.revokeSession(victim.session_id);
    await waitFor(endedWithError(stream), SAFETY_MS, 'the stream to end after recovery');
  }, 60_000);
});

describe('one instance, memory store', () => {
  it('revokeSession ends an open SSE stream at once with an error event at an event boundary, and aborts its upstream', async () => {
    const upstream = fakeUpstream((_request, seen) => scriptedStream([startedEvent('conv_mem'), sseEvent('message.output.delta', { content: 'a' })], { holdOpen: true, signal: seen.signal }).response);
    const relay = makeRelay(upstream.fetch, { revocationCheckMs: 60_000, policy: { models: [ANY], limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } } });
    const { token, session_id } = await openSession(relay);
    const res = await api(relay, '/v1/conversations', { token, body: { model: 'm', inputs: 'hi', stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('parley-stream-id')).toMatch(/^rs_/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('message.output.delta')) text += decoder.decode((await reader.read()).value);
    await relay.revokeSession(session_id);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    text = withoutIds(text);
    expect(text.trimEnd().endsWith('}')).toBe(true);
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last).toMatch(/^event: conversation\.response\.error\ndata: /);
    expect(JSON.parse(last.split('data: ')[1]!)).toMatchObject({ code: 401, message: 'The session was revoked' });
    expect(upstream.calls[0]!.signal.aborted).toBe(true);
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'm', inputs: 'hi' } })).status).toBe(401);
  });
});
