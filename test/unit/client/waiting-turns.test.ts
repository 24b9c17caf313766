import 'fake-indexeddb/auto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { WAIT_RETRY_MS, WaitingTurns, type WaitingHost } from '../../../src/client/waiting-turns.js';
import { inputTurn, type Turn } from '../../../src/client/conversation-transport.js';
import { LatestRun, type RunToken } from '../../../src/client/latest-run.js';
import type { CachedEntry, ChatState } from '../../../src/client/contracts.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { browserNetwork } from './browser-network.js';

// The offline queue on its own: a session is played by a state and a log of what it was asked to send.
const { navigator, online, onlineEvent } = browserNetwork();
afterEach(() => {
  vi.useRealTimers();
});

let n = 0;
const user = (content: string, at: string): CachedEntry =>
  ({ object: 'entry', type: 'message.input', id: `local_${content.replace(/\W/g, '')}`, role: 'user', content, prefix: false, created_at: at, completed_at: at });

function session(entries: CachedEntry[] = []) {
  const runs = new LatestRun();
  const sent: Array<{ run: RunToken; turn: Turn }> = [];
  const host = {
    state: { conversationId: null, entries, streamingEntryId: null, status: 'submitted', error: null, agentName: null, notice: null, waiting: [] } as ChatState,
    set(patch: Partial<ChatState>) {
      host.state = { ...host.state, ...patch };
    },
    unsent: [] as string[],
    idle: true as boolean,
    next: () => runs.next(),
    async perform(run: RunToken, turn: Turn) {
      sent.push({ run, turn });
    },
    notSaved: () => {},
  } satisfies WaitingHost;
  return { host, sent, runs };
}

const ids = (entries: readonly CachedEntry[]) => entries.map((e) => e.id);

describe('WaitingTurns', () => {
  test('a waiting turn is shown waiting, kept in the store under its conversation, and sent (claimed) when the browser is online', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const late = user('On the train', '2025-01-01T00:00:01.000Z');
    const { host, sent } = session([user('Hi', '2025-01-01T00:00:00.000Z'), late]);
    const waiting = new WaitingTurns(host, { store, model: 'parley-local' });
    navigator.onLine = false;
    const turn = inputTurn('conv_1', [late]);
    waiting.wait(turn);
    expect(host.state).toMatchObject({ status: 'ready', waiting: [late.id] });
    expect(host.unsent).toEqual([late.id]);
    expect(waiting.queued).toBe(turn);
    await store.flush();
    expect(ids((await store.getWaiting('conv_1'))!.entries)).toEqual([late.id]);

    online();
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0].turn).toEqual(turn);
    expect(host.state).toMatchObject({ status: 'submitted', waiting: [] });
    expect(waiting.queued).toBeNull();
    expect(await store.getWaiting('conv_1')).toBeUndefined(); // taken by the tab that sends it
    await store.close();
  });

  test('a first message waits under the agent\'s or the model\'s key', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const first = user('Hello', '2025-01-01T00:00:00.000Z');
    navigator.onLine = false;
    const agent = new WaitingTurns(session([first]).host, { store, agentId: 'ag_1' });
    expect(agent.newKey).toBe('new:agent:ag_1');
    expect(new WaitingTurns(session().host, { model: 'parley-local' }).newKey).toBe('new:model:parley-local');
    agent.wait(inputTurn(null, [first]));
    await store.flush();
    expect(ids((await store.getWaiting('new:agent:ag_1'))!.entries)).toEqual([first.id]);
    agent.drop();
    await store.close();
  });

  test('an online event while the session is busy, or still offline, sends nothing', async () => {
    const entry = user('Later', '2025-01-01T00:00:00.000Z');
    const { host, sent } = session([entry]);
    const waiting = new WaitingTurns(host, {});
    navigator.onLine = false;
    waiting.wait(inputTurn('conv_1', [entry]), false);
    host.idle = false;
    online();
    await new Promise((r) => setTimeout(r, 10));
    expect(sent).toEqual([]);
    host.idle = true;
    navigator.onLine = false;
    waiting.wait(inputTurn('conv_1', [entry]), false);
    onlineEvent(); // the event came, but the browser says it is offline again
    await new Promise((r) => setTimeout(r, 10));
    expect(sent).toEqual([]);
    expect(waiting.queued).not.toBeNull();
    waiting.drop();
  });

  test('a browser that believes it is online (the relay was unreachable) tries again after WAIT_RETRY_MS', async () => {
    vi.useFakeTimers();
    const entry = user('Retry me', '2025-01-01T00:00:00.000Z');
    const { host, sent } = session([entry]);
    const waiting = new WaitingTurns(host, {});
    waiting.wait(inputTurn('conv_1', [entry]), false);
    await vi.advanceTimersByTimeAsync(WAIT_RETRY_MS - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(1);
  });

  test('a send takes the waiting turn along: its ids stay unsent, it no longer waits', () => {
    const entry = user('Queued', '2025-01-01T00:00:00.000Z');
    const { host } = session([entry]);
    host.unsent = ['local_other'];
    const waiting = new WaitingTurns(host, {});
    const turn = inputTurn('conv_1', [entry]);
    waiting.wait(turn, true);
    host.unsent = ['local_other'];
    expect(waiting.take()).toEqual({ turn, stored: true });
    expect(host.unsent).toEqual(['local_other', entry.id]);
    expect(waiting.queued).toBeNull();
    expect(waiting.take()).toBeNull();
  });

  test('cancel drops the waiting messages from the transcript and the store', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const kept = user('Hi', '2025-01-01T00:00:00.000Z');
    const entry = user('Never mind', '2025-01-01T00:00:01.000Z');
    const { host } = session([kept, entry]);
    const waiting = new WaitingTurns(host, { store });
    navigator.onLine = false;
    waiting.wait(inputTurn('conv_1', [entry]));
    await store.flush();
    waiting.cancel();
    expect(ids(host.state.entries)).toEqual([kept.id]);
    expect(host.state.waiting).toEqual([]);
    expect(host.unsent).toEqual([]);
    expect(await store.getWaiting('conv_1')).toBeUndefined();
    await store.close();
  });
});

describe('WaitingTurns.claim (tabs sharing the store)', () => {
  test('messages another tab took leave this transcript; nothing left to send → null and ready', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const entry = user('Only once', '2025-01-01T00:00:01.000Z');
    const { host } = session([entry]);
    const waiting = new WaitingTurns(host, { store });
    const turn = inputTurn('conv_1', [entry]);
    // The store holds nothing under the key: another tab took the record.
    expect(await waiting.claim(new LatestRun().next(), turn, [entry.id])).toBeNull();
    expect(host.state.entries).toEqual([]);
    expect(host.state.status).toBe('ready');
    await store.close();
  });

  test('messages another tab kept under the same key join the turn, in the order they were written', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const mine = user('Mine', '2025-01-01T00:00:02.000Z');
    const theirs = user('Theirs', '2025-01-01T00:00:01.000Z');
    await store.putWaiting({ key: 'conv_1', conversationId: 'conv_1', entries: [theirs, mine], savedAt: '2025-01-01T00:00:03.000Z' });
    const { host } = session([mine]);
    const waiting = new WaitingTurns(host, { store });
    const claimed = await waiting.claim(new LatestRun().next(), inputTurn('conv_1', [mine]), [mine.id]);
    expect(claimed).toEqual(inputTurn('conv_1', [theirs, mine]));
    expect(ids(host.state.entries)).toEqual([theirs.id, mine.id]);
    expect(await store.getWaiting('conv_1')).toBeUndefined();
    await store.close();
  });

  test('a session that moved on meanwhile puts the messages back to wait', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const entry = user('Back you go', '2025-01-01T00:00:01.000Z');
    await store.putWaiting({ key: 'conv_1', conversationId: 'conv_1', entries: [entry], savedAt: '2025-01-01T00:00:03.000Z' });
    const { host, runs } = session([entry]);
    const waiting = new WaitingTurns(host, { store });
    const claiming = waiting.claim(runs.next(), inputTurn('conv_1', [entry]), [entry.id]);
    runs.next(); // another conversation is shown
    expect(await claiming).toBeNull();
    await expect.poll(async () => ids((await store.getWaiting('conv_1'))?.entries ?? [])).toEqual([entry.id]);
    await store.close();
  });
});

describe('WaitingTurns.restore', () => {
  test('messages kept by an earlier page are shown after the transcript and wait; online, they go at once', async () => {
    const store = await HistoryStore.open({ name: `waiting-${++n}` });
    const shown = user('Hi', '2025-01-01T00:00:00.000Z');
    const kept = user('Written offline', '2025-01-01T00:00:01.000Z');
    const record = { key: 'conv_1', conversationId: 'conv_1', entries: [kept], savedAt: '2025-01-01T00:00:02.000Z' };
    await store.putWaiting(record);
    navigator.onLine = false;
    const { host, sent } = session([shown]);
    const waiting = new WaitingTurns(host, { store });
    expect(waiting.restore({ ...record, entries: [] })).toBe(false);
    expect(waiting.restore(record)).toBe(true);
    expect(ids(host.state.entries)).toEqual([shown.id, kept.id]);
    expect(host.state.waiting).toEqual([kept.id]);
    expect(sent).toEqual([]);

    online();
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0].turn).toEqual(inputTurn('conv_1', [kept]));
    await store.close();
  });
});
