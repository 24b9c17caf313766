import { describe, expect, test } from 'vitest';
import { HistorySync, type HistoryHost, type HistoryOptions } from '../../../src/client/history-sync.js';
import { LatestRun } from '../../../src/client/latest-run.js';
import type { CachedEntry, ChatState, ConversationStream, HistoryStoreApi } from '../../../src/client/contracts.js';
import type { TabMessage } from '../../../src/client/tab-sync.js';
import type { ConversationEntry } from '../../../src/client/types.js';

const AT = '2025-01-01T00:00:00.000Z';
const LATER = '2025-01-01T00:00:05.000Z';
const user = (id: string, content: string, at = AT): CachedEntry =>
  ({ object: 'entry', type: 'message.input', id, role: 'user', content, prefix: false, created_at: at, completed_at: at });
const reply = (id: string, content: string, at = AT): CachedEntry =>
  ({ object: 'entry', type: 'message.output', id, role: 'assistant', content, agent_id: null, model: 'parley-local', created_at: at, completed_at: at });

/** A store that records its writes (the calls history sync makes), failing them when `failing`. */
function recordingStore(failing = false) {
  const writes: unknown[][] = [];
  const write = (name: string) => async (...args: unknown[]) => {
    writes.push([name, ...args]);
    if (failing) throw new Error('QuotaExceededError');
  };
  const store = {
    putConversation: write('putConversation'), putEntry: write('putEntry'), replaceEntries: write('replaceEntries'),
    deleteConversation: write('deleteConversation'), putInflight: write('putInflight'),
  } as Partial<HistoryStoreApi> as HistoryStoreApi;
  return { store, writes };
}

/** The part of a session history sync sees: a state it patches. */
function sessionOf(state: Partial<ChatState>, unsent: string[] = []) {
  const host = {
    state: { conversationId: null, entries: [], streamingEntryId: null, status: 'ready', error: null, agentName: null, notice: null, ...state } as ChatState,
    set(patch: Partial<ChatState>) {
      host.state = { ...host.state, ...patch };
    },
    unsent,
    active: null as object | null,
    notSaved() {
      host.notices++;
    },
    notices: 0,
  } satisfies HistoryHost & Record<string, unknown>;
  return host;
}

function historyOf(entries: ConversationEntry[] | Error): HistoryOptions['client'] {
  return {
    conversations: {
      history: async (conversationId) => {
        if (entries instanceof Error) throw entries;
        return { object: 'conversation.history', conversation_id: conversationId, entries } as Awaited<ReturnType<HistoryOptions['client']['conversations']['history']>>;
      },
    },
  };
}

describe('HistorySync.syncIds', () => {
  test('adopts the server\'s ids, stores the entries and the record, and returns what it renamed', async () => {
    const host = sessionOf({ conversationId: 'conv_1', entries: [user('local_a', 'Hi'), reply('msg_2', 'Hello')] });
    const { store, writes } = recordingStore();
    const sync = new HistorySync(host, { client: historyOf([user('msg_1', 'Hi'), reply('msg_2', 'Hello')]), store, model: 'parley-local' }, null);
    const renamed = await sync.syncIds(new LatestRun().next());
    expect(renamed).toEqual(new Map([['local_a', 'msg_1']]));
    expect(host.state.entries.map((e) => e.id)).toEqual(['msg_1', 'msg_2']);
    expect(writes.map((w) => w[0])).toEqual(['replaceEntries', 'putConversation']);
    expect(sync.record).toMatchObject({ id: 'conv_1', title: 'Hi', agentId: null, model: 'parley-local', createdAt: AT });
  });

  test('null, changing nothing, when the server cannot be asked, the run is stale, or a turn runs now', async () => {
    const entries = [user('local_a', 'Hi')];
    const offline = sessionOf({ conversationId: 'conv_1', entries });
    expect(await new HistorySync(offline, { client: historyOf(new TypeError('Failed to fetch')) }, null).syncIds(new LatestRun().next())).toBeNull();
    expect(offline.state.entries).toBe(entries);

    const runs = new LatestRun();
    const run = runs.next();
    const stale = sessionOf({ conversationId: 'conv_1', entries });
    const pending = new HistorySync(stale, { client: historyOf([user('msg_1', 'Hi')]) }, null).syncIds(run);
    runs.next();
    expect(await pending).toBeNull();
    expect(stale.state.entries).toBe(entries);

    const busy = sessionOf({ conversationId: 'conv_1', entries });
    busy.active = {};
    expect(await new HistorySync(busy, { client: historyOf([user('msg_1', 'Hi')]) }, null).syncIds(new LatestRun().next())).toBeNull();
  });

  test('keeps what never reached the server after the history', async () => {
    const host = sessionOf({ conversationId: 'conv_1', entries: [user('msg_1', 'Hi'), reply('msg_2', 'Hello'), user('local_b', 'Hi')] }, ['local_b']);
    const sync = new HistorySync(host, { client: historyOf([user('msg_1', 'Hi'), reply('msg_2', 'Hello')]) }, null);
    expect(await sync.syncIds(new LatestRun().next())).toEqual(new Map());
    expect(host.state.entries.map((e) => e.id)).toEqual(['msg_1', 'msg_2', 'local_b']);
  });
});

describe('HistorySync: aliases', () => {
  test('a page-made copy arriving after its reconciliation (another tab\'s late write) is dropped', () => {
    const host = sessionOf({ conversationId: 'conv_1', entries: [user('local_a', 'Hi')] });
    const sync = new HistorySync(host, { client: historyOf([]) }, null);
    sync.adopt('conv_1', [user('msg_1', 'Hi'), reply('msg_2', 'Hello')]);
    expect(sync.dedupe([user('msg_1', 'Hi'), reply('msg_2', 'Hello'), user('local_a', 'Hi')]).map((e) => e.id)).toEqual(['msg_1', 'msg_2']);
    sync.forget();
    // Forgotten: only a twin by content within its turn goes now (here there is none: the reply ended the turn).
    expect(sync.dedupe([user('msg_1', 'Hi'), reply('msg_2', 'Hello'), user('local_a', 'Hi')]).map((e) => e.id)).toEqual(['msg_1', 'msg_2', 'local_a']);
  });
});

describe('HistorySync: writes', () => {
  test('persist writes the entry and tells the other tabs; nothing without a conversation', () => {
    const host = sessionOf({ conversationId: null });
    const { store, writes } = recordingStore();
    const told: TabMessage[] = [];
    const sync = new HistorySync(host, { client: historyOf([]), store }, { post: (m) => told.push(m) });
    const entry = user('local_a', 'Hi');
    sync.persist(entry);
    expect(writes).toEqual([]);
    host.set({ conversationId: 'conv_1' });
    sync.persist(entry);
    expect(writes).toEqual([['putEntry', 'conv_1', entry]]);
    expect(told).toEqual([{ kind: 'entry', conversationId: 'conv_1', entry }]);
  });

  test('keepPoint stores where the stream is, with the entry it streams', () => {
    const host = sessionOf({ conversationId: 'conv_1', streamingEntryId: 'msg_2' });
    const { store, writes } = recordingStore();
    const sync = new HistorySync(host, { client: historyOf([]), store }, null);
    sync.keepPoint({ resumePoint: { streamId: 'str_1', lastEventId: '4' } } as unknown as ConversationStream);
    sync.keepPoint({ resumePoint: null } as unknown as ConversationStream);
    expect(writes).toEqual([['putInflight', { conversationId: 'conv_1', streamId: 'str_1', lastEventId: '4', entryId: 'msg_2' }]]);
  });

  test('a write the store refuses tells the visitor', async () => {
    const host = sessionOf({ conversationId: 'conv_1' });
    const sync = new HistorySync(host, { client: historyOf([]), store: recordingStore(true).store }, null);
    sync.persist(user('local_a', 'Hi'));
    sync.save([user('local_a', 'Hi')]);
    await new Promise((r) => setTimeout(r, 0));
    expect(host.notices).toBe(2);
  });

  test('started: a new conversation stores its record and every entry; an append stores its page-made inputs', () => {
    const host = sessionOf({ conversationId: null, entries: [user('local_a', 'Hi')] });
    const { store, writes } = recordingStore();
    const sync = new HistorySync(host, { client: historyOf([]), store, agentId: 'ag_1', model: 'ignored' }, null);
    host.set({ conversationId: 'conv_1' });
    sync.started(null, true);
    expect(sync.record).toMatchObject({ id: 'conv_1', title: 'Hi', agentId: 'ag_1', model: null });
    expect(writes.map((w) => w[0])).toEqual(['putConversation', 'putEntry']);

    writes.length = 0;
    host.set({ entries: [user('msg_1', 'Hi'), reply('msg_2', 'Hello'), user('local_b', 'More', LATER)] });
    sync.started('conv_1', false);
    expect(writes.map((w) => [w[0], (w[2] as CachedEntry | undefined)?.id])).toEqual([['putConversation', undefined], ['putEntry', 'local_b']]);
  });

  test('started after a restart: the new conversation replaces the old one in the store, created when the old one was', () => {
    const host = sessionOf({ conversationId: 'conv_1', entries: [user('msg_1', 'Hi')] });
    const { store, writes } = recordingStore();
    const sync = new HistorySync(host, { client: historyOf([]), store }, null);
    sync.record = { id: 'conv_1', title: 'First words', agentId: null, model: 'parley-local', createdAt: AT, updatedAt: AT };
    host.set({ conversationId: 'conv_2' });
    sync.started('conv_1', false);
    expect(sync.record).toMatchObject({ id: 'conv_2', title: 'Hi', model: 'parley-local', createdAt: AT });
    expect(writes.map((w) => w[0])).toEqual(['putConversation', 'deleteConversation', 'putEntry']);
    expect(writes[1]).toEqual(['deleteConversation', 'conv_1']);
  });
});
