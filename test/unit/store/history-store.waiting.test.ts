import 'fake-indexeddb/auto';
import { afterEach, describe, expect, test } from 'vitest';
import { openDB } from 'idb';
import { HistoryStore } from '../../../src/store/history-store.js';
import { SCHEMA_VERSION, createV1, migrateV1toV2, migrateV2toV3 } from '../../../src/store/schema.js';
import type { CachedConversation, CachedEntry, InflightReply, WaitingTurn } from '../../../src/client/contracts.js';

// Messages written offline (v4 `waiting`): kept until sent or cancelled, so a reload while offline loses
// nothing; taken (read and deleted at once) by the page that sends them, so two tabs never both send.
let n = 0;
const dbName = () => `history-waiting-${++n}`;
const opened: HistoryStore[] = [];
async function open(name = dbName()) {
  const store = await HistoryStore.open({ name });
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const conversation = (id: string): CachedConversation => ({ id, title: id, agentId: null, model: 'parley-local', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
const user = (id: string, content: string, second = 1): CachedEntry => ({
  object: 'entry', type: 'message.input', id, role: 'user', content, prefix: false, created_at: `2026-01-01T00:00:0${second}.000Z`, completed_at: `2026-01-01T00:00:0${second}.000Z`,
});
const waiting = (key: string, entries: CachedEntry[]): WaitingTurn => ({ key, conversationId: key.startsWith('new:') ? null : key, entries, savedAt: '2026-01-01T00:00:09.000Z' });
const point: InflightReply = { conversationId: 'conv_1', streamId: 'rs_abc', lastEventId: 'rs_abc:3', entryId: 'msg_1' };

describe('HistoryStore waiting messages', () => {
  test('put merges by entry id, in order; take returns the record once; delete drops some or all', async () => {
    const store = await open();
    expect(await store.getWaiting('conv_1')).toBeUndefined();
    await store.putWaiting(waiting('conv_1', [user('loc_b', 'second', 2)]));
    // Another tab's message for the same conversation joins it; a rewrite of one does not duplicate it.
    await store.putWaiting(waiting('conv_1', [user('loc_a', 'first', 1), user('loc_b', 'second', 2)]));
    await store.putWaiting(waiting('conv_1', [user('loc_c', 'third', 3)]));
    expect((await store.getWaiting('conv_1'))!.entries.map((e) => e.id)).toEqual(['loc_a', 'loc_b', 'loc_c']);
    await store.deleteWaiting('conv_1', ['loc_b']);
    expect((await store.getWaiting('conv_1'))!.entries.map((e) => e.id)).toEqual(['loc_a', 'loc_c']);

    const [one, two] = await Promise.all([store.takeWaiting('conv_1'), store.takeWaiting('conv_1')]);
    expect(one!.entries.map((e) => e.id)).toEqual(['loc_a', 'loc_c']);
    expect(two).toBeUndefined();
    expect(await store.getWaiting('conv_1')).toBeUndefined();

    await store.putWaiting(waiting('new:model:parley-local', [user('loc_d', 'hello')]));
    await store.deleteWaiting('new:model:parley-local', ['loc_d']);
    expect(await store.getWaiting('new:model:parley-local')).toBeUndefined();
    await store.putWaiting(waiting('new:agent:ag_1', [user('loc_e', 'hi')]));
    await store.deleteWaiting('new:agent:ag_1');
    expect(await store.getWaiting('new:agent:ag_1')).toBeUndefined();
  });

  test('two pages on one database: only one take finds the record', async () => {
    const name = dbName();
    const a = await open(name);
    const b = await open(name);
    await a.putWaiting(waiting('conv_1', [user('loc_a', 'from the train')]));
    const taken = await Promise.all([a.takeWaiting('conv_1'), b.takeWaiting('conv_1')]);
    expect(taken.filter(Boolean)).toHaveLength(1);
  });

  test('deleting the conversation drops its waiting messages', async () => {
    const store = await open();
    await store.putConversation(conversation('conv_1'));
    await store.putWaiting(waiting('conv_1', [user('loc_a', 'never mind')]));
    await store.deleteConversation('conv_1');
    expect(await store.getWaiting('conv_1')).toBeUndefined();
  });

  test('migrates a version 3 database: its data stays, the waiting store is added', async () => {
    const name = dbName();
    const v3 = await openDB(name, 3, {
      async upgrade(db, _old, _new, tx) {
        createV1(db as never);
        await migrateV1toV2(db as never, tx as never);
        migrateV2toV3(db as never);
      },
    });
    await v3.put('conversations', conversation('conv_1'));
    await v3.put('entries', { conversationId: 'conv_1', id: 'msg_1', position: 0, entry: user('msg_1', 'kept') });
    await v3.put('meta', { key: 'resume:https://r.test', value: 'token' });
    await v3.put('inflight', point);
    v3.close();

    const store = await open(name);
    expect((await store.listConversations()).map((c) => c.id)).toEqual(['conv_1']);
    expect(await store.getEntries('conv_1')).toEqual([user('msg_1', 'kept')]);
    expect(await store.getResumeToken('https://r.test')).toBe('token');
    expect(await store.getInflight('conv_1')).toEqual(point);
    await store.putWaiting(waiting('conv_1', [user('loc_a', 'offline')]));
    expect((await store.getWaiting('conv_1'))!.entries).toEqual([user('loc_a', 'offline')]);
    await store.close();

    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(4);
    expect([...raw.objectStoreNames].sort()).toEqual(['conversations', 'entries', 'inflight', 'meta', 'waiting']);
    raw.close();
  });
});
