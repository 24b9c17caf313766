import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import type { ChatState } from '../../../src/client/contracts.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { callPlatform, startPlatform, untilState as until } from './helpers.js';
import { resumeRelay, type ResumeRelay } from './resume-relay.js';
import { Locks } from './web-locks.js';

// Two tabs of one site on one conversation (issue 16, item 3): Node has BroadcastChannel; Web Locks
// are played by a small exclusive lock manager (what browsers do: requests granted in order, a closed
// tab's locks released). Each "tab" has its own client and its own connection to the same database.
const BASE = 'http://relay.test/api';
let platform: Platform;
let n = 0;

beforeAll(async () => {
  (globalThis as { navigator?: unknown }).navigator = { locks: new Locks() };
  platform = await startPlatform({ tokenDelayMs: 4 });
});
afterAll(async () => {
  delete (globalThis as { navigator?: unknown }).navigator;
  await platform.close();
});

function tab(relay: ResumeRelay, store: HistoryStore): ChatSession {
  const client = new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: relay.fetch, retry: { retries: 0 }, resume: { baseDelayMs: 5 } });
  return new ChatSession({ client, store, model: 'parley-local' });
}


const lastText = (s: ChatState) => {
  const e = s.entries.at(-1);
  return e && e.type === 'message.output' && typeof e.content === 'string' ? e.content : '';
};

async function serverContents(conversationId: string): Promise<unknown[]> {
  return ((await callPlatform(platform, `/v1/conversations/${conversationId}/history`)).json.entries as Array<{ content?: unknown }>).map((e) => e.content);
}

async function twoTabs() {
  const relay = resumeRelay(platform, BASE);
  const name = `tabs-${++n}`;
  const storeA = await HistoryStore.open({ name });
  const storeB = await HistoryStore.open({ name });
  const a = tab(relay, storeA);
  const b = tab(relay, storeB);
  await a.send('Hi');
  const conversationId = a.state.conversationId!;
  await b.load(conversationId);
  expect(b.state.entries).toHaveLength(2);
  return { relay, storeA, storeB, a, b, conversationId };
}

describe('tabs in step', () => {
  test('the other tab follows the live reply and the new message, then shows the finished reply', async () => {
    const { relay, storeA, storeB, a, b, conversationId } = await twoTabs();
    const sent = a.send('Tell me a long story about lamps');
    await until(b, (s) => !!s.following && lastText(s).length > 10, 'the second tab to follow the reply');
    expect(b.state.status).toBe('streaming');
    expect(b.state.entries.at(-2)).toMatchObject({ type: 'message.input', content: 'Tell me a long story about lamps' });
    await sent;
    await until(b, (s) => s.status === 'ready' && !s.following, 'the second tab to see the end');
    await until(b, (s) => s.entries.every((e) => !e.id.startsWith('local_')), 'the server ids');
    const server = await serverContents(conversationId);
    expect(a.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(server);
    expect(b.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(server);
    expect(relay.log.filter((l) => l.startsWith('GET /streams/'))).toEqual([]); // one tab streamed
    a.dispose();
    b.dispose();
    await storeA.close();
    await storeB.close();
  });

  test('closing the streaming tab hands the stream over: the other tab resumes it to the end', async () => {
    const { relay, storeA, storeB, a, b, conversationId } = await twoTabs();
    void a.send('Tell me a long story about lamps');
    await until(b, (s) => !!s.following && lastText(s).length > 20, 'the second tab to follow the reply');
    a.dispose(); // the tab closes: its lock goes, its last writes land
    await storeA.close();
    await until(b, (s) => s.status === 'ready', 'the second tab to finish the reply', 15_000);
    expect(b.state.error).toBeNull();
    expect(relay.log.some((l) => l.startsWith('GET /streams/'))).toBe(true);
    expect(relay.deleted.size).toBe(0);
    await until(b, (s) => s.entries.every((e) => !e.id.startsWith('local_')), 'the server ids');
    expect(b.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(await serverContents(conversationId));
    expect(b.state.entries.some((e) => e.interrupted)).toBe(false);
    b.dispose();
    await storeB.close();
  });

  test('without Web Locks the other tab only follows (it never streams the reply a second time)', async () => {
    const g = globalThis as { navigator?: unknown };
    const saved = g.navigator;
    delete g.navigator;
    try {
      const { relay, storeA, storeB, a, b, conversationId } = await twoTabs();
      const sent = a.send('Tell me a long story about lamps');
      await until(b, (s) => !!s.following && lastText(s).length > 10, 'the second tab to follow the reply');
      await sent;
      await until(b, (s) => s.status === 'ready', 'the second tab to see the end');
      expect(relay.log.filter((l) => l.startsWith('GET /streams/'))).toEqual([]);
      await until(b, (s) => s.entries.every((e) => !e.id.startsWith('local_')), 'the server ids');
      expect(b.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(await serverContents(conversationId));
      a.dispose();
      b.dispose();
      await storeA.close();
      await storeB.close();
    } finally {
      g.navigator = saved;
    }
  });

  test('stop in the following tab stops the reply in the streaming one', async () => {
    const { relay, storeA, storeB, a, b } = await twoTabs();
    const sent = a.send('Tell me a long story about lamps');
    await until(b, (s) => !!s.following && lastText(s).length > 10, 'the second tab to follow the reply');
    b.stop();
    await sent;
    expect(a.state.status).toBe('ready');
    await expect.poll(() => relay.deleted.size, { timeout: 2000 }).toBe(1);
    await until(b, (s) => s.status === 'ready', 'the second tab to see the stop');
    expect(b.state.entries.at(-1)?.interrupted).toBe(true);
    a.dispose();
    b.dispose();
    await storeA.close();
    await storeB.close();
  });
});

// Issue 16, two-tab race: the following tab reconciled with a history that already had the new message
// (msg_…) before the streaming tab wrote and broadcast its page-made copy (local_…); the copy landed next to
// its twin in the store and in the follower, and survived the takeover. Every step is gated here.
describe('tabs in step: the new message is shown once', () => {
  test('a history read between the server storing the message and the streaming tab telling the others', async () => {
    const relay = resumeRelay(platform, BASE);
    const name = `tabs-${++n}`;
    const storeA = await HistoryStore.open({ name });
    const storeB = await HistoryStore.open({ name });
    const PROMPT = 'Tell me a long story about lamps';
    let holdHistory: Promise<void> | null = null;
    let holdAnswer: Promise<void> | null = null;
    let answerHeld = false;
    const gated = (own: typeof fetch): typeof fetch => async (input, init) => {
      const request = new Request(input, init);
      if (holdHistory && request.method === 'GET' && request.url.endsWith('/history')) await holdHistory;
      const response = await own(request);
      if (holdAnswer && request.method === 'POST' && /\/conversations\/[^/]+$/.test(request.url)) {
        answerHeld = true;
        await holdAnswer;
      }
      return response;
    };
    const make = (store: HistoryStore) => new ChatSession({
      client: new ParleyClient({ baseUrl: BASE, getToken: async () => 'page-token', fetch: gated(relay.fetch), retry: { retries: 0 }, resume: { baseDelayMs: 5 } }),
      store, model: 'parley-local',
    });
    const a = make(storeA);
    const b = make(storeB);
    await a.send('Hi');
    const conversationId = a.state.conversationId!;
    let openHistory!: () => void;
    let openAnswer!: () => void;
    holdHistory = new Promise((resolve) => { openHistory = resolve; });
    holdAnswer = new Promise((resolve) => { openAnswer = resolve; });
    // The second tab opens the conversation; its history read waits.
    const loaded = b.load(conversationId);
    // The first tab sends; the server stores the message, the tab has not seen the answer yet.
    void a.send(PROMPT);
    await expect.poll(async () => answerHeld && (await serverContents(conversationId)).includes(PROMPT), { timeout: 5000 }).toBe(true);
    holdHistory = null;
    openHistory();
    await loaded;
    expect(b.state.entries.filter((e) => e.type === 'message.input')).toHaveLength(2);
    // Now the streaming tab learns its turn started: it stores and broadcasts its copy of the message.
    holdAnswer = null;
    openAnswer();
    await until(b, (s) => !!s.following && lastText(s).length > 20, 'the second tab to follow the reply');
    const users = (s: ChatState) => s.entries.filter((e) => e.type === 'message.input').map((e) => (e as { content?: unknown }).content);
    expect(users(b.state)).toEqual(['Hi', PROMPT]);
    a.dispose(); // the streaming tab closes mid-reply
    await storeA.close();
    await until(b, (s) => s.status === 'ready', 'the second tab to finish the reply', 15_000);
    await until(b, (s) => s.entries.every((e) => !e.id.startsWith('local_')), 'the server ids');
    expect(b.state.error).toBeNull();
    expect(users(b.state)).toEqual(['Hi', PROMPT]);
    expect(b.state.entries.map((e) => (e as { content?: unknown }).content)).toEqual(await serverContents(conversationId));
    // The store ends with the conversation as shown (the follower's last reconciliation replaces what both tabs wrote).
    await expect.poll(async () => (await storeB.getEntries(conversationId)).map((e) => e.id), { timeout: 5000 }).toEqual(b.state.entries.map((e) => e.id));
    b.dispose();
    await storeB.close();
  });
});
