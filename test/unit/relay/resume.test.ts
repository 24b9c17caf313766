// Resumable streams, one relay (memory buffers), over real HTTP (serveRelay) in front of the real local
// platform (served over HTTP too): ids and the header, a dropped page resumed with Last-Event-ID (exactly
// the missing events, the same text as an uninterrupted run), from the start, while still live; the
// refusals (another session, unknown, expired, stopped, overflowed → 410; bad Last-Event-ID → 400);
// DELETE aborts the upstream; the key never appears in a resumed stream; revocation ends everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, ANY, createRelay, serveRelay, type Relay, type RelayOptions, type ServedRelay } from '../../../src/relay/index.js';
import { REDACTED } from '../../../src/relay/proxy/scrub.js';
import { ORIGIN, SECRET, within } from './helpers.js';
import { LONG, blocksOf, readAll, replyText, request, servePlatform, until, withoutPings, type ServedPlatform } from './resume-helpers.js';

// Letters and digits only: parley-local streams it as one token, so it arrives whole in one event (to be scrubbed).
const KEY = 'platformkeyresume5e2a9d1c7b';
const START = { model: 'parley-local', inputs: LONG, stream: true };

let platform: ServedPlatform;
const closers: Array<() => Promise<void>> = [];
let clock = Date.now();

/** A relay served over HTTP in front of the platform; `now` is the test's clock. */
async function relayWith(options: Partial<RelayOptions> = {}): Promise<{ relay: Relay; served: ServedRelay; base: string }> {
  const relay = createRelay({
    upstream: { baseUrl: platform.served.url, apiKey: KEY },
    basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET,
    policy: { scopes: [...ALL_SCOPES], agents: [ANY], models: [ANY], limits: { requestsPerMinute: 10_000, burst: 10_000, concurrentStreams: 10 } },
    limits: { requestsPerMinute: 10_000, burst: 10_000, sessionsPerMinute: 10_000, sessionBurst: 10_000 },
    retryDelayMs: 0, heartbeatMs: 60_000, now: () => clock,
    onError: (e) => { throw e; },
    ...options,
  });
  const served = await serveRelay(relay);
  closers.push(() => served.close());
  return { relay, served, base: `${served.url}/api` };
}

async function session(base: string): Promise<{ token: string; session_id: string }> {
  const res = await fetch(`${base}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ token: string; session_id: string }>;
}

let main: Awaited<ReturnType<typeof relayWith>>;
/** An uninterrupted run of START through the relay: its SSE text (pings left out) and reply text. */
let whole: { text: string; reply: string };

beforeAll(async () => {
  platform = await servePlatform(KEY, 4);
  main = await relayWith();
  const { token } = await session(main.base);
  const text = withoutPings(await readAll(await request(`${main.base}/v1/conversations`, token, { body: START })));
  whole = { text, reply: replyText(blocksOf(text)) };
  expect(blocksOf(text).length, 'the reply is long enough to be cut').toBeGreaterThan(30);
}, 120_000);

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await platform?.close();
});

/** Starts START, reads `n` events, drops the connection; returns the stream id and the events read. */
async function startAndDrop(base: string, token: string, n: number) {
  const reading = await request(`${base}/v1/conversations`, token, { body: START });
  expect(reading.response.status).toBe(200);
  const streamId = reading.response.headers.get('parley-stream-id')!;
  await until(() => reading.blocks().length >= n, `${n} events`);
  reading.drop();
  await reading.ended;
  const seen = reading.blocks();
  return { streamId, seen, upstream: platform.calls.at(-1)! };
}

const resume = (base: string, token: string, streamId: string, lastEventId?: string) =>
  request(`${base}/streams/${streamId}`, token, { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } });

async function refusal(reading: Awaited<ReturnType<typeof request>>) {
  await within(reading.ended, 10_000, 'the refusal');
  let body: { code?: string; message?: string } | null = null;
  try { body = JSON.parse(reading.text()); } catch { /* not JSON */ }
  return { status: reading.response.status, body };
}

describe('ids', () => {
  it('every event has `id: <streamId>:<seq>` (1, 2, 3 …), pings none; the header names the stream and is exposed to the page', async () => {
    const { token } = await session(main.base);
    const reading = await request(`${main.base}/v1/conversations`, token, { body: START });
    const streamId = reading.response.headers.get('parley-stream-id');
    expect(streamId).toMatch(/^rs_[A-Za-z0-9_-]{22}$/);
    expect(reading.response.headers.get('access-control-expose-headers')).toContain('parley-stream-id');
    const blocks = blocksOf(await readAll(reading));
    expect(blocks.map((b) => b.id)).toEqual(blocks.map((_, i) => `${streamId}:${i + 1}`));
    expect(blocks.at(-1)!.event).toBe('conversation.response.done');
    // The event's own bytes are unchanged: the id is its last line.
    for (const b of blocks) expect(b.raw.endsWith(`\nid: ${b.id}`)).toBe(true);
    expect(replyText(blocks)).toBe(whole.reply);
  });
});

describe('resuming', () => {
  it('a page dropped mid-reply resumes with Last-Event-ID: exactly the missing events; the text equals an uninterrupted run; the upstream was never aborted', async () => {
    const { token } = await session(main.base);
    const { streamId, seen, upstream } = await startAndDrop(main.base, token, 5);
    const last = seen.at(-1)!;
    const resumed = await resume(main.base, token, streamId, last.id!);
    expect(resumed.response.status).toBe(200);
    expect(resumed.response.headers.get('content-type')).toBe('text/event-stream');
    expect(resumed.response.headers.get('parley-stream-id')).toBe(streamId);
    expect(resumed.response.headers.get('cache-control')).toBe('no-store, no-transform');
    const rest = blocksOf(await readAll(resumed));
    expect(rest[0]!.id).toBe(`${streamId}:${seen.length + 1}`);
    expect([...seen, ...rest].map((b) => b.id)).toEqual([...seen, ...rest].map((_, i) => `${streamId}:${i + 1}`));
    expect(rest.at(-1)!.event).toBe('conversation.response.done');
    expect(replyText([...seen, ...rest])).toBe(whole.reply);
    expect(upstream.aborted).toBe(false);
  });

  it('without Last-Event-ID a resume replays from the first event: the same bytes as the live answer', async () => {
    const { token } = await session(main.base);
    const reading = await request(`${main.base}/v1/conversations`, token, { body: START });
    const live = withoutPings(await readAll(reading));
    const replay = withoutPings(await readAll(await resume(main.base, token, reading.response.headers.get('parley-stream-id')!)));
    expect(replay).toBe(live);
    expect(replyText(blocksOf(replay))).toBe(whole.reply);
  });

  it('a resume while the reply still streams gets the kept events, then the live rest as it comes', async () => {
    const { token } = await session(main.base);
    const { streamId, seen, upstream } = await startAndDrop(main.base, token, 3);
    const resumed = await resume(main.base, token, streamId, seen.at(-1)!.id!);
    // The upstream is still running while the resume reads (the reply has many more tokens).
    await until(() => resumed.blocks().length >= 1, 'the first resumed event');
    expect(resumed.blocks().at(-1)!.event).not.toBe('conversation.response.done');
    const rest = blocksOf(await readAll(resumed));
    expect(replyText([...seen, ...rest])).toBe(whole.reply);
    expect(rest.map((b) => b.id)).toEqual(rest.map((_, i) => `${streamId}:${seen.length + i + 1}`));
    expect(upstream.aborted).toBe(false);
  });

  it('resuming twice from the same point gives the same events (a resume may itself be dropped and resumed)', async () => {
    const { token } = await session(main.base);
    const { streamId, seen } = await startAndDrop(main.base, token, 4);
    const first = await resume(main.base, token, streamId, seen.at(-1)!.id!);
    await until(() => first.blocks().length >= 2, 'two resumed events');
    first.drop();
    await first.ended;
    const got = first.blocks();
    const second = blocksOf(await readAll(await resume(main.base, token, streamId, got.at(-1)!.id!)));
    expect(replyText([...seen, ...got, ...second])).toBe(whole.reply);
  });
});

describe('refusals', () => {
  it('another session → 410 stream_gone, the same answer as an unknown id', async () => {
    const owner = await session(main.base);
    const other = await session(main.base);
    const { streamId, seen } = await startAndDrop(main.base, owner.token, 2);
    const foreign = await refusal(await resume(main.base, other.token, streamId, seen.at(-1)!.id!));
    const unknown = await refusal(await resume(main.base, other.token, 'rs_AAAAAAAAAAAAAAAAAAAAAA'));
    const malformed = await refusal(await resume(main.base, other.token, 'nope'));
    for (const r of [foreign, unknown, malformed]) {
      expect(r.status).toBe(410);
      expect(r.body).toEqual({ object: 'error', message: 'This reply can no longer be resumed.', type: 'invalid_request_error', param: null, code: 'stream_gone' });
    }
    // The owner still can.
    expect((await resume(main.base, owner.token, streamId, seen.at(-1)!.id!)).response.status).toBe(200);
  });

  it('a bad Last-Event-ID → 400 invalid_last_event_id (another stream\'s id, not a number, a seq the stream does not have)', async () => {
    const { token } = await session(main.base);
    const reading = await request(`${main.base}/v1/conversations`, token, { body: START });
    const streamId = reading.response.headers.get('parley-stream-id')!;
    const count = blocksOf(await readAll(reading)).length;
    for (const bad of [`rs_AAAAAAAAAAAAAAAAAAAAAA:1`, `${streamId}:x`, `${streamId}`, `${streamId}:-1`, `${streamId}:${count + 1}`]) {
      const r = await refusal(await resume(main.base, token, streamId, bad));
      expect(r.status, bad).toBe(400);
      expect(r.body?.code).toBe('invalid_last_event_id');
    }
    // The last event's own id is fine: nothing is missing, the answer ends at once.
    expect(blocksOf(await readAll(await resume(main.base, token, streamId, `${streamId}:${count}`)))).toEqual([]);
  });

  it('a stream kept past its ttl → 410 (the relay clock moved on)', async () => {
    const { token } = await session(main.base);
    const reading = await request(`${main.base}/v1/conversations`, token, { body: START });
    const streamId = reading.response.headers.get('parley-stream-id')!;
    await readAll(reading);
    clock += 299_000;
    expect((await resume(main.base, token, streamId)).response.status).toBe(200);
    clock += 2_000;
    expect((await refusal(await resume(main.base, token, streamId))).status).toBe(410);
  });

  it('a stream beyond maxBytesPerStream is no longer resumable (410) while its page got every event', async () => {
    const small = await relayWith({ resume: { maxBytesPerStream: 2_000 } });
    const { token } = await session(small.base);
    const reading = await request(`${small.base}/v1/conversations`, token, { body: START });
    const blocks = blocksOf(await readAll(reading));
    expect(replyText(blocks)).toBe(whole.reply);
    const r = await refusal(await resume(small.base, token, reading.response.headers.get('parley-stream-id')!));
    expect(r.status).toBe(410);
    expect(r.body?.code).toBe('stream_gone');
  });

  it('a page that drops a stream that can no longer be resumed aborts its upstream, as before', async () => {
    const small = await relayWith({ resume: { maxBytesPerStream: 1_000 } });
    const { token } = await session(small.base);
    const reading = await request(`${small.base}/v1/conversations`, token, { body: START });
    // Past 1 000 bytes the buffer is gone; then the page leaves.
    await until(() => reading.text().length > 2_000, 'more than the cap');
    const upstream = platform.calls.at(-1)!;
    reading.drop();
    await within(upstream.whenAborted, 10_000, 'the upstream abort');
  });

  it('too many resumes of one stream at once → 429 too_many_resumes', async () => {
    const { token } = await session(main.base);
    const { streamId } = await startAndDrop(main.base, token, 1);
    // Live resumes stay open until the reply ends.
    const open = await Promise.all(Array.from({ length: 4 }, () => resume(main.base, token, streamId)));
    expect(open.map((r) => r.response.status)).toEqual([200, 200, 200, 200]);
    const fifth = await refusal(await resume(main.base, token, streamId));
    expect(fifth.status).toBe(429);
    expect(fifth.body?.code).toBe('too_many_resumes');
    for (const r of open) expect(replyText(blocksOf(await readAll(r)))).toBe(whole.reply);
  });
});

describe('stopping', () => {
  it('DELETE stops the reply: the upstream is aborted, a later resume → 410; DELETE of an unknown or foreign id → 204, nothing happens', async () => {
    const owner = await session(main.base);
    const other = await session(main.base);
    const { streamId, upstream } = await startAndDrop(main.base, owner.token, 2);
    const del = (token: string, id: string) => fetch(`${main.base}/streams/${id}`, { method: 'DELETE', headers: { origin: ORIGIN, authorization: `Bearer ${token}` } });
    expect((await del(other.token, streamId)).status).toBe(204);
    expect((await del(owner.token, 'rs_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(204);
    expect(upstream.aborted).toBe(false);
    expect((await resume(main.base, owner.token, streamId)).response.status).toBe(200);
    expect((await del(owner.token, streamId)).status).toBe(204);
    await within(upstream.whenAborted, 10_000, 'the upstream abort');
    expect((await refusal(await resume(main.base, owner.token, streamId))).status).toBe(410);
  });

  it('the preflight of a resume allows Last-Event-ID and DELETE', async () => {
    const res = await fetch(`${main.base}/streams/rs_AAAAAAAAAAAAAAAAAAAAAA`, {
      method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, last-event-id' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toContain('last-event-id');
  });

  it('revoking the session stops its detached stream (upstream aborted) and its buffers; resumes → 401', async () => {
    const { token, session_id } = await session(main.base);
    const { streamId, upstream } = await startAndDrop(main.base, token, 2);
    await main.relay.revokeSession(session_id);
    await within(upstream.whenAborted, 10_000, 'the upstream abort');
    expect((await resume(main.base, token, streamId)).response.status).toBe(401);
  });

  it('revoking the session ends an open resume with an error event', async () => {
    const { token, session_id } = await session(main.base);
    const { streamId } = await startAndDrop(main.base, token, 1);
    const resumed = await resume(main.base, token, streamId);
    await until(() => resumed.blocks().length >= 2, 'resumed events');
    await main.relay.revokeSession(session_id);
    await readAll(resumed);
    const last = resumed.blocks().at(-1)!;
    expect(last.event).toBe('conversation.response.error');
    expect(JSON.parse(last.data)).toMatchObject({ code: 401, message: 'The session was revoked' });
  });
});

describe('the key', () => {
  it('never appears in a resumed stream (the buffer holds scrubbed bytes only)', async () => {
    // parley-local quotes the start of the agent's instructions: they hold the platform key.
    const created = await platform.platform.fetch(new Request('http://platform.internal/v1/agents', {
      method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parley-local', name: 'Leaky', instructions: `${KEY} is the key. Be brief.` }),
    }));
    const agentId = ((await created.json()) as { id: string }).id;
    const { token } = await session(main.base);
    const reading = await request(`${main.base}/v1/conversations`, token, { body: { agent_id: agentId, inputs: 'Hello there', stream: true } });
    const streamId = reading.response.headers.get('parley-stream-id')!;
    const live = await readAll(reading);
    expect(live).toContain(REDACTED);
    const cuts = blocksOf(live).map((b) => b.id!);
    for (const from of [undefined, cuts[0], cuts[Math.floor(cuts.length / 2)]]) {
      const replay = await readAll(await resume(main.base, token, streamId, from));
      expect(replay).not.toContain(KEY);
      if (from === undefined) expect(replay).toContain(REDACTED);
    }
  });
});
