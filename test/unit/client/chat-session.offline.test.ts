import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import type { ChatState, HistoryStoreApi } from '../../../src/client/contracts.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { callPlatform, startPlatform, untilState as until } from './helpers.js';
import { resumeRelay, type ResumeRelay } from './resume-relay.js';
import { browserNetwork } from './browser-network.js';

// Messages written offline survive a reload (issue 16's known limit): the waiting turn is kept in the
// history store, a new page over the same store shows it waiting again and sends it, once, when online.
const BASE = 'http://relay.test/api';
const MODEL_KEY = 'new:model:parley-local';
let platform: Platform;
let n = 0;

beforeAll(async () => {
  platform = await startPlatform({ tokenDelayMs: 1 });
});
afterAll(() => platform.close());

const { navigator, offline, online } = browserNetwork();

/** A page's client: every request fails like a network error while the browser is offline. */
function client(relay: ResumeRelay): ParleyClient {
  const fetch: typeof globalThis.fetch = (input, init) => (navigator.onLine ? relay.fetch(input, init) : Promise.reject(new TypeError('Failed to fetch')));
  return new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch, retry: { retries: 0 } });
}


const texts = (s: ChatState) => s.entries.map((e) => (e as { content?: unknown }).content);
const posts = (relay: ResumeRelay) => relay.log.filter((l) => l.startsWith('POST '));
async function serverTexts(conversationId: string) {
  return ((await callPlatform(platform, `/v1/conversations/${conversationId}/history`)).json.entries as Array<{ content?: unknown }>).map((e) => e.content);
}

describe('ChatSession: messages written offline survive a reload', () => {
  test('offline send → reload → shown waiting after the history → online → sent once, the conversation continues', async () => {
    const relay = resumeRelay(platform, BASE);
    const name = `offline-reload-${++n}`;
    const store = await HistoryStore.open({ name });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Hello');
    const conversationId = first.state.conversationId!;
    expect(first.state.entries).toHaveLength(2);

    offline();
    await first.send('Written on the train');
    expect(first.state.waiting).toHaveLength(1);
    first.dispose(); // the page is reloaded while offline
    await store.close();

    const reopened = await HistoryStore.open({ name });
    const page = new ChatSession({ client: client(relay), store: reopened, model: 'parley-local' });
    await page.load(conversationId);
    expect(texts(page.state)).toEqual([...(await serverTexts(conversationId)), 'Written on the train']);
    expect(page.state.waiting).toEqual([page.state.entries[2].id]);
    expect(page.state.status).toBe('ready');
    expect(page.state.error).toBeNull();
    const before = posts(relay).length;

    online();
    await until(page, (s) => s.status === 'ready' && s.entries.length === 4 && !s.waiting?.length, 'the reply');
    expect(page.state.error).toBeNull();
    expect(page.state.conversationId).toBe(conversationId);
    expect(posts(relay).slice(before)).toEqual([`POST /v1/conversations/${conversationId}`]);
    const server = await serverTexts(conversationId);
    expect(server.filter((t) => t === 'Written on the train')).toHaveLength(1);
    expect(texts(page.state)).toEqual(server);
    expect(await reopened.getWaiting(conversationId)).toBeUndefined();

    // Another reload: nothing waits any more.
    page.dispose();
    const again = new ChatSession({ client: client(relay), store: reopened, model: 'parley-local' });
    await again.load(conversationId);
    expect(again.state.waiting ?? []).toEqual([]);
    expect(texts(again.state)).toEqual(server);
    again.dispose();
    await reopened.close();
  });

  test('a first message (no conversation yet) is restored on a new chat and starts the conversation once', async () => {
    const relay = resumeRelay(platform, BASE);
    const name = `offline-first-${++n}`;
    const store = await HistoryStore.open({ name });
    offline();
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Hello from the tunnel');
    expect(first.state.waiting).toHaveLength(1);
    first.dispose();
    expect(relay.log).toEqual([]);

    const page = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    // Another agent's (or model's) new chat does not pick it up.
    const other = new ChatSession({ client: client(relay), store, agentId: 'ag_other' });
    expect(await other.restoreWaiting()).toBe(false);
    other.dispose();
    expect(await page.restoreWaiting()).toBe(true);
    expect(texts(page.state)).toEqual(['Hello from the tunnel']);
    expect(page.state.waiting).toEqual([page.state.entries[0].id]);
    expect(page.state.conversationId).toBeNull();

    online();
    await until(page, (s) => s.status === 'ready' && s.entries.length === 2 && !s.waiting?.length, 'the reply');
    expect(page.state.error).toBeNull();
    expect(posts(relay)).toEqual(['POST /v1/conversations']);
    expect(await serverTexts(page.state.conversationId!)).toEqual(texts(page.state));
    expect(await store.getWaiting(MODEL_KEY)).toBeUndefined();

    // The conversation continues as any other.
    await page.send('And another thing');
    expect(page.state.entries).toHaveLength(4);
    expect(await serverTexts(page.state.conversationId!)).toEqual(texts(page.state));
    page.dispose();
    await store.close();
  });

  test('a restored message goes out at once when the new page is online', async () => {
    const relay = resumeRelay(platform, BASE);
    const store = await HistoryStore.open({ name: `offline-online-${++n}` });
    offline();
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Sent later');
    first.dispose();
    navigator.onLine = true; // the reload happens once the connection is back (no `online` event)

    const page = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    expect(await page.restoreWaiting()).toBe(true);
    await until(page, (s) => s.status === 'ready' && s.entries.length === 2 && !s.waiting?.length, 'the reply');
    expect(posts(relay)).toEqual(['POST /v1/conversations']);
    page.dispose();
    await store.close();
  });

  test('cancelled: gone after a reload', async () => {
    const relay = resumeRelay(platform, BASE);
    const store = await HistoryStore.open({ name: `offline-cancel-${++n}` });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Hello');
    const conversationId = first.state.conversationId!;
    offline();
    await first.send('Never mind');
    first.cancelWaiting();
    expect(texts(first.state)).toHaveLength(2);
    first.reset();
    await first.send('A new chat, offline');
    first.cancelWaiting();
    first.dispose();

    const page = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await page.load(conversationId);
    expect(page.state.waiting ?? []).toEqual([]);
    expect(texts(page.state)).not.toContain('Never mind');
    page.reset();
    expect(await page.restoreWaiting()).toBe(false);
    expect(page.state.entries).toEqual([]);
    expect(await store.getWaiting(conversationId)).toBeUndefined();
    expect(await store.getWaiting(MODEL_KEY)).toBeUndefined();
    online();
    await new Promise((r) => setTimeout(r, 50));
    expect(posts(relay)).toEqual(['POST /v1/conversations']);
    page.dispose();
    await store.close();
  });

  test('two pages restore the same waiting message: only one sends it; the other drops its copy', async () => {
    const relay = resumeRelay(platform, BASE);
    const name = `offline-tabs-${++n}`;
    const store = await HistoryStore.open({ name });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Hello');
    const conversationId = first.state.conversationId!;
    offline();
    await first.send('Only once, please');
    first.dispose();
    await store.close();

    const storeA = await HistoryStore.open({ name });
    const storeB = await HistoryStore.open({ name });
    const a = new ChatSession({ client: client(relay), store: storeA, model: 'parley-local' });
    const b = new ChatSession({ client: client(relay), store: storeB, model: 'parley-local' });
    await a.load(conversationId);
    await b.load(conversationId);
    expect(a.state.waiting).toHaveLength(1);
    expect(b.state.waiting).toHaveLength(1);
    const before = posts(relay).length;

    online();
    await until(a, (s) => s.status === 'ready' && !s.waiting?.length, 'page A to settle');
    await until(b, (s) => s.status === 'ready' && !s.waiting?.length, 'page B to settle');
    await expect.poll(async () => (await serverTexts(conversationId)).length, { timeout: 10_000 }).toBe(4);
    expect(posts(relay).slice(before)).toEqual([`POST /v1/conversations/${conversationId}`]);
    const server = await serverTexts(conversationId);
    expect(server.filter((t) => t === 'Only once, please')).toHaveLength(1);
    a.dispose();
    b.dispose();
    await storeA.close();
    await storeB.close();
  });

  test('a store of the site\'s own without the waiting methods (they are optional) still opens a conversation from its cache offline', async () => {
    const relay = resumeRelay(platform, BASE);
    const name = `offline-plain-store-${++n}`;
    const store = await HistoryStore.open({ name });
    const first = new ChatSession({ client: client(relay), store, model: 'parley-local' });
    await first.send('Hello');
    const conversationId = first.state.conversationId!;
    first.dispose();
    await store.flush();
    const plain: HistoryStoreApi = {
      getConversation: (id) => store.getConversation(id), getEntries: (id) => store.getEntries(id),
      listConversations: () => store.listConversations(), putConversation: (c) => store.putConversation(c),
      putEntry: (id, e) => store.putEntry(id, e), replaceEntries: (id, e) => store.replaceEntries(id, e),
      deleteConversation: (id) => store.deleteConversation(id),
      getResumeToken: (url) => store.getResumeToken(url), setResumeToken: (url, token) => store.setResumeToken(url, token),
    };
    offline();
    const page = new ChatSession({ client: client(relay), store: plain, model: 'parley-local' });
    await page.load(conversationId);
    expect(page.state.entries).toHaveLength(2);
    expect(page.state.error).toBeNull();
    page.dispose();
    await store.close();
  });
});
