import 'fake-indexeddb/auto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openDB } from 'idb';
import { HistoryStore } from '../../../src/store/history-store.js';
import { SCHEMA_VERSION } from '../../../src/store/schema.js';
import type { CachedConversation, CachedEntry } from '../../../src/client/contracts.js';

let n = 0;
const dbName = () => `history-test-${++n}`;
const opened: HistoryStore[] = [];
async function open(options: Parameters<typeof HistoryStore.open>[0] = {}) {
  const store = await HistoryStore.open({ name: dbName(), ...options });
  opened.push(store);
  return store;
}
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function conversation(id: string, updatedAt: string, title = id): CachedConversation {
  return { id, title, agentId: null, model: 'parley-local', createdAt: updatedAt, updatedAt };
}
function user(id: string, content: string): CachedEntry {
  return { object: 'entry', type: 'message.input', id, role: 'user', content, created_at: '2026-01-01T00:00:00.000Z' };
}
function reply(id: string, content: string, done = true): CachedEntry {
  return { object: 'entry', type: 'message.output', id, role: 'assistant', content, agent_id: null, model: 'parley-local', created_at: '2026-01-01T00:00:01.000Z', completed_at: done ? '2026-01-01T00:00:02.000Z' : null };
}
const day = (d: number) => `2026-01-${String(d).padStart(2, '0')}T00:00:00.000Z`;

describe('HistoryStore', () => {
  test('conversations newest first; entries in the order first written; putEntry replaces by id', async () => {
    const store = await open();
    await store.putConversation(conversation('conv_a', day(1)));
    await store.putConversation(conversation('conv_b', day(3)));
    await store.putConversation(conversation('conv_c', day(2)));
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_b', 'conv_c', 'conv_a']);
    expect(await store.getConversation('conv_c')).toMatchObject({ title: 'conv_c' });

    store.putEntry('conv_a', user('msg_1', 'hi'));
    store.putEntry('conv_a', reply('msg_2', 'Hel', false));
    store.putEntry('conv_a', reply('msg_2', 'Hello', false));
    store.putEntry('conv_b', user('msg_9', 'other'));
    await store.putEntry('conv_a', reply('msg_2', 'Hello!'));
    store.putEntry('conv_a', user('msg_3', 'next'));
    expect(await store.getEntries('conv_a')).toEqual([user('msg_1', 'hi'), reply('msg_2', 'Hello!'), user('msg_3', 'next')]);
    expect((await store.getEntries('conv_b')).map((e) => e.id)).toEqual(['msg_9']);
    expect(await store.getEntries('conv_none')).toEqual([]);
  });

  test('the same entry id in two conversations (a restart copies entries) is two records', async () => {
    const store = await open();
    await store.replaceEntries('conv_a', [user('msg_1', 'hi'), reply('msg_2', 'A')]);
    await store.replaceEntries('conv_b', [user('msg_1', 'hi'), reply('msg_3', 'B')]);
    expect((await store.getEntries('conv_a')).map((e) => e.id)).toEqual(['msg_1', 'msg_2']);
    expect((await store.getEntries('conv_b')).map((e) => e.id)).toEqual(['msg_1', 'msg_3']);
  });

  test('replaceEntries replaces a conversation\'s entries and drops its pending writes', async () => {
    const store = await open();
    store.putEntry('conv_a', user('local_1', 'hi'));
    store.putEntry('conv_a', reply('msg_2', 'partial', false));
    await store.replaceEntries('conv_a', [user('msg_1', 'hi'), { ...reply('msg_2', 'partial, longer', false), interrupted: true }]);
    await store.flush();
    expect(await store.getEntries('conv_a')).toEqual([user('msg_1', 'hi'), { ...reply('msg_2', 'partial, longer', false), interrupted: true }]);
  });

  test('deleteConversation removes the record and its entries', async () => {
    const store = await open();
    await store.putConversation(conversation('conv_a', day(1)));
    await store.replaceEntries('conv_a', [user('msg_1', 'hi')]);
    await store.replaceEntries('conv_ab', [user('msg_1', 'kept')]);
    await store.deleteConversation('conv_a');
    expect(await store.getConversation('conv_a')).toBeUndefined();
    expect(await store.getEntries('conv_a')).toEqual([]);
    expect(await store.getEntries('conv_ab')).toHaveLength(1);
  });

  test('resume tokens by relay URL', async () => {
    const store = await open();
    expect(await store.getResumeToken('https://a.test/relay')).toBeUndefined();
    await store.setResumeToken('https://a.test/relay/', 'rs_1');
    expect(await store.getResumeToken('https://a.test/relay')).toBe('rs_1');
  });

  test('write coalescing: a 5,000-delta reply costs a handful of transactions and puts', async () => {
    const store = await open({ writeIntervalMs: 30 });
    const puts = vi.spyOn(IDBObjectStore.prototype, 'put');
    const transactions = vi.spyOn(IDBDatabase.prototype, 'transaction');
    store.putEntry('conv_a', user('msg_1', 'write me a lot'));
    let text = '';
    for (let i = 0; i < 5000; i++) {
      text += ` w${i}`;
      store.putEntry('conv_a', reply('msg_2', text, false));
      if (i % 1000 === 999) await new Promise((r) => setTimeout(r, 35)); // the reply keeps streaming across batches
    }
    await store.putEntry('conv_a', reply('msg_2', text, true));
    await store.flush();
    const entryPuts = puts.mock.calls.length;
    expect(entryPuts).toBeLessThanOrEqual(14); // ≤ 2 entries per batch, ~6 batches
    expect(transactions.mock.calls.length).toBeLessThanOrEqual(8);
    expect((await store.getEntries('conv_a'))[1]).toMatchObject({ content: text, completed_at: '2026-01-01T00:00:02.000Z' });
  });

  test('a reload mid-reply keeps what was received (written within the interval, no explicit flush)', async () => {
    const name = dbName();
    const tab = await HistoryStore.open({ name, writeIntervalMs: 20 });
    // A new page opening the same database while the first goes on without closing.
    const reloaded = await HistoryStore.open({ name });
    opened.push(reloaded, tab);
    // The write interval runs on fake timers (IndexedDB itself on real ones): due at 20 ms, whatever the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      tab.putEntry('conv_a', user('msg_1', 'hi'));
      let stored = false;
      void tab.putEntry('conv_a', reply('msg_2', 'Once upon a', false)).then(() => { stored = true; });
      await vi.advanceTimersByTimeAsync(19);
      expect(await reloaded.getEntries('conv_a'), 'batched: nothing written before the interval').toEqual([]);
      expect(stored).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      // The clock stands still now: the write must complete on IndexedDB's own turns.
      for (let turn = 0; !stored && turn < 1000; turn++) await new Promise((r) => setImmediate(r));
      expect(stored, 'written when the interval fell due').toBe(true);
    } finally {
      vi.useRealTimers();
    }
    expect(await reloaded.getEntries('conv_a')).toEqual([user('msg_1', 'hi'), reply('msg_2', 'Once upon a', false)]);
  });

  test('quota errors evict the least recently updated conversations, never the one being written, and report them', async () => {
    const store = await open();
    for (let d = 1; d <= 4; d++) {
      await store.putConversation(conversation(`conv_${d}`, day(d)));
      await store.replaceEntries(`conv_${d}`, [user(`msg_${d}`, `hello ${d}`)]);
    }
    const evicted: string[][] = [];
    store.onEvicted = (ids) => evicted.push(ids);
    // The disk is "full" for the next two entry writes.
    let failures = 2;
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'entries' && failures > 0) {
        failures--;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return put.apply(this, args);
    });
    // conv_1 is the oldest but it is the one being written: conv_2 and conv_3 go.
    await store.putEntry('conv_1', reply('msg_r', 'a reply that does not fit'));
    expect(evicted).toEqual([['conv_2', 'conv_3']]);
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_4', 'conv_1']);
    expect(await store.getEntries('conv_2')).toEqual([]);
    expect((await store.getEntries('conv_1')).map((e) => e.id)).toEqual(['msg_1', 'msg_r']);
  });

  test('when nothing is left to evict the write fails with the quota error', async () => {
    const store = await open();
    await store.putConversation(conversation('conv_1', day(1)));
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    await expect(store.replaceEntries('conv_1', [user('msg_1', 'hi')])).rejects.toMatchObject({ name: 'QuotaExceededError' });
    vi.restoreAllMocks();
    // The store keeps working once there is room again.
    await store.replaceEntries('conv_1', [user('msg_1', 'hi')]);
    expect(await store.getEntries('conv_1')).toHaveLength(1);
  });

  test('beyond maxConversations the least recently updated conversations are removed with their entries', async () => {
    const store = await open({ maxConversations: 3 });
    const evicted: string[][] = [];
    store.onEvicted = (ids) => evicted.push(ids);
    for (const d of [5, 1, 4, 2, 3]) {
      await store.replaceEntries(`conv_${d}`, [user(`msg_${d}`, 'x')]);
      await store.putConversation(conversation(`conv_${d}`, day(d)));
    }
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_5', 'conv_4', 'conv_3']);
    expect(await store.getEntries('conv_1')).toEqual([]);
    expect(await store.getEntries('conv_2')).toEqual([]);
    expect(evicted).toEqual([]); // a policy, not a quota emergency
    // Updating an old conversation makes it recent: it survives, the oldest other goes.
    await store.putConversation(conversation('conv_9', day(9)));
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_9', 'conv_5', 'conv_4']);
  });

  test('migrates a version 1 database: entries re-keyed and ordered, indexes and meta added', async () => {
    const name = dbName();
    const v1 = await openDB(name, 1, {
      upgrade(db) {
        db.createObjectStore('conversations', { keyPath: 'id' });
        db.createObjectStore('entries', { keyPath: 'id' }).createIndex('conversationId', 'conversationId');
      },
    });
    await v1.put('conversations', conversation('conv_old', day(1), 'old one'));
    await v1.put('conversations', conversation('conv_new', day(2), 'new one'));
    await v1.put('entries', { ...reply('msg_b', 'second'), conversationId: 'conv_old', position: 1 });
    await v1.put('entries', { ...user('msg_a', 'first'), conversationId: 'conv_old', position: 0 });
    await v1.put('entries', { ...user('msg_c', 'other'), conversationId: 'conv_new', position: 0 });
    v1.close();

    const store = await HistoryStore.open({ name });
    opened.push(store);
    expect((await store.listConversations()).map((c) => c.title)).toEqual(['new one', 'old one']);
    expect(await store.getEntries('conv_old')).toEqual([user('msg_a', 'first'), reply('msg_b', 'second')]);
    await store.setResumeToken('https://r.test', 'rs');
    expect(await store.getResumeToken('https://r.test')).toBe('rs');
    // New writes go after the migrated entries.
    await store.putEntry('conv_old', user('msg_d', 'third'));
    expect((await store.getEntries('conv_old')).map((e) => e.id)).toEqual(['msg_a', 'msg_b', 'msg_d']);
    await store.close();

    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    expect([...raw.objectStoreNames].sort()).toEqual(['conversations', 'entries', 'inflight', 'meta', 'waiting']);
    expect(raw.transaction('entries').store.keyPath).toEqual(['conversationId', 'id']);
    raw.close();
  });
});
