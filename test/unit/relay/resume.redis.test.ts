// Resumable streams across two relay instances (serveRelay, real HTTP) sharing one real redis-server
// (Redis Streams), in front of the real local platform: a reply started on A and dropped is resumed on
// B, after it ended and while A still reads it; DELETE on B stops A's upstream; B refuses another session.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, ANY, createRedisStateStore, createRelay, serveRelay } from '../../../src/relay/index.js';
import { REDACTED } from '../../../src/relay/proxy/scrub.js';
import { resumeLimitsOf } from '../../../src/relay/streams/resumable.js';
import { ORIGIN, SECRET, within } from './helpers.js';
import { startRedis, type RedisServer } from './redis-helpers.js';
import { LONG, blocksOf, readAll, replyText, request, servePlatform, until, withoutPings, type ServedPlatform } from './resume-helpers.js';

const KEY = 'platformkeyredis7c4b2e9a01';
const START = { model: 'parley-local', inputs: LONG, stream: true };

let redis: RedisServer;

/** `INFO <section>` asked of redis-server over a plain socket (what Redis itself counted). */
function redisInfo(port: number, section: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy(new Error('redis-server did not answer INFO')));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      const head = reply.indexOf('\r\n');
      if (head < 0) return;
      const length = Number(reply.subarray(1, head).toString());
      if (reply.length < head + 2 + length) return;
      socket.end();
      resolve(reply.subarray(head + 2, head + 2 + length).toString());
    });
    socket.write(`*2\r\n$4\r\nINFO\r\n$${section.length}\r\n${section}\r\n`);
  });
}
let platform: ServedPlatform;
const closers: Array<() => Promise<unknown>> = [];

interface Instance { base: string; errors: unknown[] }

async function instance(): Promise<Instance> {
  const store = await createRedisStateStore({ url: redis.url, keyPrefix: 'resume:', onError: () => {} });
  closers.push(() => store.close());
  const errors: unknown[] = [];
  const relay = createRelay({
    upstream: { baseUrl: platform.served.url, apiKey: KEY },
    basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET, store,
    policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY], limits: { requestsPerMinute: 10_000, burst: 10_000, concurrentStreams: 10 } },
    limits: { requestsPerMinute: 10_000, burst: 10_000, sessionsPerMinute: 10_000, sessionBurst: 10_000 },
    retryDelayMs: 0, heartbeatMs: 60_000,
    onError: (e) => errors.push(e),
  });
  const served = await serveRelay(relay);
  closers.push(() => served.close());
  return { base: `${served.url}/api`, errors };
}

let a: Instance;
let b: Instance;
let whole: string;

beforeAll(async () => {
  redis = await startRedis();
  platform = await servePlatform(KEY, 4);
  a = await instance();
  b = await instance();
  const { token } = await session(a);
  whole = replyText(blocksOf(await readAll(await request(`${a.base}/v1/conversations`, token, { body: START }))));
}, 120_000);

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await platform?.close();
  await redis?.dispose();
});

async function session(on: Instance): Promise<{ token: string; session_id: string }> {
  const res = await fetch(`${on.base}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ token: string; session_id: string }>;
}

/** Starts START on `on`, reads `n` events, drops the connection. */
async function startAndDrop(on: Instance, token: string, n: number) {
  const reading = await request(`${on.base}/v1/conversations`, token, { body: START });
  expect(reading.response.status).toBe(200);
  const streamId = reading.response.headers.get('parley-stream-id')!;
  await until(() => reading.blocks().length >= n, `${n} events`);
  reading.drop();
  await reading.ended;
  return { streamId, seen: reading.blocks(), upstream: platform.calls.at(-1)! };
}

const resume = (on: Instance, token: string, streamId: string, lastEventId?: string) =>
  request(`${on.base}/streams/${streamId}`, token, { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } });

describe('two relay instances on one Redis', () => {
  it('started on A, dropped, ended: resumed on B with Last-Event-ID → exactly the missing events; from the start → the same bytes', async () => {
    const { token } = await session(a);
    const { streamId, seen, upstream } = await startAndDrop(a, token, 4);
    // A reads on to the end (into Redis): a resume from the start then ends with the done event.
    await within(upstream.sent, 20_000, 'the whole reply from the platform');
    const fromStart = withoutPings(await readAll(await resume(b, token, streamId)));
    const all = blocksOf(fromStart);
    expect(all.at(-1)!.event).toBe('conversation.response.done');
    expect(all.map((x) => x.id)).toEqual(all.map((_, i) => `${streamId}:${i + 1}`));
    expect(seen.map((x) => x.raw)).toEqual(all.slice(0, seen.length).map((x) => x.raw));
    const rest = blocksOf(await readAll(await resume(b, token, streamId, seen.at(-1)!.id!)));
    expect(rest.map((x) => x.raw)).toEqual(all.slice(seen.length).map((x) => x.raw));
    expect(replyText([...seen, ...rest])).toBe(whole);
    expect(upstream.aborted).toBe(false);
  });

  it('started on A, dropped while live: a resume on B gets the kept events, then the live rest A still reads', async () => {
    const { token } = await session(a);
    const { streamId, seen, upstream } = await startAndDrop(a, token, 2);
    const resumed = await resume(b, token, streamId, seen.at(-1)!.id!);
    expect(resumed.response.status).toBe(200);
    await until(() => resumed.blocks().length >= 1, 'the first resumed event');
    expect(resumed.blocks().at(-1)!.event, 'still live when the resume began').not.toBe('conversation.response.done');
    const rest = blocksOf(await readAll(resumed));
    expect(rest.at(-1)!.event).toBe('conversation.response.done');
    expect(rest.map((x) => x.id)).toEqual(rest.map((_, i) => `${streamId}:${seen.length + i + 1}`));
    expect(replyText([...seen, ...rest])).toBe(whole);
    expect(upstream.aborted).toBe(false);
  });

  it('DELETE on B stops the upstream A reads; later resumes on either → 410', async () => {
    const { token } = await session(a);
    const { streamId, upstream } = await startAndDrop(a, token, 2);
    const res = await fetch(`${b.base}/streams/${streamId}`, { method: 'DELETE', headers: { origin: ORIGIN, authorization: `Bearer ${token}` } });
    expect(res.status).toBe(204);
    await within(upstream.whenAborted, 10_000, "A's upstream abort");
    for (const on of [a, b]) {
      const gone = await resume(on, token, streamId);
      await gone.ended;
      expect(gone.response.status).toBe(410);
      expect(JSON.parse(gone.text())).toMatchObject({ code: 'stream_gone' });
    }
  });

  it('B refuses another session (410) and a seq the stream does not have (400)', async () => {
    const owner = await session(a);
    const other = await session(b);
    const { streamId, seen } = await startAndDrop(a, owner.token, 2);
    const foreign = await resume(b, other.token, streamId, seen.at(-1)!.id!);
    await foreign.ended;
    expect(foreign.response.status).toBe(410);
    const beyond = await resume(b, owner.token, streamId, `${streamId}:100000`);
    await beyond.ended;
    expect(beyond.response.status).toBe(400);
    expect(JSON.parse(beyond.text())).toMatchObject({ code: 'invalid_last_event_id' });
  });

  it('the key never appears in a stream resumed from Redis', async () => {
    const created = await platform.platform.fetch(new Request('http://platform.internal/v1/agents', {
      method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parley-local', name: 'Leaky', instructions: `${KEY} is the key. Be brief.` }),
    }));
    const agentId = ((await created.json()) as { id: string }).id;
    const { token } = await session(a);
    const reading = await request(`${a.base}/v1/conversations`, token, { body: { agent_id: agentId, inputs: 'Hello there', stream: true } });
    const live = await readAll(reading);
    expect(live).toContain(REDACTED);
    const replay = await readAll(await resume(b, token, reading.response.headers.get('parley-stream-id')!));
    expect(replay).toContain(REDACTED);
    expect(replay).not.toContain(KEY);
    expect(withoutPings(replay)).toBe(withoutPings(live));
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('a burst of events goes to Redis in batches (script runs counted by Redis: fewer than the events), read back whole and in order', async () => {
    const store = await createRedisStateStore({ url: redis.url, keyPrefix: 'burst:', onError: () => {} });
    closers.push(() => store.close());
    const buffers = store.streamBuffers!(resumeLimitsOf({}), { liveExtraSeconds: 60 });
    const scriptRuns = async () => {
      const info = await redisInfo(redis.port, 'commandstats');
      return ['evalsha', 'eval'].reduce((n, name) => n + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0), 0);
    };
    const before = await scriptRuns();
    const writer = buffers.start('rs_burstburstburstburst01', 'sess_burst');
    const sent: string[] = [];
    for (let seq = 1; seq <= 1000; seq++) {
      sent.push(`data: {"n":${seq}}\n\n`);
      writer.append(seq, new TextEncoder().encode(sent.at(-1)!));
    }
    writer.end();
    const got: string[] = [];
    for (let tries = 0; ; tries++) {
      const read = await buffers.read('rs_burstburstburstburst01', 'sess_burst', got.length);
      if (read.kind !== 'events') throw new Error('the stream is gone');
      for (const e of read.events) {
        expect(e.seq).toBe(got.length + 1);
        got.push(new TextDecoder().decode(e.bytes));
      }
      if (read.ended && got.length === read.last) break;
      expect(tries, 'the end of the stream in Redis').toBeLessThan(2000);
      if (!read.events.length) await new Promise((r) => setTimeout(r, 10));
    }
    expect(got).toEqual(sent);
    expect(writer.resumable).toBe(true);
    const runs = await scriptRuns() - before;
    // START, FINISH and the reads are script runs too; the 1,000 events themselves took far fewer.
    expect(runs).toBeLessThan(200);
  });
});
