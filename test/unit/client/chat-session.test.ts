import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession, EVICTED_NOTICE } from '../../../src/client/chat-session.js';
import { isLocalId } from '../../../src/client/chat-entries.js';
import { ParleyClient } from '../../../src/client/client.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import type { ChatSessionOptions, ChatState, ChatStatus } from '../../../src/client/contracts.js';
import { BASE, API_KEY, callPlatform, platformClient, platformFetch, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
let slow: Platform;

beforeAll(async () => {
  [platform, slow] = await Promise.all([startPlatform(), startPlatform({ tokenDelayMs: 20 })]);
});
afterAll(async () => {
  await Promise.all([platform.close(), slow.close()]);
});

let n = 0;
async function openStore(name = `chat-${++n}`) {
  return HistoryStore.open({ name, writeIntervalMs: 20 });
}

function chat(options: Partial<ChatSessionOptions> & { store?: HistoryStore } = {}) {
  return new ChatSession({ client: platformClient(platform), model: 'parley-local', ...options });
}

/** Records every distinct status the session goes through. */
function statuses(session: ChatSession): ChatStatus[] {
  const seen: ChatStatus[] = [session.state.status];
  session.subscribe((s) => {
    if (seen.at(-1) !== s.status) seen.push(s.status);
  });
  return seen;
}

function text(entry: ChatState['entries'][number] | undefined): string {
  return entry && (entry.type === 'message.output' || entry.type === 'message.input') && typeof entry.content === 'string' ? entry.content : '';
}

async function serverHistory(p: Platform, id: string) {
  return (await callPlatform(p, `/v1/conversations/${id}/history`)).json.entries as Array<{ id: string; type: string }>;
}

describe('ChatSession against the local platform', () => {
  test('send: ready → submitted → streaming → ready; entries match the server, ids included; the store has them', async () => {
    const store = await openStore();
    const session = chat({ store });
    const seen = statuses(session);
    let deltas = 0;
    session.subscribe((s) => { if (s.streamingEntryId) deltas++; });
    await session.send('Hello there, how are you?');
    expect(seen).toEqual(['ready', 'submitted', 'streaming', 'ready']);
    expect(deltas).toBeGreaterThan(5); // subscribers see the reply grow
    const { conversationId, entries } = session.state;
    expect(conversationId).toMatch(/^conv_/);
    expect(entries.map((e) => e.type)).toEqual(['message.input', 'message.output']);
    expect(entries.some((e) => isLocalId(e.id))).toBe(false);
    expect(entries.map((e) => e.id)).toEqual((await serverHistory(platform, conversationId!)).map((e) => e.id));
    expect(text(entries[1])).toContain('Hello there');

    await session.send('And a second message');
    expect(session.state.conversationId).toBe(conversationId);
    expect(session.state.entries).toHaveLength(4);

    await store.flush();
    expect((await store.getEntries(conversationId!)).map((e) => e.id)).toEqual(session.state.entries.map((e) => e.id));
    expect(await store.listConversations()).toMatchObject([{ id: conversationId, title: 'Hello there, how are you?', model: 'parley-local' }]);
    await store.close();
  });

  test('a registered client tool runs with the call\'s arguments; its result is appended and the reply continues', async () => {
    const calls: unknown[] = [];
    const session = chat({
      toolDefinitions: [weatherTool],
      tools: { get_weather: async (args) => { calls.push(args); return { temperature: 21, unit: 'celsius' }; } },
    });
    const seen = statuses(session);
    await session.send('use get_weather for Paris');
    expect(calls).toEqual([expect.objectContaining({ city: 'Paris' })]);
    const { entries } = session.state;
    expect(entries.map((e) => e.type)).toEqual(['message.input', 'function.call', 'function.result', 'message.output']);
    expect(entries[2]).toMatchObject({ result: JSON.stringify({ temperature: 21, unit: 'celsius' }), tool_call_id: (entries[1] as any).tool_call_id });
    expect(text(entries[3])).toContain('get_weather');
    expect(entries.some((e) => isLocalId(e.id))).toBe(false);
    expect(seen).toEqual(['ready', 'submitted', 'streaming', 'submitted', 'streaming', 'ready']);
    expect(session.state.status).toBe('ready');
  });

  test('a tool that throws answers {"error": message}; a string result is sent as is', async () => {
    const failing = chat({ toolDefinitions: [weatherTool], tools: { get_weather: () => { throw new Error('weather service down'); } } });
    await failing.send('use get_weather for Oslo');
    expect(failing.state.entries[2]).toMatchObject({ type: 'function.result', result: '{"error":"weather service down"}' });
    expect(failing.state.entries.at(-1)?.type).toBe('message.output');

    const plain = chat({ toolDefinitions: [weatherTool], tools: { get_weather: () => 'sunny' } });
    await plain.send('use get_weather for Rome');
    expect(plain.state.entries[2]).toMatchObject({ type: 'function.result', result: 'sunny' });
  });

  test('a call without a registered tool stays shown and the session returns to ready', async () => {
    const session = chat({ toolDefinitions: [weatherTool] });
    await session.send('use get_weather for Lima');
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'function.call']);
    expect(session.state.status).toBe('ready');
  });

  test('an agent conversation: agentName from the agent, then from the handoff', async () => {
    const billing = (await callPlatform(platform, '/v1/agents', { model: 'parley-local', name: 'Billing', description: 'Invoices and refunds' })).json;
    const front = (await callPlatform(platform, '/v1/agents', { model: 'parley-local', name: 'Front desk', handoffs: [billing.id] })).json;
    const session = chat({ agentId: front.id, model: undefined });
    await session.send('Hello');
    expect(session.state.agentName).toBe('Front desk');
    await session.send('Please transfer me to Billing');
    const handoff = session.state.entries.find((e) => e.type === 'agent.handoff');
    expect(handoff).toMatchObject({ previous_agent_name: 'Front desk', next_agent_name: 'Billing' });
    expect(session.state.agentName).toBe('Billing');
  });

  test('stop mid-stream keeps what arrived, marks it interrupted, and the next send works', async () => {
    const store = await openStore();
    const session = new ChatSession({ client: platformClient(slow), store, model: 'parley-local' });
    const sending = session.send('Tell me a long story with a table and some code');
    await vi.waitFor(() => expect(text(session.state.entries[1]).length).toBeGreaterThan(20), { timeout: 10_000, interval: 10 });
    session.stop();
    expect(session.state.status).toBe('ready');
    const cut = session.state.entries[1];
    expect(cut.interrupted).toBe(true);
    await sending;
    const kept = text(session.state.entries[1]);
    expect(kept.length).toBeGreaterThan(20);
    expect(session.state.entries[1]).toMatchObject({ id: cut.id, interrupted: true });
    expect(session.state.streamingEntryId).toBeNull();

    // Sent at once: the platform may still be saving the stopped turn (409 conversation_busy is retried).
    await session.send('short one');
    expect(session.state.status).toBe('ready');
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.output', 'message.input', 'message.output']);
    expect(session.state.entries[1]).toMatchObject({ interrupted: true });
    await store.flush();
    expect((await store.getEntries(session.state.conversationId!))[1]).toMatchObject({ interrupted: true });
    await store.close();
  });

  test('an error mid-reply: status error, partial reply kept and interrupted; retry sends the turn again', async () => {
    const session = chat();
    await session.send('/fail');
    expect(session.state.status).toBe('error');
    expect(session.state.error).toMatchObject({ message: expect.stringMatching(/failed on purpose/) });
    const [userEntry, partial] = session.state.entries;
    expect(text(partial).length).toBeGreaterThan(0);
    expect(partial.interrupted).toBe(true);
    expect(isLocalId(userEntry.id)).toBe(false); // reconciled after the error
    const failedId = session.state.conversationId;

    // The server stored the failed turn, so retry restarts from its user message (no duplicate).
    const seen = statuses(session);
    await session.retry();
    expect(seen).toEqual(['error', 'submitted', 'streaming', 'error']); // /fail fails every time
    expect(session.state.conversationId).not.toBe(failedId);
    expect(session.state.entries.filter((e) => e.type === 'message.input')).toHaveLength(1);
    expect(session.state.entries[0].id).toBe(userEntry.id);
  });

  test('retry after a broken connection gets the whole reply', async () => {
    let breakNext = true;
    const fetchFn: typeof fetch = async (input, init) => {
      const res = await platform.fetch(new Request(input, init));
      if (!breakNext || !res.headers.get('content-type')?.startsWith('text/event-stream')) return res;
      breakNext = false;
      return new Response(cutAfter(res.body!, 3), { status: 200, headers: res.headers });
    };
    const store = await openStore();
    const session = new ChatSession({ client: new ParleyClient({ baseUrl: BASE, fetch: fetchFn, getToken: async () => API_KEY }), store, model: 'parley-local' });
    await session.send('Hello, tell me something');
    expect(session.state.status).toBe('error');
    expect(session.state.error).toMatchObject({ type: 'stream_error', status: 0 });
    expect(session.state.entries[1]?.interrupted).toBe(true);
    const brokenId = session.state.conversationId!;

    await session.retry();
    expect(session.state.status).toBe('ready');
    expect(session.state.error).toBeNull();
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.output']);
    expect(session.state.entries[1].interrupted).toBeUndefined();
    expect(text(session.state.entries[1])).toContain('Hello, tell me something');
    await store.flush();
    expect((await store.listConversations()).map((c) => c.id)).toEqual([session.state.conversationId]);
    expect(await store.getEntries(brokenId)).toEqual([]);
    await store.close();
  });

  test('retry of a turn that never reached the server sends the same request again', async () => {
    let refuse = 1;
    const fetchFn: typeof fetch = async (input, init) => {
      if (refuse > 0 && init?.method === 'POST') {
        refuse--;
        return new Response(JSON.stringify({ object: 'error', message: 'Service unavailable', type: 'server_error', code: null }), { status: 503 });
      }
      return platform.fetch(new Request(input, init));
    };
    const session = new ChatSession({ client: new ParleyClient({ baseUrl: BASE, fetch: fetchFn, getToken: async () => API_KEY, retry: { retries: 0 } }), model: 'parley-local' });
    await session.send('first try');
    expect(session.state).toMatchObject({ status: 'error', conversationId: null, error: { status: 503 } });
    expect(session.state.entries).toHaveLength(1);
    await session.retry();
    expect(session.state.status).toBe('ready');
    expect(session.state.entries.map((e) => text(e) && e.type)).toEqual(['message.input', 'message.output']);
    expect((await serverHistory(platform, session.state.conversationId!)).filter((e) => e.type === 'message.input')).toHaveLength(1);
  });

  test('a message stopped before the server took it is sent again with the next one', async () => {
    let hold = true;
    const held: typeof fetch = async (input, init) => {
      if (hold && init?.method === 'POST') {
        hold = false;
        // Never answers; the abort rejects it.
        return new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))));
      }
      return platform.fetch(new Request(input, init));
    };
    const session = new ChatSession({ client: new ParleyClient({ baseUrl: BASE, fetch: held, getToken: async () => API_KEY }), model: 'parley-local' });
    const first = session.send('first, never answered');
    await vi.waitFor(() => expect(hold).toBe(false)); // the request is out, no answer yet
    expect(session.state.status).toBe('submitted');
    session.stop();
    await first;
    expect(session.state).toMatchObject({ status: 'ready', conversationId: null });
    expect(session.state.entries.map(text)).toEqual(['first, never answered']);

    await session.send('second');
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.input', 'message.output']);
    expect(session.state.entries.slice(0, 2).map(text)).toEqual(['first, never answered', 'second']);
    expect(session.state.entries.some((e) => isLocalId(e.id))).toBe(false);
    expect((await serverHistory(platform, session.state.conversationId!)).map((e) => e.type)).toEqual(['message.input', 'message.input', 'message.output']);
  });

  test('retry after a failed load loads again', async () => {
    let offline = true;
    const flaky: typeof fetch = async (input, init) => {
      if (offline) throw new TypeError('fetch failed');
      return platform.fetch(new Request(input, init));
    };
    const seeded = chat();
    await seeded.send('load me');
    const session = new ChatSession({ client: new ParleyClient({ baseUrl: BASE, fetch: flaky, getToken: async () => API_KEY, retry: { retries: 0 } }), model: 'parley-local' });
    await session.load(seeded.state.conversationId!);
    expect(session.state.status).toBe('error');
    offline = false;
    await session.retry();
    expect(session.state).toMatchObject({ status: 'ready', error: null });
    expect(session.state.entries).toHaveLength(2);
  });

  test('regenerate restarts from the user message before the reply: a new conversation replaces the old one in the store', async () => {
    const store = await openStore();
    const session = chat({ store });
    await session.send('first question');
    await session.send('second question');
    const oldId = session.state.conversationId!;
    const [u1, r1, u2, r2] = session.state.entries;

    await session.regenerate();
    expect(session.state.conversationId).not.toBe(oldId);
    expect(session.state.entries.slice(0, 3).map((e) => e.id)).toEqual([u1.id, r1.id, u2.id]);
    expect(session.state.entries[3].id).not.toBe(r2.id);
    expect(session.state.entries).toHaveLength(4);

    await session.regenerate(session.state.entries[1].id);
    expect(session.state.entries.map((e) => e.id).slice(0, 1)).toEqual([u1.id]);
    expect(session.state.entries).toHaveLength(2);

    await store.flush();
    expect((await store.listConversations()).map((c) => c.id)).toEqual([session.state.conversationId]);
    expect((await store.listConversations())[0].title).toBe('first question');
    expect((await callPlatform(platform, `/v1/conversations/${oldId}`)).status).toBe(200); // kept on the server
    await store.close();
  });

  test('edit restarts from before the edited message; editing the first message starts a new conversation', async () => {
    const session = chat();
    await session.send('first message');
    await session.send('second message');
    const firstId = session.state.conversationId;
    const [u1, r1, u2] = session.state.entries;

    await session.edit(u2.id, 'second message, edited');
    expect(session.state.conversationId).not.toBe(firstId);
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.output', 'message.input', 'message.output']);
    expect(session.state.entries.slice(0, 2).map((e) => e.id)).toEqual([u1.id, r1.id]);
    expect(text(session.state.entries[2])).toBe('second message, edited');
    expect(text(session.state.entries[3])).toContain('second message, edited');

    const secondId = session.state.conversationId;
    await session.edit(session.state.entries[0].id, 'a brand new start');
    expect(session.state.conversationId).not.toBe(secondId);
    expect(session.state.entries.map(text)).toEqual(['a brand new start', expect.stringContaining('a brand new start')]);
    expect((await serverHistory(platform, session.state.conversationId!))).toHaveLength(2);
  });

  test('load after a reload: cached entries at once, then the server\'s', async () => {
    const name = `chat-${++n}`;
    const store = await openStore(name);
    const first = chat({ store });
    await first.send('remember this conversation');
    const id = first.state.conversationId!;
    await store.flush();

    // A new page: a new store connection and session; the server is slow to answer.
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const gated: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/history')) await gate;
      return platform.fetch(new Request(input, init));
    };
    const reloadedStore = await openStore(name);
    const session = new ChatSession({ client: new ParleyClient({ baseUrl: BASE, fetch: gated, getToken: async () => API_KEY }), store: reloadedStore, model: 'parley-local' });
    const loading = session.load(id);
    await vi.waitFor(() => expect(session.state.entries).toHaveLength(2));
    expect(session.state).toMatchObject({ conversationId: id, status: 'ready' });
    release();
    await loading;
    expect(session.state.entries.map((e) => e.id)).toEqual(first.state.entries.map((e) => e.id));
    await session.send('and continue it');
    expect(session.state.entries).toHaveLength(4);
    await Promise.all([store.close(), reloadedStore.close()]);
  });

  test('load marks a reply cut by a reload; offline it keeps the cache without an error', async () => {
    const store = await openStore();
    await store.putConversation({ id: 'conv_cached', title: 'cut', agentId: null, model: 'parley-local', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
    await store.replaceEntries('conv_cached', [
      { object: 'entry', type: 'message.input', id: 'msg_u', role: 'user', content: 'hi', created_at: '2026-01-01T00:00:00Z' },
      { object: 'entry', type: 'message.output', id: 'msg_r', role: 'assistant', content: 'Once upon', agent_id: null, model: 'parley-local', created_at: '2026-01-01T00:00:00Z', completed_at: null },
    ]);
    const offline = new ParleyClient({ baseUrl: BASE, fetch: async () => { throw new TypeError('fetch failed'); }, retry: { retries: 0 } });
    const session = new ChatSession({ client: offline, store, model: 'parley-local' });
    await session.load('conv_cached');
    expect(session.state.status).toBe('ready');
    expect(session.state.error).toBeNull();
    expect(session.state.entries[1]).toMatchObject({ content: 'Once upon', interrupted: true });

    await session.load('conv_not_cached');
    expect(session.state.status).toBe('error');
    expect(session.state.error).toMatchObject({ type: 'network_error' });
    await store.close();
  });

  test('deleteConversation removes it from the server and the store, and resets the view', async () => {
    const store = await openStore();
    const session = chat({ store });
    await session.send('delete me later');
    const id = session.state.conversationId!;
    expect(await session.listConversations()).toHaveLength(1);
    await session.deleteConversation(id);
    expect(session.state).toMatchObject({ conversationId: null, entries: [], status: 'ready' });
    expect((await callPlatform(platform, `/v1/conversations/${id}`)).status).toBe(404);
    expect(await store.listConversations()).toEqual([]);
    expect(await store.getEntries(id)).toEqual([]);
    // Deleting again (already gone on the server) is not an error.
    await session.deleteConversation(id);
    await store.close();
  });

  test('without a store, listConversations asks the server', async () => {
    const session = chat();
    await session.send('listed');
    const list = await session.listConversations();
    expect(list.map((c) => c.id)).toContain(session.state.conversationId);
  });

  test('eviction notices reach the state; reset clears everything; send while streaming is refused', async () => {
    const store = await openStore();
    const a = chat({ store });
    const b = chat({ store });
    store.onEvicted?.(['conv_x']);
    expect(a.state.notice).toBe(EVICTED_NOTICE);
    expect(b.state.notice).toBe(EVICTED_NOTICE);
    b.dispose();
    const sending = a.send('hello');
    await expect(a.send('again')).rejects.toThrow(/in progress/);
    await sending;
    expect(a.state.notice).toBeNull();
    a.reset();
    expect(a.state).toMatchObject({ conversationId: null, entries: [], status: 'ready', error: null });
    await store.close();
  });
});

/** A body that passes `chunks` chunks through, then fails like a dropped connection. */
function cutAfter(body: ReadableStream<Uint8Array>, chunks: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (passed >= chunks) {
        await reader.cancel();
        controller.error(new TypeError('network connection lost'));
        return;
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      passed++;
      controller.enqueue(value);
    },
  });
}
