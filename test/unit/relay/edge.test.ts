/**
 * The relay on an edge runtime: `createRelay`, unchanged, in workerd (Miniflare from npm), without
 * `nodejs_compat`. A worker module importing `parley-kit/relay` (the built package, resolved through its
 * exports under wrangler's conditions and bundled with esbuild) answers every request with `relay.fetch`;
 * upstream is the local platform listening on loopback. Real HTTP all the way: test → workerd → platform.
 * Then, in process: what workerd does to a departed client (only `request.signal`, never a body cancel) still
 * frees its stream slot; and `parley-kit/relay/edge` keeps up with `parley-kit/relay`.
 *
 * Needs `npm run build` (the relay's and the platform's dist/).
 */
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, servePlatform, type Platform } from '@parley-kit/platform';
import type { SessionResponse } from '../../../src/client/contracts.js';
import { ORIGIN, SECRET, api, deltaEvent, fakeUpstream, makeRelay, openSession as openLocalSession, scriptedStream, startedEvent, type ScriptedStream } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER = fileURLToPath(new URL('../../fixtures/edge/worker.js', import.meta.url));
const PLATFORM_KEY = 'platform-key-edge-7c1e93a05d';
const OPERATOR_SECRET = 'operator-secret-edge-0123456789-abcdefghij';
/** What wrangler bundles a Worker with (its esbuild conditions), so `parley-kit/relay` resolves as it would there. */
const WORKER_CONDITIONS = ['workerd', 'worker', 'browser'];
/** Polls are safety nets, not timing claims. */
const SAFETY_MS = 30_000;
/** What every conversation here says; the local model answers it in about 90 tokens. */
const PROMPT = 'Hello there';
/** A prompt whose reply lasts seconds at 20 ms a token: a revocation sent after its first event lands mid-reply, however busy the machine. */
const LONG_PROMPT = 'Show me everything in markdown, please: headings, a table, code, a list and links.';

/** What the platform's HTTP server received, and whether the caller (the worker) went away. */
interface PlatformCall { method: string; path: string; aborted: boolean; done?: boolean }

let platform: Platform;
let platformServer: Awaited<ReturnType<typeof servePlatform>>;
let calls: PlatformCall[];
let bundle: string;
let mf: Miniflare | undefined;
/** The relay's base URL in workerd. */
let relayUrl: string;

/** Starts workerd on the bundle with `compatibilityFlags`; resolves with the relay's base URL. */
async function startWorker(compatibilityFlags: string[]): Promise<string> {
  const started = performance.now();
  mf = new Miniflare({
    modules: true,
    script: bundle,
    compatibilityDate: '2025-09-01',
    compatibilityFlags,
    bindings: { PLATFORM_URL: platformServer.url, PLATFORM_API_KEY: PLATFORM_KEY, RELAY_SECRET: SECRET, ALLOWED_ORIGIN: ORIGIN, OPERATOR_SECRET },
  });
  const url = new URL('/api', await mf.ready).href;
  console.info(`[edge] workerd [${compatibilityFlags.join(', ')}] ready in ${Math.round(performance.now() - started)} ms (bundle ${Math.round(bundle.length / 1024)} KB)`);
  return url;
}

interface SseEvent { event: string; data: any }

/** Parses complete SSE blocks (comments such as `: ping` skipped). */
function parseSse(text: string): SseEvent[] {
  return text.split(/\n\n+/).filter((b) => b.trim() && !b.startsWith(':')).map((block) => {
    const lines = block.split('\n').filter((l) => !l.startsWith(':'));
    return {
      event: lines.find((l) => l.startsWith('event:'))!.slice(6).trim(),
      data: JSON.parse(lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')),
    };
  });
}

/** The assistant's text of a streamed turn. */
function textOf(events: SseEvent[]): string {
  return events.filter((e) => e.event === 'message.output.delta').map((e) => String(e.data.content)).join('');
}

async function openSession(relay = relayUrl): Promise<SessionResponse> {
  const res = await fetch(`${relay}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<SessionResponse>;
}

/** Starts a streamed conversation through the worker. */
function startStream(session: SessionResponse, inputs: string, signal?: AbortSignal, relay = relayUrl): Promise<Response> {
  return fetch(`${relay}/v1/conversations`, {
    method: 'POST',
    headers: { origin: ORIGIN, authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'parley-local', inputs, stream: true }),
    signal,
  });
}

/** The same turn asked of the platform directly, with its key. */
async function directTurn(inputs: string): Promise<SseEvent[]> {
  const res = await fetch(`${platformServer.url}/v1/conversations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'parley-local', inputs, stream: true }),
  });
  expect(res.status).toBe(200);
  return parseSse(await res.text());
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, everyMs = 25): Promise<T> {
  const deadline = Date.now() + SAFETY_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what} (${SAFETY_MS} ms safety net)`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** GET with the request target exactly as written. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const path = url.slice(target.origin.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the relay in workerd, in front of the local platform', () => {
  beforeAll(async () => {
    for (const file of ['dist/relay/edge.js', 'platform/dist/index.js']) {
      if (!existsSync(ROOT + file)) throw new Error(`The edge test needs the built package: ${file} is missing. Run \`npm run build\` first.`);
    }
    // Tokens 30 ms apart: a stream lasts long enough to be cut mid-way.
    platform = createPlatform({ apiKey: PLATFORM_KEY, tokenDelayMs: 20, onError: () => {} });
    await platform.ready();
    calls = [];
    platformServer = await servePlatform((request) => {
      const call: PlatformCall = { method: request.method, path: new URL(request.url).pathname, aborted: false };
      calls.push(call);
      request.signal.addEventListener('abort', () => { call.aborted = true; }, { once: true });
      return platform.fetch(request).then((response) => {
        if (!response.body) return response;
        // `done` once the platform's answer was read to its end.
        const body = response.body.pipeThrough(new TransformStream({ flush() { call.done = true; } }));
        return new Response(body, response);
      });
    });

    const built = await build({
      entryPoints: [WORKER], absWorkingDir: ROOT, bundle: true, write: false, format: 'esm',
      platform: 'neutral', conditions: WORKER_CONDITIONS, mainFields: ['module', 'main'], logLevel: 'silent',
    });
    bundle = built.outputFiles[0]!.text;
    // No nodejs_compat: the relay runs on Web APIs alone.
    relayUrl = await startWorker([]);
  });

  afterAll(async () => {
    await mf?.dispose();
    await platformServer?.close();
    await platform?.close();
  });

  it('bundles for a Worker without Node modules or the Node adapter', () => {
    expect(bundle).not.toMatch(/\bfrom\s*["']node:|\bimport\(\s*["']node:|\brequire\(\s*["']node:/);
    expect(bundle).not.toContain('@hono/node-server');
    expect(bundle).toContain('createRelay');
  });

  it('opens a session for an allowed origin, and refuses another origin', async () => {
    const res = await fetch(`${relayUrl}/session`, { method: 'POST', headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const session = await res.json() as SessionResponse;
    expect(session.token).toEqual(expect.any(String));
    expect(session.session_id).toEqual(expect.any(String));

    const refused = await fetch(`${relayUrl}/session`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ object: 'error', code: 'origin_not_allowed' });
  });

  it('streams a conversation over SSE to the done event; the text is the platform\'s own', async () => {
    const session = await openSession();
    const res = await startStream(session, PROMPT);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events[0]!.event).toBe('conversation.response.started');
    expect(events.filter((e) => e.event === 'message.output.delta').length).toBeGreaterThan(1);
    expect(events.at(-1)!.event).toBe('conversation.response.done');

    const direct = await directTurn(PROMPT);
    expect(textOf(events)).toBe(textOf(direct));
    expect(textOf(events).length).toBeGreaterThan(0);

    // The conversation is the session's: its history reads through the worker.
    const id = events[0]!.data.conversation_id as string;
    const history = await fetch(`${relayUrl}/v1/conversations/${id}/history`, { headers: { origin: ORIGIN, authorization: `Bearer ${session.token}` } });
    expect(history.status).toBe(200);
    expect(((await history.json()) as { entries: unknown[] }).entries).toHaveLength(2);
  });

  it('a client that leaves mid-stream: the worker reads the reply to its end (waitUntil), and a resume through it gets the rest', async () => {
    const full = textOf(await directTurn(PROMPT));
    const session = await openSession();
    const client = new AbortController();
    const res = await startStream(session, PROMPT, client.signal);
    expect(res.status).toBe(200);
    const streamId = res.headers.get('parley-stream-id')!;
    expect(streamId).toMatch(/^rs_/);
    const upstreamCall = calls.filter((c) => c.path === '/v1/conversations' && c.method === 'POST').at(-1)!;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const complete = () => (text.includes('\n\n') ? text.slice(0, text.lastIndexOf('\n\n')) : '');
    while (!parseSse(complete()).some((e) => e.event === 'message.output.delta')) {
      const { done, value } = await reader.read();
      expect(done, 'the stream ended before its first delta').toBe(false);
      text += decoder.decode(value, { stream: true });
    }
    const seen = parseSse(complete());
    const lastId = [...complete().matchAll(/^id: (.+)$/gm)].at(-1)![1]!;
    client.abort();

    // The platform answers to the end: the worker kept reading after the visitor left.
    await until(() => (upstreamCall.aborted || upstreamCall.done ? true : undefined), 'the platform call to end');
    expect(upstreamCall.aborted, 'the platform call was not cut').toBe(false);
    const resumed = await fetch(`${relayUrl}/streams/${streamId}`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${session.token}`, 'last-event-id': lastId },
    });
    expect(resumed.status).toBe(200);
    const rest = parseSse(await resumed.text());
    expect(rest.at(-1)!.event).toBe('conversation.response.done');
    expect(textOf([...seen, ...rest])).toBe(full);
  });

  it('revoking the session through the operator endpoint ends its open stream and the platform call', async () => {
    const session = await openSession();
    const res = await startStream(session, LONG_PROMPT);
    expect(res.status).toBe(200);
    const upstreamCall = calls.filter((c) => c.path === '/v1/conversations' && c.method === 'POST').at(-1)!;
    const reader = res.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);

    // Another request (the site's server) revokes: workerd lets no request touch another's I/O, the relay must not either.
    const revoked = await fetch(`${relayUrl}/operator/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: session.session_id }),
    });
    expect(revoked.status).toBe(200);
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const events = parseSse(text);
    expect(events.at(-1)).toMatchObject({ event: 'conversation.response.error', data: { code: 401, message: 'The session was revoked' } });
    expect(events.some((e) => e.event === 'conversation.response.done')).toBe(false);
    await until(() => (upstreamCall.aborted ? true : undefined), 'the platform to see the worker abort its call');
    const after = await startStream(session, PROMPT);
    expect(after.status).toBe(401);
  });

  it('answers a path outside the route table 404 in the relay\'s words; the platform never sees it', async () => {
    const session = await openSession();
    const before = calls.length;
    for (const [method, path] of [['GET', '/v1/files'], ['GET', '/v1/agents'], ['POST', '/v1/chat/completions'], ['GET', '/v1/conversations/a%2Fb/history']]) {
      const res = await fetch(`${relayUrl}${path}`, { method, headers: { origin: ORIGIN, authorization: `Bearer ${session.token}` } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ object: 'error', code: 'not_found' });
    }
    expect(calls.length).toBe(before);
  });

  it('dot segments, raw or encoded, cannot reach a route outside the table (workerd resolves them before the relay)', async () => {
    const session = await openSession();
    const before = calls.length;
    for (const path of ['/v1/conversations/%2e%2e/files', '/v1/models/../../v1/files', '/v1/conversations/x/%2E%2E/%2e%2e/%2e%2e/admin/keys']) {
      // node:http sends the target as written (fetch would resolve the dots itself).
      const { status, body } = await rawGet(`${relayUrl}${path}`, { origin: ORIGIN, authorization: `Bearer ${session.token}` });
      expect(status, path).toBe(404);
      expect(JSON.parse(body)).toMatchObject({ object: 'error', code: 'not_found' });
    }
    expect(calls.length).toBe(before);
  });

  it('refuses a missing, malformed or foreign token with 401; the platform never sees it', async () => {
    const before = calls.length;
    const foreign = 'eyJhbGciOiJIUzI1NiIsImtpZCI6Im1haW4iLCJ0eXAiOiJKV1QifQ.eyJzaWQiOiJ4In0.c2lnbmF0dXJlLW9mLWFub3RoZXItcmVsYXk';
    for (const authorization of [undefined, 'Bearer not-a-token', `Bearer ${foreign}`, `Bearer ${PLATFORM_KEY}`]) {
      const res = await fetch(`${relayUrl}/v1/conversations`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ model: 'parley-local', inputs: PROMPT, stream: true }),
      });
      expect(res.status, String(authorization)).toBe(401);
      expect(await res.json()).toMatchObject({ object: 'error', type: 'authentication_error' });
    }
    expect(calls.length).toBe(before);
  });
});

describe('a host that never cancels a departed client\'s body, only aborts request.signal (workerd)', () => {
  it('the client\'s signal alone ends the stream: upstream aborted, stream slot freed', async () => {
    const streams: ScriptedStream[] = [];
    const upstream = fakeUpstream((req) => {
      const stream = scriptedStream([startedEvent('conv_1'), deltaEvent('Hello')], { holdOpen: true, signal: req.signal });
      streams.push(stream);
      return stream.response;
    });
    // Without resumable streams: with them a departed client's stream is read on (resume.test.ts).
    const relay = makeRelay(upstream.fetch, { policy: { limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 1 } }, resume: false });
    const { token } = await openLocalSession(relay);
    const body = { model: 'm', inputs: 'hi', stream: true };
    const client = new AbortController();
    const res = await api(relay, '/v1/conversations', { token, body, signal: client.signal });
    expect(res.status).toBe(200);
    // Read the first event; the second then waits in the relay's queue, so no read of the upstream is pending.
    await res.body!.getReader().read();
    await until(() => (streams[0]!.emitted.length === 2 ? true : undefined), 'the upstream\'s second event');
    await new Promise((r) => setTimeout(r, 0));

    client.abort(); // the body is neither read nor cancelled any more: the host stopped pumping it
    expect(await until(() => (upstream.calls[0]!.signal.aborted ? true : undefined), 'the upstream call to be aborted')).toBe(true);
    const again = await until(async () => {
      const next = await api(relay, '/v1/conversations', { token, body });
      if (next.status !== 429) return next;
      expect(await next.json()).toMatchObject({ code: 'too_many_streams' });
      return undefined;
    }, 'the stream slot to be freed');
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});

describe('parley-kit/relay for edge runtimes (edge.ts)', () => {
  /** What only Node can run: the Node adapter and the Redis store (its client needs TCP sockets). */
  const NODE_ONLY = ['serveRelay', 'nodeRelayEnv', 'drainServed', 'upgradeUnlessDraining', 'createRedisStateStore'];

  it('exports everything of parley-kit/relay but the Node-only parts', async () => {
    const full = Object.keys(await import('../../../src/relay/index.js'));
    const edge = Object.keys(await import('../../../src/relay/edge.js'));
    expect(edge.filter((name) => !full.includes(name))).toEqual([]);
    // A new portable export belongs in edge.ts too (index.ts alone leaves Workers without it).
    expect(full.filter((name) => !edge.includes(name)).sort()).toEqual([...NODE_ONLY].sort());
  });
});
