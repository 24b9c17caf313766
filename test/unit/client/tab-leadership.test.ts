import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { TabLeadership, type Lead, type LeadershipHost } from '../../../src/client/tab-leadership.js';
import { TabSync } from '../../../src/client/tab-sync.js';
import { LatestRun, type RunToken } from '../../../src/client/latest-run.js';
import type { CachedEntry, ChatState } from '../../../src/client/contracts.js';
import { Locks } from './web-locks.js';

// Two tabs' leadership over one channel (Node has BroadcastChannel; Web Locks are played by Locks). Each
// "tab" is a state and a log of what leadership asked of its session.
beforeAll(() => {
  (globalThis as { navigator?: unknown }).navigator = { locks: new Locks() };
});
afterAll(() => {
  delete (globalThis as { navigator?: unknown }).navigator;
});

const AT = '2025-01-01T00:00:00.000Z';
let n = 0;

function tab(channel: string, conversationId = 'conv_1') {
  const runs = new LatestRun();
  const calls: string[] = [];
  const host = {
    state: { conversationId, entries: [], streamingEntryId: null, status: 'ready', error: null, agentName: null, notice: null, following: false } as ChatState,
    set(patch: Partial<ChatState>) {
      host.state = { ...host.state, ...patch };
    },
    active: null as Lead | null,
    queued: false as boolean,
    now: () => runs.now(),
    stop: () => void calls.push('stop'),
    dedupe: (entries: readonly CachedEntry[]) => entries.filter((e) => !(e.id.startsWith('local_') && entries.some((o) => o.id === `msg_${e.id.slice(6)}`))),
    catchUp: async () => void calls.push('catchUp'),
    resume: async (_run: RunToken, id: string) => void calls.push(`resume ${id}`),
  } satisfies LeadershipHost;
  const deleted: string[] = [];
  const leadership = new TabLeadership(host, { name: channel, deleteInflight: async (id) => void deleted.push(id) });
  return { host, calls, deleted, leadership, runs };
}

/** Tabs on a new channel, all showing conv_1 but the last ones named; `a` (the first) will lead `run`. */
function tabs(...conversations: string[]) {
  const channel = `lead-${++n}`;
  const [a, ...others] = ['conv_1', ...conversations].map((id) => tab(channel, id));
  const run: Lead = {};
  a.host.active = run;
  const close = () => {
    for (const t of [a, ...others]) t.leadership.close();
  };
  return { channel, a, others, run, lead: () => a.leadership.lead(run, 'conv_1', false), close };
}

const reply = (id: string, done: boolean): CachedEntry =>
  ({ object: 'entry', type: 'message.output', id, role: 'assistant', content: 'Once upon', agent_id: null, model: 'm', created_at: AT, completed_at: done ? AT : null });
const user = (id: string): CachedEntry =>
  ({ object: 'entry', type: 'message.input', id, role: 'user', content: 'Hi', prefix: false, created_at: AT, completed_at: AT });

describe('TabLeadership', () => {
  test('the leader says it streams; the other tab follows, shows its entries, and takes over from the stored point when the lead ends', async () => {
    const { channel, a, others: [b], run, lead } = tabs('conv_1');
    a.host.set({ streamingEntryId: 'msg_2' });
    lead();
    await vi.waitFor(() => expect(b.host.state).toMatchObject({ status: 'streaming', streamingEntryId: 'msg_2', following: true }));
    // b waits on the lock a holds.
    await new Promise((r) => setTimeout(r, 20));
    expect(b.calls).toEqual([]);

    // What a streams, b shows; the leader ignores entries (it makes them).
    const third = new TabSync(channel, () => {}); // a third tab, to say what the leader streams
    third.post({ kind: 'entry', conversationId: 'conv_1', entry: reply('msg_2', false) });
    await vi.waitFor(() => expect(b.host.state.entries.map((e) => e.id)).toEqual(['msg_2']));
    expect(b.host.state.streamingEntryId).toBe('msg_2');
    expect(a.host.state.entries).toEqual([]);

    // The leading tab goes away without saying so (closed): its lock goes, b takes over.
    a.leadership.close();
    run.leading!.release();
    await vi.waitFor(() => expect(b.calls).toEqual(['resume conv_1']));
    third.close();
    b.leadership.close();
  });

  test('a lead that ends tells the others (they catch up from the server) and leaves nothing to resume; a detached one keeps its point', async () => {
    const { a, others: [b], run, lead, close } = tabs('conv_1');
    lead();
    await vi.waitFor(() => expect(b.host.state.following).toBe(true));
    await a.leadership.endLead(run);
    expect(a.deleted).toEqual(['conv_1']);
    expect(run.leading).toBeUndefined();
    // The lock may reach b before the message does (its session then finds nothing stored to resume): either way it catches up.
    await vi.waitFor(() => expect(b.calls.at(-1)).toBe('catchUp'));
    expect(b.host.state).toMatchObject({ status: 'ready', following: false, streamingEntryId: null });

    const detached: Lead = {};
    a.leadership.lead(detached, 'conv_1', false);
    detached.detached = true;
    await a.leadership.endLead(detached);
    expect(a.deleted).toEqual(['conv_1']);
    close();
  });

  test('a stop pressed in the following tab stops the reply in the leading one', async () => {
    const { a, others: [b], lead, close } = tabs('conv_1');
    expect(b.leadership.stopLeader('conv_1')).toBe(false); // following nobody: the stop is this tab's own
    lead();
    await vi.waitFor(() => expect(b.host.state.following).toBe(true));
    expect(b.leadership.stopLeader('conv_1')).toBe(true);
    await vi.waitFor(() => expect(a.calls).toEqual(['stop']));
    close();
  });

  test('a tab with messages waiting, or showing another conversation, does not follow', async () => {
    const { others: [waiting, elsewhere], lead, close } = tabs('conv_1', 'conv_2');
    waiting.host.queued = true;
    lead();
    await new Promise((r) => setTimeout(r, 30));
    expect(waiting.host.state.following).toBe(false);
    expect(elsewhere.host.state.following).toBe(false);
    close();
  });

  test('the leader\'s late copy of a message this tab has under its server id is shown once', async () => {
    const channel = `lead-${++n}`;
    const b = tab(channel);
    b.host.set({ entries: [user('msg_a')] });
    const other = new TabSync(channel, () => {}); // another tab of the site
    other.post({ kind: 'entry', conversationId: 'conv_1', entry: user('local_a') });
    other.post({ kind: 'entry', conversationId: 'conv_1', entry: reply('msg_2', true) });
    await vi.waitFor(() => expect(b.host.state.entries.map((e) => e.id)).toEqual(['msg_a', 'msg_2']));
    expect(b.host.state.status).toBe('ready'); // not following: a finished entry does not make it stream
    other.close();
    b.leadership.close();
  });
});
