// Client tools that ask the visitor first (requiresApproval): allow, deny, a per-call predicate, stop
// while waiting, and a reload while waiting (asked again), against the local platform.
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { DECLINED_TOOL_RESULT } from '../../../src/client/tool-rounds.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import type { ChatSessionOptions, ChatState, ClientTool } from '../../../src/client/contracts.js';
import { platformClient, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(async () => { await platform.close(); });

function chat(options: Partial<ChatSessionOptions> = {}) {
  return new ChatSession({ client: platformClient(platform), model: 'parley-local', toolDefinitions: [weatherTool], ...options });
}

/** Resolves with the state once the session asks about a call. */
function asked(session: ChatSession): Promise<ChatState> {
  return new Promise((resolve) => {
    const stop = session.subscribe((s) => {
      if (s.approvals?.length) { stop(); resolve(s); }
    });
  });
}

function weather(rule: ClientTool['requiresApproval'], ran: unknown[]): ClientTool {
  return Object.assign(async (args: unknown) => { ran.push(args); return { temperature: 21 }; }, { requiresApproval: rule });
}

const text = (e: ChatState['entries'][number] | undefined) => (e && e.type === 'message.output' && typeof e.content === 'string' ? e.content : '');

describe('client tools that need the visitor\'s consent', () => {
  test('allowed: the call is shown in state.approvals while the turn waits (submitted), then the tool runs and the reply goes on', async () => {
    const ran: unknown[] = [];
    const session = chat({ tools: { get_weather: weather(true, ran) } });
    const sent = session.send('use get_weather for Paris');
    const waiting = await asked(session);
    expect(waiting.status).toBe('submitted');
    expect(waiting.approvals).toEqual([{ toolCallId: expect.any(String), name: 'get_weather', arguments: expect.stringContaining('Paris') }]);
    expect(ran).toEqual([]); // not before the visitor says so
    expect(session.decideToolCall('call_unknown', true)).toBe(false);
    expect(session.decideToolCall(waiting.approvals![0].toolCallId, true)).toBe(true);
    await sent;
    expect(ran).toEqual([expect.objectContaining({ city: 'Paris' })]);
    const { entries, approvals, status } = session.state;
    expect(status).toBe('ready');
    expect(approvals ?? []).toEqual([]);
    expect(entries.map((e) => e.type)).toEqual(['message.input', 'function.call', 'function.result', 'message.output']);
    expect(entries[2]).toMatchObject({ result: '{"temperature":21}' });
  });

  test('declined: the tool does not run; the model gets the declined result and its reply says so', async () => {
    const ran: unknown[] = [];
    const session = chat({ tools: { get_weather: weather(true, ran) } });
    const sent = session.send('use get_weather for Oslo');
    const waiting = await asked(session);
    session.decideToolCall(waiting.approvals![0].toolCallId, false);
    await sent;
    expect(ran).toEqual([]);
    const { entries } = session.state;
    expect(entries[2]).toMatchObject({ type: 'function.result', result: DECLINED_TOOL_RESULT });
    expect(JSON.parse(DECLINED_TOOL_RESULT)).toMatchObject({ declined: true });
    // The local model reports the tool's result: the decline, in its words.
    expect(text(entries[3])).toContain('declined');
  });

  test('a predicate decides per call from the parsed arguments; a call it lets through runs unasked', async () => {
    const ran: unknown[] = [];
    const seen: unknown[] = [];
    const rule = (args: { city?: string }) => { seen.push(args); return args.city === 'Paris'; };
    const session = chat({ tools: { get_weather: weather(rule, ran) } });
    let everAsked = false;
    session.subscribe((s) => { if (s.approvals?.length) everAsked = true; });
    await session.send('use get_weather for Rome');
    expect(everAsked).toBe(false);
    expect(ran).toEqual([expect.objectContaining({ city: 'Rome' })]);
    expect(seen).toEqual([expect.objectContaining({ city: 'Rome' })]);

    const sent = session.send('use get_weather for Paris');
    const waiting = await asked(session);
    session.decideToolCall(waiting.approvals![0].toolCallId, true);
    await sent;
    expect(ran).toHaveLength(2);
  });

  test('stop while waiting withdraws the question: nothing runs, nothing is answered, the session is ready for the next message', async () => {
    const ran: unknown[] = [];
    const session = chat({ tools: { get_weather: weather(true, ran) } });
    const sent = session.send('use get_weather for Lima');
    const waiting = await asked(session);
    session.stop();
    await sent;
    expect(ran).toEqual([]);
    expect(session.state.status).toBe('ready');
    expect(session.state.approvals ?? []).toEqual([]);
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'function.call']);
    expect(session.decideToolCall(waiting.approvals![0].toolCallId, true)).toBe(false);
    await session.send('hello again');
    expect(session.state.entries.at(-1)?.type).toBe('message.output');
    expect(ran).toEqual([]);
  });

  test('a reload while a call waited asks again; allowed, the tool runs and the conversation goes on', async () => {
    const store = await HistoryStore.open({ name: 'approvals-reload', writeIntervalMs: 20 });
    const ran: unknown[] = [];
    const first = chat({ store, tools: { get_weather: weather(true, ran) } });
    const sent = first.send('use get_weather for Quito');
    await asked(first);
    const conversationId = first.state.conversationId!;
    await store.flush();
    first.dispose(); // the page went away
    await sent;
    expect(ran).toEqual([]);

    const second = chat({ store, tools: { get_weather: weather(true, ran) } });
    const loaded = second.load(conversationId);
    const again = await asked(second);
    expect(again.approvals).toEqual([expect.objectContaining({ name: 'get_weather' })]);
    second.decideToolCall(again.approvals![0].toolCallId, true);
    await loaded;
    expect(ran).toEqual([expect.objectContaining({ city: 'Quito' })]);
    expect(second.state.entries.map((e) => e.type)).toEqual(['message.input', 'function.call', 'function.result', 'message.output']);

    // Answered: a later load asks nothing.
    const third = chat({ store, tools: { get_weather: weather(true, ran) } });
    let reasked = false;
    third.subscribe((s) => { if (s.approvals?.length) reasked = true; });
    await third.load(conversationId);
    expect(reasked).toBe(false);
    await store.close();
  });
});
