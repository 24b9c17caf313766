import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ParleyClient } from '../../../src/client/client.js';
import type { ConversationEvent } from '../../../src/client/types.js';
import { PlatformError } from '../../../src/client/errors.js';
import { callPlatform, collect, startPlatform } from './helpers.js';
import { resumeRelay, type ResumeRelay } from './resume-relay.js';

// A streamed turn whose page connection is cut mid-reply resumes through `GET /streams/{id}` with
// Last-Event-ID: the consumer sees one sequence, nothing twice, nothing missing (issue 16, item 2).
const BASE = 'http://relay.test/api';
let platform: Platform;
let relay: ResumeRelay;

beforeAll(async () => {
  platform = await startPlatform({ tokenDelayMs: 2 });
});
afterAll(() => platform.close());

function client(relayFetch: typeof fetch, attempts?: number): ParleyClient {
  return new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: relayFetch, retry: { retries: 0 }, resume: { baseDelayMs: 5, attempts } });
}

function replyText(events: ConversationEvent[]): string {
  return events.map((e) => (e.type === 'message.output.delta' && typeof e.content === 'string' ? e.content : '')).join('');
}

async function storedReply(conversationId: string): Promise<string> {
  const { json } = await callPlatform(platform, `/v1/conversations/${conversationId}/history`);
  const last = json.entries.at(-1);
  expect(last.type).toBe('message.output');
  return typeof last.content === 'string' ? last.content : last.content.map((c: { text?: string }) => c.text ?? '').join('');
}

describe('resuming a relayed stream', () => {
  test('a connection cut after three events is resumed from the third: every event once, the reply as stored', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [3];
    const stream = client(relay.fetch).conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    const id = [...relay.streams.keys()][0];
    expect(relay.log).toEqual(['POST /v1/conversations', `GET /streams/${id} ${id}:3`]);
    expect(events.length).toBe(relay.streams.get(id)!.events.length);
    expect(events[0].type).toBe('conversation.response.started');
    expect(events.at(-1)!.type).toBe('conversation.response.done');
    const conversationId = await stream.conversationId;
    expect(replyText(events)).toBe(await storedReply(conversationId));
    expect(stream.resumePoint).toEqual({ streamId: id, lastEventId: `${id}:${events.length}` });
  });

  test('a connection cut again and again (also before any event of a resume) still ends complete', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [2, 0, 1, 0, 4];
    const stream = client(relay.fetch).conversations.start({ model: 'parley-local', inputs: 'Another long story, please' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    const id = [...relay.streams.keys()][0];
    expect(relay.log.filter((l) => l.startsWith('GET'))).toEqual([
      `GET /streams/${id} ${id}:2`, `GET /streams/${id} ${id}:2`, `GET /streams/${id} ${id}:3`, `GET /streams/${id} ${id}:3`, `GET /streams/${id} ${id}:7`,
    ]);
    expect(events.map((e) => e.type).filter((t) => t === 'conversation.response.started')).toHaveLength(1);
    expect(replyText(events)).toBe(await storedReply(await stream.conversationId));
  });

  test('a stream the relay no longer has fails with stream_gone after what arrived', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [2];
    const original = relay.fetch;
    relay.fetch = async (input, init) => {
      if (String(input).includes('/streams/')) relay.expire();
      return original(input, init);
    };
    const { events, error } = await collect(client(relay.fetch).conversations.start({ model: 'parley-local', inputs: 'Hello' }));
    expect(events).toHaveLength(2);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).status).toBe(410);
    expect((error as PlatformError).code).toBe('stream_gone');
  });

  test('a relay answering a resume with 503 (restarting) is asked again', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [3];
    const original = relay.fetch;
    let refused = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (String(input).includes('/streams/') && refused++ === 0) {
        return new Response(JSON.stringify({ object: 'error', type: 'unavailable', code: null, message: 'restarting' }), { status: 503, headers: { 'content-type': 'application/json' } });
      }
      return original(input, init);
    };
    const stream = client(flaky).conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    expect(refused).toBe(2);
    expect(replyText(events)).toBe(await storedReply(await stream.conversationId));
  });

  test('after too many failed reconnections in a row the stream fails with the lost connection', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [2, 0, 0, 0];
    const { events, error } = await collect(client(relay.fetch, 2).conversations.start({ model: 'parley-local', inputs: 'Hello' }));
    expect(events).toHaveLength(2);
    expect((error as PlatformError).type).toBe('stream_error');
    expect(relay.log.filter((l) => l.startsWith('GET'))).toHaveLength(2);
  });

  test('a stop is not resumed: the relay is told to drop the stream', async () => {
    relay = resumeRelay(platform, BASE);
    const stream = client(relay.fetch).conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    const seen: ConversationEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (seen.length === 3) break; // leaving the loop stops the turn
    }
    const id = [...relay.streams.keys()][0] ?? [...relay.deleted][0];
    await expect.poll(() => relay.deleted.has(id), { timeout: 2000 }).toBe(true);
    expect(relay.log.some((l) => l.startsWith('GET'))).toBe(false);
  });

  test('a detached stream is resumed later from where its reader was (a reload)', async () => {
    relay = resumeRelay(platform, BASE);
    const page = client(relay.fetch);
    const first = page.conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    const before: ConversationEvent[] = [];
    const iterator = first[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) before.push((await iterator.next()).value as ConversationEvent);
    const point = first.resumePoint!;
    const conversationId = await first.conversationId;
    first.detach!();
    expect(relay.deleted.size).toBe(0);
    expect(point.lastEventId).toBe(`${point.streamId}:4`);

    const reloaded = client(relay.fetch).conversations.resume!({ ...point, conversationId });
    expect(await reloaded.conversationId).toBe(conversationId);
    const { events, error } = await collect(reloaded);
    expect(error).toBeNull();
    expect(events[0].type).not.toBe('conversation.response.started');
    expect(replyText([...before, ...events])).toBe(await storedReply(conversationId));
  });

  test('while the browser says it is offline no attempt is spent; back online, the stream carries on', async () => {
    relay = resumeRelay(platform, BASE);
    relay.cuts = [2];
    const events = new EventTarget();
    const g = globalThis as Record<string, unknown>;
    g.navigator = { onLine: false };
    g.addEventListener = events.addEventListener.bind(events);
    g.removeEventListener = events.removeEventListener.bind(events);
    try {
      const stream = client(relay.fetch, 1).conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
      const collected = collect(stream);
      await expect.poll(() => relay.streams.size, { timeout: 2000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 150)); // several backoff delays: nothing is tried while offline
      expect(relay.log.filter((l) => l.startsWith('GET'))).toEqual([]);
      (g.navigator as { onLine: boolean }).onLine = true;
      events.dispatchEvent(new Event('online'));
      const { events: got, error } = await collected;
      expect(error).toBeNull();
      expect(relay.log.filter((l) => l.startsWith('GET'))).toHaveLength(1);
      expect(replyText(got)).toBe(await storedReply(await stream.conversationId));
    } finally {
      delete g.navigator;
      delete g.addEventListener;
      delete g.removeEventListener;
    }
  });

  test('a connection gone silent (no event, no ping) is taken for dead and resumed', async () => {
    relay = resumeRelay(platform, BASE);
    relay.stalls = [3];
    const page = new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: relay.fetch, retry: { retries: 0 }, resume: { baseDelayMs: 5, idleTimeoutMs: 150 } });
    const stream = page.conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    const id = [...relay.streams.keys()][0];
    expect(relay.log).toEqual(['POST /v1/conversations', `GET /streams/${id} ${id}:3`]);
    expect(replyText(events)).toBe(await storedReply(await stream.conversationId));
  });

  test('without a stream id (the platform itself) a cut connection fails as before', async () => {
    let cut = true;
    const direct: typeof fetch = async (input, init) => {
      const res = await platform.fetch(new Request(String(input).replace(BASE, 'http://platform.test'), { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: 'Bearer k' } }));
      if (!cut || !res.body) return res;
      cut = false;
      const reader = res.body.getReader();
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (n++ >= 2) return controller.error(new TypeError('network error'));
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const { error } = await collect(client(direct).conversations.start({ model: 'parley-local', inputs: 'Hello' }));
    expect((error as PlatformError).type).toBe('stream_error');
  });
});
