import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import type { ChatState } from '../../../src/client/contracts.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { callPlatform, startPlatform, untilState as until } from './helpers.js';
import { resumeRelay, type ResumeRelay } from './resume-relay.js';

// A chat whose reply survives a cut connection, a reload (the stream's point in the store) and a
// relay that forgot the stream (410: the server's history) — issue 16, item 2.
const BASE = 'http://relay.test/api';
let platform: Platform;
let n = 0;

beforeAll(async () => {
  platform = await startPlatform({ tokenDelayMs: 3 });
});
afterAll(() => platform.close());

function client(relay: ResumeRelay): ParleyClient {
  return new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: relay.fetch, retry: { retries: 0 }, resume: { baseDelayMs: 5 } });
}

async function serverEntries(conversationId: string) {
  return (await callPlatform(platform, `/v1/conversations/${conversationId}/history`)).json.entries as Array<{ id: string; type: string; content?: unknown }>;
}


const replyLength = (s: ChatState) => {
  const e = s.entries.find((x) => x.id === s.streamingEntryId);
  return e && e.type === 'message.output' && typeof e.content === 'string' ? e.content.length : 0;
};

describe('ChatSession resuming replies', () => {
  test('a connection cut mid-reply: the reply ends complete and as the server stored it, no error', async () => {
    const relay = resumeRelay(platform, BASE);
    relay.cuts = [5, 3];
    const store = await HistoryStore.open({ name: `resume-chat-${++n}` });
    const chat = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await chat.send('Tell me a long story about lamps');
    expect(chat.state.error).toBeNull();
    expect(chat.state.status).toBe('ready');
    expect(relay.log.filter((l) => l.startsWith('GET /streams/'))).toHaveLength(2);
    const server = await serverEntries(chat.state.conversationId!);
    expect(chat.state.entries.map((e) => ({ id: e.id, content: (e as { content?: unknown }).content }))).toEqual(server.map((e) => ({ id: e.id, content: e.content })));
    expect(await store.getInflight(chat.state.conversationId!)).toBeUndefined();
    await store.close();
  });

  test('a reload mid-reply: the new page resumes from the stored point; the reply is identical to the server\'s', async () => {
    const relay = resumeRelay(platform, BASE);
    const store = await HistoryStore.open({ name: `resume-chat-${++n}` });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    void first.send('Tell me a long story about lamps');
    await until(first, (s) => replyLength(s) > 20, 'some of the reply');
    const conversationId = first.state.conversationId!;
    first.dispose(); // the page goes away (no stop)
    expect(relay.deleted.size).toBe(0);
    const point = await store.getInflight(conversationId);
    expect(point?.streamId).toMatch(/^rs_/);

    const reloaded = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await reloaded.load(conversationId);
    await until(reloaded, (s) => s.status === 'ready', 'the resumed reply to end');
    expect(reloaded.state.error).toBeNull();
    expect(relay.log).toContain(`GET /streams/${point!.streamId} ${point!.lastEventId}`);
    const server = await serverEntries(conversationId);
    expect(reloaded.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(server.map((e) => e.content));
    expect(reloaded.state.entries.some((e) => e.interrupted)).toBe(false);
    expect(await store.getInflight(conversationId)).toBeUndefined();
    await store.close();
  });

  test('a reload after the relay forgot the stream (410): the finished reply comes from the server\'s history, no error', async () => {
    const relay = resumeRelay(platform, BASE);
    const store = await HistoryStore.open({ name: `resume-chat-${++n}` });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    void first.send('Tell me a long story about lamps');
    await until(first, (s) => replyLength(s) > 10, 'some of the reply');
    const conversationId = first.state.conversationId!;
    first.dispose();
    const streamId = (await store.getInflight(conversationId))!.streamId;
    // The upstream carries on in the relay; wait for the platform to store the reply, then expire the buffer.
    await expect.poll(() => relay.streams.get(streamId)?.ended, { timeout: 10_000 }).toBe(true);
    relay.expire();

    const reloaded = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await reloaded.load(conversationId);
    await until(reloaded, (s) => s.status !== 'streaming' && s.status !== 'submitted', 'the reply to be shown');
    expect(reloaded.state.error).toBeNull();
    expect(reloaded.state.status).toBe('ready');
    const server = await serverEntries(conversationId);
    expect(reloaded.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(server.map((e) => e.content));
    expect(await store.getInflight(conversationId)).toBeUndefined();
    await store.close();
  });

  test('a connection lost for good shows the error; retry carries on from the stored point (no repeated text)', async () => {
    const relay = resumeRelay(platform, BASE);
    relay.cuts = [4, 0];
    const store = await HistoryStore.open({ name: `resume-chat-${++n}` });
    const page = new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: relay.fetch, retry: { retries: 0 }, resume: { baseDelayMs: 5, attempts: 1 } });
    const chat = new ChatSession({ client: page, store, model: 'parley-local' });
    await chat.send('Tell me a long story about lamps');
    expect(chat.state.status).toBe('error');
    expect(chat.state.error).toMatchObject({ type: 'stream_error' });
    const conversationId = chat.state.conversationId!;
    expect(await store.getInflight(conversationId)).toBeDefined();
    await chat.retry();
    expect(chat.state.error).toBeNull();
    expect(chat.state.status).toBe('ready');
    const server = await serverEntries(conversationId);
    expect(chat.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(server.map((e) => e.content));
    expect(chat.state.entries.some((e) => e.interrupted)).toBe(false);
    expect(await store.getInflight(conversationId)).toBeUndefined();
    await store.close();
  });

  test('a stop is not resumed: the relay drops the stream, the store keeps no point, a reload shows the reply cut', async () => {
    const relay = resumeRelay(platform, BASE);
    const store = await HistoryStore.open({ name: `resume-chat-${++n}` });
    const chat = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    const sent = chat.send('Tell me a long story about lamps');
    await until(chat, (s) => replyLength(s) > 10, 'some of the reply');
    chat.stop();
    await sent;
    const conversationId = chat.state.conversationId!;
    await expect.poll(() => relay.deleted.size, { timeout: 2000 }).toBe(1);
    expect(await store.getInflight(conversationId)).toBeUndefined();
    expect(relay.log.some((l) => l.startsWith('GET /streams/'))).toBe(false);
    await store.close();
  });
});

describe('ChatSession offline', () => {
  /** A page whose browser says it is offline (`navigator.onLine`, `online` events on the global). */
  function offlinePage() {
    const events = new EventTarget();
    const g = globalThis as Record<string, unknown>;
    const navigator = { onLine: false };
    g.navigator = navigator;
    g.addEventListener = events.addEventListener.bind(events);
    g.removeEventListener = events.removeEventListener.bind(events);
    return {
      online() {
        navigator.onLine = true;
        events.dispatchEvent(new Event('online'));
      },
      restore() {
        delete g.navigator;
        delete g.addEventListener;
        delete g.removeEventListener;
      },
    };
  }

  test('a message sent offline waits in the transcript (no request) and goes out when the browser is online', async () => {
    const page = offlinePage();
    try {
      const relay = resumeRelay(platform, BASE);
      const chat = new ChatSession({ client: client(relay), store: await HistoryStore.open({ name: `offline-${++n}` }), model: 'parley-local' });
      await chat.send('Hello from the train');
      expect(chat.state.status).toBe('ready');
      expect(chat.state.error).toBeNull();
      expect(chat.state.entries).toHaveLength(1);
      expect(chat.state.waiting).toEqual([chat.state.entries[0].id]);
      expect(relay.log).toEqual([]);
      page.online();
      await until(chat, (s) => s.status === 'ready' && s.entries.length === 2 && !s.waiting?.length, 'the reply');
      expect(chat.state.error).toBeNull();
      expect(relay.log).toEqual(['POST /v1/conversations']);
    } finally {
      page.restore();
    }
  });

  test('a send that gets no answer at all waits too; a second message joins it; cancelWaiting drops them', async () => {
    const page = offlinePage();
    try {
      (globalThis as { navigator: { onLine: boolean } }).navigator.onLine = true; // the browser thinks it is online
      let calls = 0;
      const unreachable = new ParleyClient({ baseUrl: BASE, fetch: async () => { calls++; throw new TypeError('Failed to fetch'); }, retry: { retries: 0 } });
      const chat = new ChatSession({ client: unreachable, model: 'parley-local' });
      await chat.send('first');
      expect(calls).toBe(1);
      expect(chat.state.error).toBeNull();
      expect(chat.state.waiting).toHaveLength(1);
      await chat.send('second');
      expect(chat.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(['first', 'second']);
      expect(chat.state.waiting).toHaveLength(2);
      chat.cancelWaiting();
      expect(chat.state.entries).toEqual([]);
      expect(chat.state.waiting).toEqual([]);
      chat.dispose();
    } finally {
      page.restore();
    }
  });
});
