import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import type { ChatState } from '../../../src/client/contracts.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { callPlatform, startPlatform } from './helpers.js';
import { resumeRelay, type ResumeRelay } from './resume-relay.js';

// Two tabs of one site on one conversation (issue 16, item 3): Node has BroadcastChannel; Web Locks
// are played by a small exclusive lock manager (what browsers do: requests granted in order, a closed
// tab's locks released). Each "tab" has its own client and its own connection to the same database.
const BASE = 'http://relay.test/api';
let platform: Platform;
let n = 0;

class Locks {
  readonly #held = new Set<string>();
  readonly #queues = new Map<string, Array<() => void>>();
  async request(name: string, options: { signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown> {
    const abort = () => Object.assign(new Error('aborted'), { name: 'AbortError' });
    if (options.signal?.aborted) throw abort();
    if (this.#held.has(name)) {
      await new Promise<void>((resolve, reject) => {
        const queue = this.#queues.get(name) ?? [];
        this.#queues.set(name, queue);
        queue.push(resolve);
        options.signal?.addEventListener('abort', () => {
          const i = queue.indexOf(resolve);
          if (i >= 0) {
            queue.splice(i, 1);
            reject(abort());
          }
        });
      });
    }
    this.#held.add(name);
    try {
      return await callback({ name });
    } finally {
      const next = this.#queues.get(name)?.shift();
      if (next) next();
      else this.#held.delete(name);
    }
  }
}

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

function until(session: ChatSession, check: (s: ChatState) => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check(session.state)) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}: ${JSON.stringify({ status: session.state.status, following: session.state.following })}`));
    }, ms);
    const off = session.subscribe((s) => {
      if (!check(s)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
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
