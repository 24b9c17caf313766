import 'fake-indexeddb/auto';
import { afterEach, describe, expect, test } from 'vitest';
import { openDB } from 'idb';
import { HistoryStore } from '../../../src/store/history-store.js';
import { SCHEMA_VERSION, createV1, migrateV1toV2 } from '../../../src/store/schema.js';
import type { CachedConversation, CachedEntry, InflightReply } from '../../../src/client/contracts.js';

// The in-flight reply of a conversation (issue 16): kept beside its entries, written in the same
// coalesced transaction, so a reload resumes exactly where the stored text ends.
let n = 0;
const dbName = () => `history-resume-${++n}`;
const opened: HistoryStore[] = [];
async function open(name = dbName(), writeIntervalMs = 80) {
  const store = await HistoryStore.open({ name, writeIntervalMs });
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const conversation = (id: string): CachedConversation => ({ id, title: id, agentId: null, model: 'parley-local', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
const reply = (id: string, content: string): CachedEntry => ({
  object: 'entry', type: 'message.output', id, role: 'assistant', content, agent_id: null, model: 'parley-local', created_at: '2026-01-01T00:00:01.000Z', completed_at: null,
});
const point = (conversationId: string, seq: number): InflightReply => ({ conversationId, streamId: 'rs_abc', lastEventId: `rs_abc:${seq}`, entryId: 'msg_1' });

describe('HistoryStore in-flight replies', () => {
  test('put, read (pending writes included), replace and delete', async () => {
    const store = await open();
    expect(await store.getInflight('conv_1')).toBeUndefined();
    void store.putInflight(point('conv_1', 3));
    expect(await store.getInflight('conv_1')).toEqual(point('conv_1', 3));
    void store.putInflight(point('conv_1', 9));
    expect(await store.getInflight('conv_1')).toEqual(point('conv_1', 9));
    void store.deleteInflight('conv_1');
    expect(await store.getInflight('conv_1')).toBeUndefined();
  });

  test('a reload (no flush, no close) finds the entry text and the point of the same moment', async () => {
    const name = dbName();
    const store = await HistoryStore.open({ name, writeIntervalMs: 5 });
    let text = '';
    for (let seq = 2; seq <= 200; seq++) {
      text += `w${seq} `;
      void store.putEntry('conv_1', reply('msg_1', text));
      void store.putInflight(point('conv_1', seq));
      if (seq % 37 === 0) await new Promise((r) => setTimeout(r, 8)); // some batches land on their own
    }
    // The page is gone mid-batch: a new one opens the same database and reads what had landed.
    const reloaded = await open(name);
    const [entry] = await reloaded.getEntries('conv_1');
    const inflight = await reloaded.getInflight('conv_1');
    const seq = Number(inflight!.lastEventId!.split(':')[1]);
    expect(entry.type === 'message.output' && entry.content).toBe(Array.from({ length: seq - 1 }, (_, i) => `w${i + 2} `).join(''));
    await store.close();
  });

  test('deleting a conversation drops its in-flight reply (pending or stored)', async () => {
    const store = await open();
    await store.putConversation(conversation('conv_1'));
    await store.putInflight(point('conv_1', 4));
    await store.deleteConversation('conv_1');
    expect(await store.getInflight('conv_1')).toBeUndefined();
    void store.putInflight(point('conv_1', 5));
    await store.deleteConversation('conv_1');
    expect(await store.getInflight('conv_1')).toBeUndefined();
  });

  test('migrates a version 2 database: its data stays, the inflight store is added', async () => {
    const name = dbName();
    const v2 = await openDB(name, 2, {
      async upgrade(db, _old, _new, tx) {
        createV1(db as never);
        await migrateV1toV2(db as never, tx as never);
      },
    });
    await v2.put('conversations', conversation('conv_1'));
    await v2.put('entries', { conversationId: 'conv_1', id: 'msg_1', position: 0, entry: reply('msg_1', 'kept') });
    await v2.put('meta', { key: 'resume:https://r.test', value: 'token' });
    v2.close();

    const store = await open(name);
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_1']);
    expect(await store.getEntries('conv_1')).toEqual([reply('msg_1', 'kept')]);
    expect(await store.getResumeToken('https://r.test')).toBe('token');
    await store.putInflight(point('conv_1', 2));
    expect(await store.getInflight('conv_1')).toEqual(point('conv_1', 2));
    await store.close();

    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    expect([...raw.objectStoreNames]).toContain('inflight');
    raw.close();
  });
});
