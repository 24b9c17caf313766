// Graceful restarts (drain.ts, node/drain-server.ts) of the built `parley-relay` command (run `npx tsc -p .` or
// `npm run build` first), spawned as a site runs it, in front of a stand-in platform streaming slow replies over
// real HTTP: two instances on one real redis-server, the first restarted (SIGTERM) mid-reply while the browser
// client's own stream (ConversationEventStream) reads it through a front that, like a load balancer, sends each
// request to the first instance that takes it; and single instances (memory store) drained with nothing open,
// with a reply open, and past their drain timeout. No duration is asserted: timeouts here are safety nets.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { ConversationEventStream, type StreamTransport } from '../../../src/client/conversation-stream.js';
import type { ConversationEvent } from '../../../src/client/types.js';
import { CUT_BY_RESTART } from '../../../src/relay/drain.js';
import { ORIGIN, SECRET, deltaEvent, scriptedStream, sseEvent, startedEvent, withoutIds, within } from './helpers.js';
import { startRedis, waitFor, type RedisServer } from './redis-helpers.js';
import { requireNginx, startNginx } from './nginx-helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/parley-relay.js');
const KEY = 'sk-platform-drain-test-SECRET';
const MODEL = 'm-drain';
/** Environment variables the relay reads: not inherited from the host. */
const RELAY_ENV = /^(PORT|REDIS_URL|PLATFORM_API_KEY|PLATFORM_BASE_URL|PARLEY_.*)$/;
const SAFETY_MS = 30_000;

let redis: RedisServer;
let platform: ServedFetch;
/** Deltas of the next replies; the pause between two events, ms. */
let replyLength = 60;
const INTERVAL_MS = 40;
/** While set, the stand-in platform holds its answers (no headers yet) until it resolves; `asked` counts requests. */
let holdAnswers: Promise<void> | null = null;
let asked = 0;
/** Every reply the stand-in platform streamed: the bytes it sent, and whether the relay cancelled it. */
const replies: Array<{ emitted: string[]; total: number; cancelled: boolean }> = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/relay/drain.js'))) throw new Error('dist/ is missing or stale: run `npx tsc -p .` (or `npm run build`) before this test');
  redis = await startRedis();
  let conversations = 0;
  platform = await serveFetch(async (request) => {
    if (request.headers.get('authorization') !== `Bearer ${KEY}`) return Response.json({ message: 'bad key' }, { status: 401 });
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/v1/conversations') return Response.json({ message: 'not found' }, { status: 404 });
    await request.json();
    asked++;
    if (holdAnswers) await holdAnswers;
    const id = `conv_drain_${++conversations}`;
    const events = [startedEvent(id)];
    for (let i = 0; i < replyLength; i++) events.push(deltaEvent(`d${i} `));
    events.push(sseEvent('conversation.response.done', { usage: { prompt_tokens: 1, completion_tokens: replyLength, total_tokens: replyLength + 1 }, created_at: '2026-01-01T00:00:00.000000Z' }));
    const reply = { emitted: [] as string[], total: events.length, cancelled: false };
    const stream = scriptedStream(events, { intervalMs: INTERVAL_MS });
    reply.emitted = stream.emitted;
    void stream.stopped.then(() => { reply.cancelled = true; });
    replies.push(reply);
    return stream.response;
  });
});
afterAll(async () => {
  await platform?.close();
  await redis?.dispose();
});

interface Instance { url: string; child: ChildProcess; out: () => string; exited: Promise<number | null> }
const children: ChildProcess[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
});

/** Starts `parley-relay` and waits for its banner. */
function startRelay(args: string[], env: Record<string, string> = {}): Promise<Instance> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !RELAY_ENV.test(k)));
  const child = spawn(process.execPath, [BIN, '--port', '0', '--model', MODEL, '--allow-origin', ORIGIN, ...args], {
    env: { ...inherited, PLATFORM_API_KEY: KEY, PLATFORM_BASE_URL: platform.url, PARLEY_RELAY_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { out += c; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${SAFETY_MS} ms:\n${out}`)), SAFETY_MS);
    void exited.then((code) => reject(new Error(`parley-relay exited with ${code} before listening:\n${out}`)));
    child.stdout!.on('data', () => {
      const url = /Parley relay: (http:\/\/\S+)/.exec(out)?.[1];
      if (!url || !/\n {2}operator /.test(out)) return;
      clearTimeout(timer);
      resolvePromise({ url, child, out: () => out, exited });
    });
  });
}

/** A relay started with `args` and a session token on it, the next replies being `length` deltas long. */
async function relayWithSession(length: number, args: string[], env: Record<string, string> = {}): Promise<{ relay: Instance; token: string }> {
  replyLength = length;
  const relay = await startRelay(args, env);
  return { relay, token: await openSession(relay.url) };
}

async function openSession(url: string): Promise<string> {
  const res = await fetch(`${url}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/** Sends SIGTERM and waits for the drain to start (its line on stdout). */
async function terminate(instance: Instance): Promise<void> {
  instance.child.kill('SIGTERM');
  await waitFor(() => instance.out().includes('draining'), SAFETY_MS, 'the drain to start');
}

const FRONT = 'http://front.test';

/**
 * The page's transport through a front (as a load balancer does it): each request goes to the first instance
 * that takes it: one whose port is closed, or that answers 503 `relay_draining`, is skipped. `log` gets
 * `METHOD path [Last-Event-ID] → instance`.
 */
function frontTransport(instances: Instance[], token: string, log: string[]): StreamTransport {
  return async (url, init) => {
    const path = url.slice(FRONT.length);
    let failure: unknown = new Error('no instance');
    for (const [n, instance] of instances.entries()) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      headers.set('origin', ORIGIN);
      let res: Response;
      try {
        res = await fetch(`${instance.url}${path}`, { ...init, headers });
      } catch (error) {
        failure = error;
        continue;
      }
      if (res.status === 503 && (await res.clone().json() as { code?: string }).code === 'relay_draining') {
        failure = new Error(`instance ${n} is draining`);
        continue;
      }
      log.push(`${init.method ?? 'GET'} ${path}${headers.get('last-event-id') ? ` ${headers.get('last-event-id')}` : ''} → ${n}`);
      return res;
    }
    throw failure;
  };
}

/** Reads a conversation stream to its end through the front; `onDelta` sees each delta's number. */
async function readReply(stream: ConversationEventStream, onDelta: (n: number) => void = () => {}): Promise<{ events: ConversationEvent[]; error: unknown }> {
  const events: ConversationEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'message.output.delta') onDelta(events.filter((e) => e.type === 'message.output.delta').length);
    }
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

/** A page's streamed reply through the front (the browser client's stream), read to its end: `onDelta(n)` after the n-th delta. */
function pageReply(transport: StreamTransport, onDelta: (n: number) => void, base = FRONT) {
  const stream = new ConversationEventStream(`${base}/v1/conversations`, { model: MODEL, inputs: 'hello', stream: true },
    transport, undefined, { resumeBase: base });
  return { stream, read: within(readReply(stream, onDelta), SAFETY_MS * 2, 'the end of the reply') };
}

/** The instance exited 0 after the drain, which says what it did. */
async function expectDrained(instance: Instance, handedOver: number, atDeadline: number): Promise<void> {
  expect(await within(instance.exited, SAFETY_MS, 'the relay to exit')).toBe(0);
  expect(instance.out()).toContain(`drained (${handedOver} repl${handedOver === 1 ? 'y' : 'ies'} handed over to other instances, ${atDeadline} ended at the deadline)`);
}

/** A reply cut at the drain deadline: its first deltas (none lost or twice), then the error event, which the client throws. */
function expectCutByRestart({ events, error }: { events: ConversationEvent[]; error: unknown }): void {
  expect(events.at(-1)).toMatchObject({ type: 'conversation.response.error', message: CUT_BY_RESTART, code: 503 });
  expect(error).toMatchObject({ message: CUT_BY_RESTART });
  const deltas = deltasOf(events);
  expect(deltas.length).toBeGreaterThanOrEqual(5);
  expect(deltas).toEqual(expectedDeltas(deltas.length));
}

const deltasOf = (events: ConversationEvent[]) => events.filter((e) => e.type === 'message.output.delta').map((e) => (e as { content: string }).content);
const expectedDeltas = (n: number) => Array.from({ length: n }, (_, i) => `d${i} `);

describe('parley-relay on SIGTERM, two instances on Redis', () => {
  it('restarted mid-reply: the page resumes on the other instance and gets the whole reply, byte for byte, while the first reads the platform to the end and exits 0', async () => {
    // Long enough (6 s after the SIGTERM) that the hand-over comes before its end even on a loaded machine.
    replyLength = 160;
    const a = await startRelay(['--drain-timeout', '60'], { REDIS_URL: redis.url });
    const b = await startRelay(['--drain-timeout', '60'], { REDIS_URL: redis.url });
    const token = await openSession(a.url);
    const log: string[] = [];
    let terminated: Promise<void> | undefined;
    const { stream, read } = pageReply(frontTransport([a, b], token, log), (n) => { if (n === 10) terminated = terminate(a); });
    const { events, error } = await read;
    await terminated;

    expect(error).toBeNull();
    expect(deltasOf(events)).toEqual(expectedDeltas(160));
    expect(events[0]!.type).toBe('conversation.response.started');
    expect(events.at(-1)!.type).toBe('conversation.response.done');
    // The reply started on the first instance and was resumed on the second, after the last event the page had.
    expect(log[0]).toMatch(/^POST \/v1\/conversations → 0$/);
    expect(log.slice(1).some((line) => /^GET \/streams\/rs_\S+ rs_\S+:\d+ → 1$/.test(line))).toBe(true);
    // The first instance read the platform's reply to its end (nothing cancelled), then exited 0.
    await expectDrained(a, 1, 0);
    expect(replies.at(-1)!.emitted.length).toBe(replies.at(-1)!.total);
    expect(replies.at(-1)!.cancelled).toBe(false);

    // What Redis kept is the platform's reply, byte for byte (the relay only added the ids).
    const whole = await fetch(`${b.url}/streams/${stream.streamId}`, { headers: { authorization: `Bearer ${token}`, origin: ORIGIN } });
    expect(whole.status).toBe(200);
    expect(withoutIds(await whole.text())).toBe(replies.at(-1)!.emitted.join(''));
  });

  it('a reply whose platform answer comes after the SIGTERM is handed over as soon as it starts', async () => {
    replyLength = 40;
    const a = await startRelay(['--drain-timeout', '60'], { REDIS_URL: redis.url });
    const b = await startRelay(['--drain-timeout', '60'], { REDIS_URL: redis.url });
    const token = await openSession(a.url);
    let release!: () => void;
    holdAnswers = new Promise<void>((resolve) => { release = resolve; });
    const before = asked;
    const log: string[] = [];
    const { read } = pageReply(frontTransport([a, b], token, log), () => {});
    try {
      await waitFor(() => asked > before, SAFETY_MS, 'the platform to be asked');
      await terminate(a);
    } finally {
      holdAnswers = null;
      release();
    }
    const { events, error } = await read;

    expect(error).toBeNull();
    expect(deltasOf(events)).toEqual(expectedDeltas(40));
    expect(log[0]).toMatch(/^POST \/v1\/conversations → 0$/);
    expect(log.slice(1).some((line) => /^GET \/streams\/rs_\S+ → 1$/.test(line))).toBe(true);
    await expectDrained(a, 1, 0);
    expect(replies.at(-1)!.cancelled).toBe(false);
  });

  it('alone on its Redis, hands nothing over: the page reads the whole reply from the draining instance', async () => {
    const { relay: a, token } = await relayWithSession(40, ['--drain-timeout', '60'], { REDIS_URL: redis.url });
    const log: string[] = [];
    let terminated: Promise<void> | undefined;
    const { events, error } = await pageReply(frontTransport([a], token, log), (n) => { if (n === 5) terminated = terminate(a); }).read;
    await terminated;

    expect(error).toBeNull();
    expect(deltasOf(events)).toEqual(expectedDeltas(40));
    expect(log).toEqual([expect.stringMatching(/^POST \/v1\/conversations → 0$/)]);
    await expectDrained(a, 0, 0);
  });

  it('a reply longer than the drain timeout ends, for the page resuming elsewhere, with an error event saying so', async () => {
    replyLength = 400;
    const a = await startRelay(['--drain-timeout', '1'], { REDIS_URL: redis.url });
    const b = await startRelay([], { REDIS_URL: redis.url });
    const token = await openSession(a.url);
    expectCutByRestart(await pageReply(frontTransport([a, b], token, []), (n) => { if (n === 5) a.child.kill('SIGTERM'); }).read);
    await expectDrained(a, 1, 1);
    expect(replies.at(-1)!.cancelled).toBe(true);
  });
});

describe('parley-relay on SIGTERM, two instances on Redis behind nginx', () => {
  it('the instance serving a reply is restarted mid-reply: the page resumes through nginx on the other one and gets the whole reply', async () => {
    requireNginx();
    replyLength = 160;
    const instances = [await startRelay([], { REDIS_URL: redis.url }), await startRelay([], { REDIS_URL: redis.url })];
    // As a site would set it up for restarts: keep-alive to the relays, no buffering of streams, a resume that meets
    // a draining instance (503) or a closed port tried on the other one; which instance answered, in a header.
    const nginx = await startNginx(instances.map((i) => i.url), `      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_next_upstream error timeout http_503;
      add_header X-Relay $upstream_addr always;
`);
    stops.push(() => nginx.stop());
    const token = await openSession(nginx.url);
    const served: string[] = [];
    const transport: StreamTransport = async (url, init) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      headers.set('origin', ORIGIN);
      const res = await fetch(url, { ...init, headers });
      served.push(`${init.method ?? 'GET'} ${new URL(url).pathname} → ${res.status} ${res.headers.get('x-relay')}`);
      return res;
    };
    const hostOf = (instance: Instance) => new URL(instance.url).host;
    let restarted: Instance | undefined;
    let terminated: Promise<void> | undefined;
    const { events, error } = await pageReply(transport, (n) => {
      if (n !== 10) return;
      restarted = instances.find((i) => served[0]!.endsWith(hostOf(i)))!;
      terminated = terminate(restarted);
    }, nginx.url).read;
    await terminated;

    expect(error).toBeNull();
    expect(deltasOf(events)).toEqual(expectedDeltas(160));
    expect(events.at(-1)!.type).toBe('conversation.response.done');
    const other = instances.find((i) => i !== restarted)!;
    expect(served.slice(1).some((line) => line.startsWith('GET /streams/') && line.endsWith(`→ 200 ${hostOf(other)}`))).toBe(true);
    await expectDrained(restarted!, 1, 0);
    expect(replies.at(-1)!.cancelled).toBe(false);
  });
});

describe('parley-relay on SIGTERM, one instance (memory store)', () => {
  it('with nothing open, exits 0 without waiting for its drain timeout', async () => {
    const relay = await startRelay(['--drain-timeout', '3600']);
    await openSession(relay.url);
    relay.child.kill('SIGTERM');
    // The safety net is far below the 3600 s timeout: the drain ended because nothing was open.
    await expectDrained(relay, 0, 0);
  });

  it('refuses new connections while a reply is open, lets the reply finish on the page, then exits 0', async () => {
    const { relay, token } = await relayWithSession(50, ['--drain-timeout', '3600']);
    const log: string[] = [];
    let refused: Promise<unknown> | undefined;
    const { events, error } = await pageReply(frontTransport([relay], token, log), (n) => {
      if (n !== 5) return;
      refused = terminate(relay).then(() => fetch(`${relay.url}/session`, { method: 'POST', headers: { origin: ORIGIN } }).then(() => null, (e: unknown) => e));
    }).read;

    expect(await refused).toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    expect(error).toBeNull();
    expect(deltasOf(events)).toEqual(expectedDeltas(50));
    expect(events.at(-1)!.type).toBe('conversation.response.done');
    // Nothing to hand over to: the page read the whole reply on its first connection.
    expect(log).toEqual([expect.stringMatching(/^POST \/v1\/conversations → 0$/)]);
    await expectDrained(relay, 0, 0);
  });

  it('ends a reply still open at its drain timeout with an error event, cancels the platform call and exits 0', async () => {
    const { relay, token } = await relayWithSession(400, ['--drain-timeout', '1']);
    expectCutByRestart(await pageReply(frontTransport([relay], token, []), (n) => { if (n === 5) relay.child.kill('SIGTERM'); }).read);
    await expectDrained(relay, 0, 1);
    expect(replies.at(-1)!.cancelled).toBe(true);
  });

  it('a second SIGTERM during the drain ends what is open at once', async () => {
    const { relay, token } = await relayWithSession(400, ['--drain-timeout', '3600']);
    const cut = pageReply(frontTransport([relay], token, []), (n) => { if (n === 5) void terminate(relay).then(() => relay.child.kill('SIGTERM')); }).read;
    expectCutByRestart(await cut);
    await expectDrained(relay, 0, 1);
    expect(replies.at(-1)!.cancelled).toBe(true);
  });
});
