// Watching the relay over real HTTP: /healthz and /readyz, X-Request-Id (answered and sent upstream), the
// Prometheus metrics scraped from their own port (they move after requests), the JSON access log, and the
// run-time trustProxy warning. A stand-in platform on a real port; Redis is a real redis-server.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayOptions, type ServedRelay } from '../../../src/relay/index.js';
import { createRelayMetrics, type RelayMetrics } from '../../../src/relay/node/metrics.js';
import { serveMetrics, type ServedMetrics } from '../../../src/relay/node/metrics-server.js';
import { createRedisStateStore } from '../../../src/relay/state/redis-store.js';
import { ORIGIN, SECRET, UPSTREAM, UPSTREAM_KEY, fakeUpstream, makeRelay, openSession } from './helpers.js';
import { fakeRealtimeUpstream, openPage, ticketFor } from './realtime-helpers.js';
import { startRedis, waitFor } from './redis-helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: Server;
let platformUrl = '';
/** Headers of every request the stand-in platform got, by path. */
const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
/** Streams held open until the test lets them end. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  platform = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url === '/v1/models') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"no key"}');
        return;
      }
      if (JSON.parse(body || '{}').stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: conversation.response.started\ndata: {"type":"conversation.response.started","conversation_id":"conv_s"}\n\n');
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'platform-made-its-own' })
        .end(JSON.stringify({ object: 'conversation.response', conversation_id: `conv_${seen.length}`, outputs: [], usage: {} }));
    });
  });
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
  platformUrl = `http://127.0.0.1:${(platform.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const res of held) res.end();
  await new Promise((r) => platform.close(r));
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Watched {
  relay: ServedRelay;
  metrics: ServedMetrics;
  log: string[];
  warnings: string[];
  revokeSession: (id: string) => Promise<void>;
}

/** A relay on a real port in front of the stand-in platform, with metrics on their own port and the access log kept. */
async function watchedRelay(options: Partial<RelayOptions> = {}, watch: { logAddresses?: boolean; metrics?: RelayMetrics } = {}): Promise<Watched> {
  const log: string[] = [];
  const warnings: string[] = [];
  const relay = createRelay({
    upstream: { baseUrl: platformUrl, apiKey: UPSTREAM_KEY },
    secret: SECRET,
    allowedOrigins: [ORIGIN],
    policy: { agents: ['ag_ok'], limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 4 } },
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  const metrics = watch.metrics ?? createRelayMetrics();
  const served = await serveRelay(relay, { watch: { metrics, accessLog: (line) => log.push(line), logAddresses: watch.logAddresses } });
  const metricsServer = await serveMetrics(() => metrics.scrape());
  closers.push(() => served.close(), () => metricsServer.close());
  return { relay: served, metrics: metricsServer, log, warnings, revokeSession: (id) => relay.revokeSession(id) };
}

/** Scrapes the metrics port (or the metrics themselves): sample name with labels → value. */
async function scrape(source: ServedMetrics | RelayMetrics): Promise<Map<string, number>> {
  let text: string;
  if ('scrape' in source) text = (await source.scrape()).body;
  else {
    const res = await fetch(`${source.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    text = await res.text();
  }
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

const value = (samples: Map<string, number>, name: string) => samples.get(name) ?? 0;

async function session(url: string, headers: Record<string, string> = { origin: ORIGIN }) {
  return fetch(`${url}/session`, { method: 'POST', headers });
}

async function token(url: string): Promise<string> {
  const res = await session(url);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

function converse(url: string, bearer: string | null, body: Record<string, unknown>, extra: Record<string, string> = {}, path = '/v1/conversations') {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...extra },
    body: JSON.stringify(body),
  });
}

describe('relay /healthz and /readyz', () => {
  it('answer without a token; readiness names the upstream that cannot be reached, in the error shape', async () => {
    const { relay } = await watchedRelay();
    const health = await fetch(`${relay.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${relay.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { upstream: 'ok' } });
    // The probe did not send the key upstream.
    expect(seen.filter((s) => s.path === '/v1/models').every((s) => s.headers.authorization === undefined)).toBe(true);
    expect((await fetch(`${relay.url}/readyz`, { method: 'POST' })).status).toBe(405);

    // An upstream nobody listens on.
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(dead.address() as { port: number }).port}`;
    await new Promise((r) => dead.close(r));
    const { relay: orphan } = await watchedRelay({ upstream: { baseUrl: deadUrl, apiKey: UPSTREAM_KEY } });
    expect((await fetch(`${orphan.url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${orphan.url}/readyz`);
    expect(notReady.status).toBe(503);
    const body = await notReady.json() as Record<string, unknown>;
    expect(body).toMatchObject({ object: 'error', type: 'server_error', param: null, code: 'not_ready', checks: { upstream: 'failed' } });
    expect(body.message).toMatch(/upstream cannot be reached/);
    expect(JSON.stringify(body)).not.toContain(deadUrl.split('//')[1]);
  });

  it('with Redis: ready while it answers PING, 503 naming the store when it is gone; Redis errors and store refusals are counted', async () => {
    const redis = await startRedis();
    try {
      const metrics = createRelayMetrics();
      const store = await createRedisStateStore({ url: redis.url, onCommandError: () => metrics.redisError(), onError: () => {} });
      closers.push(() => store.close());
      const { relay, metrics: port } = await watchedRelay({ store }, { metrics });
      expect(await (await fetch(`${relay.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { store: 'ok', upstream: 'ok' } });
      await redis.stop();
      // Checks are reused for a second: poll until the outage shows (safety timeout, not a measurement).
      let answer: Response | undefined;
      await waitFor(async () => (answer = await fetch(`${relay.url}/readyz`)).status === 503, 10_000, 'readyz to fail');
      expect(await answer!.json()).toMatchObject({ code: 'not_ready', checks: { store: 'failed', upstream: 'ok' } });
      expect((await session(relay.url)).status).toBe(503);
      const samples = await scrape(port);
      expect(value(samples, 'parley_relay_redis_errors_total')).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'parley_relay_refusals_total{reason="store"}')).toBe(1);
    } finally {
      await redis.dispose();
    }
  });
});

describe('relay X-Request-Id', () => {
  it('every answer carries one, errors included; the upstream gets the same; a client\'s own is taken only from a trusted proxy', async () => {
    const { relay } = await watchedRelay();
    const bearer = await token(relay.url);
    const before = seen.length;
    const ok = await converse(relay.url, bearer, { agent_id: 'ag_ok', inputs: 'hi' }, { 'x-request-id': 'client-chosen' });
    expect(ok.status).toBe(200);
    const id = ok.headers.get('x-request-id')!;
    expect(id).toMatch(UUID); // neither the client's nor the platform's own
    expect(seen.slice(before).map((s) => s.headers['x-request-id'])).toEqual([id]);
    for (const refused of [await converse(relay.url, null, {}), await fetch(`${relay.url}/nowhere`), await session(relay.url, { origin: 'https://evil.example' })]) {
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.headers.get('x-request-id')).toMatch(UUID);
    }

    const { relay: proxied } = await watchedRelay({ trustProxy: 1 });
    const behind = { 'x-forwarded-for': '198.51.100.4' };
    const taken = await fetch(`${proxied.url}/healthz`, { headers: { ...behind, 'x-request-id': 'nginx-4f2a:7' } });
    expect(taken.headers.get('x-request-id')).toBe('nginx-4f2a:7');
    for (const insane of ['has space', 'x'.repeat(129), 'quote"d']) {
      const replaced = await fetch(`${proxied.url}/healthz`, { headers: { ...behind, 'x-request-id': insane } });
      expect(replaced.headers.get('x-request-id')).toMatch(UUID);
    }
  });
});

describe('relay metrics and access log', () => {
  it('requests by route and status, both histograms, refusals by reason, sessions, bytes and open streams move after requests', async () => {
    const { relay, metrics, revokeSession } = await watchedRelay({ limits: { sessionBurst: 3, sessionsPerMinute: 1 } });
    const start = await scrape(metrics);
    expect(value(start, 'parley_relay_requests_total{route="conversations.start",status="200"}')).toBe(0);
    expect(start.has('parley_relay_refusals_total{reason="revoked"}')).toBe(true); // every reason from the start
    expect(start.has('process_resident_memory_bytes')).toBe(true);

    const bearer = await token(relay.url);
    const doomed = await token(relay.url);
    expect((await converse(relay.url, bearer, { agent_id: 'ag_ok', inputs: 'hi' })).status).toBe(200);
    expect((await converse(relay.url, bearer, { agent_id: 'ag_other', inputs: 'hi' })).status).toBe(403); // policy
    expect((await converse(relay.url, null, { agent_id: 'ag_ok', inputs: 'hi' })).status).toBe(401); // auth
    expect((await session(relay.url, { origin: 'https://evil.example' })).status).toBe(403); // origin
    await revokeSession(JSON.parse(Buffer.from(doomed.split('.')[1]!, 'base64url').toString()).sid);
    expect((await converse(relay.url, doomed, { agent_id: 'ag_ok', inputs: 'hi' })).status).toBe(401); // revoked
    expect((await session(relay.url)).status).toBe(200);
    expect((await session(relay.url)).status).toBe(429); // rate: the address's session burst of 3 is spent

    const after = await scrape(metrics);
    expect(value(after, 'parley_relay_requests_total{route="conversations.start",status="200"}')).toBe(1);
    expect(value(after, 'parley_relay_requests_total{route="conversations.start",status="403"}')).toBe(1);
    expect(value(after, 'parley_relay_requests_total{route="conversations.start",status="401"}')).toBe(2);
    expect(value(after, 'parley_relay_requests_total{route="session",status="200"}')).toBe(3);
    expect(value(after, 'parley_relay_requests_total{route="session",status="429"}')).toBe(1);
    for (const reason of ['policy', 'origin', 'revoked', 'rate']) expect(value(after, `parley_relay_refusals_total{reason="${reason}"}`), reason).toBe(1);
    expect(value(after, 'parley_relay_refusals_total{reason="auth"}')).toBe(1);
    expect(value(after, 'parley_relay_sessions_total{kind="new"}')).toBe(3);
    expect(value(after, 'parley_relay_overhead_seconds_count{route="conversations.start"}')).toBe(4);
    // Only the request that reached the platform has an upstream time.
    expect(value(after, 'parley_relay_upstream_seconds_count{route="conversations.start"}')).toBe(1);
    expect(value(after, 'parley_relay_upstream_seconds_sum{route="conversations.start"}')).toBeGreaterThan(0);
    expect(value(after, 'parley_relay_bytes_total{direction="in"}')).toBeGreaterThan(value(start, 'parley_relay_bytes_total{direction="in"}'));
    expect(value(after, 'parley_relay_bytes_total{direction="out"}')).toBeGreaterThan(value(start, 'parley_relay_bytes_total{direction="out"}'));

    // An event stream is counted while it is open.
    const streaming = await converse(relay.url, bearer, { agent_id: 'ag_ok', inputs: 'hi', stream: true }, { accept: 'text/event-stream' });
    expect(streaming.status).toBe(200);
    const reader = streaming.body!.getReader();
    await reader.read();
    expect(value(await scrape(metrics), 'parley_relay_open_streams')).toBe(1);
    held.pop()!.end();
    while (!(await reader.read()).done) { /* to its end */ }
    await waitFor(async () => value(await scrape(metrics), 'parley_relay_open_streams') === 0, 10_000, 'the stream gauge to fall');

    // Resumed from the start: counted as a resume.
    const streamId = streaming.headers.get('parley-stream-id');
    expect(streamId).toBeTruthy();
    const resumed = await fetch(`${relay.url}/streams/${streamId}`, { headers: { origin: ORIGIN, authorization: `Bearer ${bearer}` } });
    expect(resumed.status).toBe(200);
    await resumed.text();
    const last = await scrape(metrics);
    expect(value(last, 'parley_relay_resumes_total')).toBe(1);
    expect(value(last, 'parley_relay_requests_total{route="streams.resume",status="200"}')).toBe(1);
  });

  it('one JSON line per request with its id, route, status, times and bytes; never the path, query, token, key or body; addresses only when asked', async () => {
    const { relay, log } = await watchedRelay();
    const bearer = await token(relay.url);
    const ok = await converse(relay.url, bearer, { agent_id: 'ag_ok', inputs: 'a very private question' });
    await ok.text();
    const leaky = await converse(relay.url, null, { inputs: 'x' }, {}, '/v1/conversations?api_key=query-secret-123');
    expect(leaky.status).toBe(401);
    await waitFor(() => log.length === 3, 10_000, 'three log lines');
    const lines = log.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1)).toBe(true);
    expect(lines[0]).toMatchObject({ method: 'POST', route: 'session', status: 200, session: 'new', refusal: null, upstream_ms: 0, completed: true });
    expect(lines[1]).toMatchObject({ request_id: ok.headers.get('x-request-id'), method: 'POST', route: 'conversations.start', status: 200, refusal: null, completed: true });
    expect(lines[1]!.upstream_ms as number).toBeGreaterThan(0);
    expect(lines[1]!.duration_ms as number).toBeGreaterThanOrEqual(lines[1]!.relay_ms as number);
    expect(lines[1]!.bytes_in as number).toBeGreaterThan('a very private question'.length);
    expect(lines[1]!.bytes_out as number).toBeGreaterThan(0);
    expect(lines[2]).toMatchObject({ route: 'conversations.start', status: 401, refusal: 'auth' });
    expect(Object.keys(lines[1]!).sort()).toEqual(['bytes_in', 'bytes_out', 'completed', 'duration_ms', 'method', 'refusal', 'relay_ms', 'request_id', 'route', 'session', 'status', 'time', 'upstream_ms']);
    const all = log.join('');
    for (const secret of [bearer, UPSTREAM_KEY, SECRET, 'query-secret-123', 'private question', '/v1/', '127.0.0.1']) expect(all).not.toContain(secret);

    const { relay: withAddresses, log: addressLog } = await watchedRelay({}, { logAddresses: true });
    await (await fetch(`${withAddresses.url}/healthz`)).text();
    await waitFor(() => addressLog.length === 1, 10_000, 'a log line');
    expect(JSON.parse(addressLog[0]!)).toMatchObject({ route: 'healthz', status: 200, client: '127.0.0.1' });
  });
});

describe('relay realtime sockets in the metrics', () => {
  it('counts a page socket while it is open, and its bytes; a refused upgrade is a refusal; each has an access-log line', async () => {
    const upstream = await fakeRealtimeUpstream();
    closers.push(() => upstream.close());
    const http = fakeUpstream();
    const relay = makeRelay(http.fetch, { upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: http.fetch, webSocketBaseUrl: () => upstream.url } });
    const metrics = createRelayMetrics();
    const log: string[] = [];
    const served = await serveRelay(relay, { watch: { metrics, accessLog: (line) => log.push(line) } });
    closers.push(() => served.close());
    const sample = async (name: string) => value(await scrape(metrics), name);
    expect(await sample('parley_relay_open_sockets')).toBe(0);
    // A refused upgrade (no ticket) is a refusal like any request's: counted, and one log line.
    const refused = await openPage(served.url, '/api/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602', ['realtime']);
    expect(refused.kind).toBe('refused');
    await waitFor(() => log.length === 1, 10_000, 'the refused upgrade\'s log line');
    expect(JSON.parse(log[0]!)).toMatchObject({ method: 'GET', route: 'realtime', status: 401, refusal: 'auth', upstream_ms: 0 });
    expect(JSON.parse(log[0]!).request_id).toMatch(UUID);
    expect(await sample('parley_relay_refusals_total{reason="auth"}')).toBe(1);
    expect(await sample('parley_relay_requests_total{route="realtime",status="401"}')).toBe(1);
    expect(await sample('parley_relay_open_sockets')).toBe(0);
    const bytesBefore = await sample('parley_relay_bytes_total{direction="out"}');
    const { token } = await openSession(relay);
    const page = await openPage(served.url, '/api/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602', ['realtime', await ticketFor(relay, token)]);
    if (page.kind !== 'open') throw new Error(`refused ${page.status}: ${page.body}`);
    await page.next('session.created');
    expect(await sample('parley_relay_open_sockets')).toBe(1);
    page.socket.close(1000);
    await page.closed;
    await waitFor(async () => await sample('parley_relay_open_sockets') === 0, 10_000, 'the socket gauge to fall');
    expect(await sample('parley_relay_bytes_total{direction="out"}')).toBeGreaterThan(bytesBefore);
    expect(await sample('parley_relay_requests_total{route="realtime",status="101"}')).toBe(1);
    // The accepted socket's line is written when it closes, with its bytes.
    await waitFor(() => log.length === 2, 10_000, 'the socket\'s log line');
    const line = JSON.parse(log[1]!);
    expect(line).toMatchObject({ route: 'realtime', status: 101, refusal: null, completed: true });
    // The id of the line is the one the platform's handshake got.
    expect(line.request_id).toMatch(UUID);
    expect(upstream.connections.at(-1)!.headers['x-request-id']).toBe(line.request_id);
    expect(line.bytes_out).toBeGreaterThan(0);
    expect(line.upstream_ms).toBeGreaterThan(0);
  });
});

describe('relay trustProxy at run time', () => {
  it('warns once when a request arrives without X-Forwarded-For (not through the proxy); probes and proxied requests do not warn', async () => {
    const { relay, warnings } = await watchedRelay({ trustProxy: 1 });
    await fetch(`${relay.url}/session`, { method: 'POST', headers: { origin: ORIGIN, 'x-forwarded-for': '198.51.100.9' } });
    await fetch(`${relay.url}/healthz`);
    await fetch(`${relay.url}/readyz`);
    expect(warnings).toEqual([]);
    await session(relay.url);
    await session(relay.url);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/without X-Forwarded-For/);
    expect(warnings[0]).toMatch(/Fix: /);
  });
});
