import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { createRelay, type Relay } from '../../../src/relay/index.js';
import { OPEN_POLICY } from '../relay/helpers.js';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import { RelaySession } from '../../../src/client/session.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { untilState as until } from './helpers.js';

// The client's resuming against the real relay in front of the real local platform (issue 16): a proxy
// this test controls cuts the page's connection after a few chunks; the relay keeps reading the
// upstream and the client carries on from GET {relay}/streams/{id}.
const ORIGIN = 'https://shop.example';
const RELAY_URL = 'http://relay.test/api';
const PLATFORM_KEY = 'platform-key-resume-tests';

let platform: Platform;
let relay: Relay;
/** Chunks each next streamed answer passes before its connection is cut (one number per answer). */
let cuts: number[] = [];
let requests: string[] = [];

/** A browser on ORIGIN, through a proxy that can cut a streamed answer mid-way (the relay sees the page go away). */
const pageFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  request.headers.set('origin', ORIGIN);
  requests.push(`${request.method} ${new URL(request.url).pathname}${request.headers.get('last-event-id') ? ` ${request.headers.get('last-event-id')}` : ''}`);
  const res = await relay.fetch(request);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body || !cuts.length) return res;
  const limit = cuts.shift()!;
  const reader = res.body.getReader();
  let passed = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (passed >= limit) {
        await reader.cancel().catch(() => {});
        controller.error(new TypeError('network error: the connection was cut'));
        return;
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      passed += 1;
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, headers: res.headers });
};

beforeAll(async () => {
  platform = createPlatform({ apiKey: PLATFORM_KEY, onError: () => {}, tokenDelayMs: 3 });
  await platform.ready();
  relay = createRelay({
    upstream: { baseUrl: 'http://platform.internal', apiKey: PLATFORM_KEY, fetch: (r) => platform.fetch(r) },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: 'relay-test-secret-0123456789-abcdefghij',
    getClientIp: () => '127.0.0.1',
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 4 } },
    onError: () => {},
  });
});
afterAll(() => platform.close());

function pageClient(): ParleyClient {
  return new ParleyClient({
    baseUrl: RELAY_URL, fetch: pageFetch, session: new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch }), resume: { baseDelayMs: 5 },
  });
}

async function history(client: ParleyClient, conversationId: string): Promise<unknown[]> {
  return (await client.conversations.history(conversationId)).entries.map((e) => (e as { content?: unknown }).content);
}


describe('resuming through the relay', () => {
  test('connections cut twice mid-reply: the reply ends complete and identical to the stored one, no error', async () => {
    requests = [];
    cuts = [4, 2];
    const store = await HistoryStore.open({ name: 'relay-resume-1' });
    const client = pageClient();
    const chat = new ChatSession({ client, store, model: 'parley-local' });
    await chat.send('Tell me a long story about lamps');
    expect(chat.state.error).toBeNull();
    expect(requests.filter((r) => r.startsWith('GET /api/streams/'))).toHaveLength(2);
    expect(requests.filter((r) => r.startsWith('GET /api/streams/')).every((r) => /rs_[A-Za-z0-9_-]{22}:\d+$/.test(r))).toBe(true);
    expect(chat.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(await history(client, chat.state.conversationId!));
    expect(await store.getInflight(chat.state.conversationId!)).toBeUndefined();
    await store.close();
  });

  test('a reload mid-reply resumes from the stored point with the same session (resume token)', async () => {
    requests = [];
    cuts = [];
    const store = await HistoryStore.open({ name: 'relay-resume-2' });
    const session = new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch, store });
    const first = new ChatSession({ client: new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session }), store, model: 'parley-local' });
    void first.send('Tell me a long story about lamps');
    await until(first, (s) => {
      const e = s.entries.at(-1);
      return e?.type === 'message.output' && typeof e.content === 'string' && e.content.length > 20;
    }, 'some of the reply');
    const conversationId = first.state.conversationId!;
    first.dispose();

    const reloadedClient = new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session: new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch, store }) });
    const reloaded = new ChatSession({ client: reloadedClient, store, model: 'parley-local' });
    await reloaded.load(conversationId);
    await until(reloaded, (s) => s.status === 'ready', 'the resumed reply to end');
    expect(reloaded.state.error).toBeNull();
    expect(requests.some((r) => r.startsWith('GET /api/streams/'))).toBe(true);
    expect(reloaded.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(await history(reloadedClient, conversationId));
    expect(reloaded.state.entries.some((e) => e.interrupted)).toBe(false);
    await store.close();
  });

  test('a stop sends DELETE; the relay answers a later resume with 410 stream_gone', async () => {
    requests = [];
    cuts = [];
    const client = pageClient();
    const stream = client.conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about lamps' });
    let count = 0;
    for await (const _ of stream) if (++count === 3) break;
    const point = stream.resumePoint!;
    await expect.poll(() => requests.some((r) => r === `DELETE /api/streams/${point.streamId}`), { timeout: 2000 }).toBe(true);
    const again = client.conversations.resume!({ ...point, conversationId: await stream.conversationId });
    let error: unknown = null;
    try {
      for await (const _ of again) { /* nothing may come */ }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 410, code: 'stream_gone' });
  });
});
