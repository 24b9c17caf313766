import { describe, expect, test } from 'vitest';
import { ConversationTransport, inputTurn, type TransportOptions } from '../../../src/client/conversation-transport.js';
import type { CachedEntry, ConversationStream } from '../../../src/client/contracts.js';
import type { ConversationEntry } from '../../../src/client/types.js';

const AT = '2025-01-01T00:00:00.000Z';
const STREAM = { resumePoint: null } as unknown as ConversationStream;

/** The client's conversation calls, recorded (no network): what the transport asked for. */
function fakeClient(history: ConversationEntry[] | Error = [], resumable = true) {
  const calls: unknown[][] = [];
  const record = (name: string) => (...args: unknown[]) => {
    calls.push([name, ...args]);
    return STREAM;
  };
  const conversations: TransportOptions['client']['conversations'] = {
    start: record('start'), append: record('append'), restart: record('restart'),
    ...(resumable ? { resume: record('resume') } : {}),
    history: async () => {
      if (history instanceof Error) throw history;
      return { object: 'conversation.history', conversation_id: 'conv_1', entries: history } as Awaited<ReturnType<TransportOptions['client']['conversations']['history']>>;
    },
  };
  return { client: { conversations }, calls };
}

const signal = new AbortController().signal;
const user = (id: string, content: string): CachedEntry =>
  ({ object: 'entry', type: 'message.input', id, role: 'user', content, prefix: false, created_at: AT, completed_at: AT });
const reply = (id: string, done: boolean): ConversationEntry =>
  ({ object: 'entry', type: 'message.output', id, role: 'assistant', content: 'Hi', agent_id: null, model: 'parley-local', created_at: AT, completed_at: done ? AT : null });

describe('ConversationTransport.open', () => {
  test('a start carries the agent (and its version), or the model with its instructions and tools', () => {
    const agent = fakeClient();
    new ConversationTransport({ client: agent.client, agentId: 'ag_1', agentVersion: 0, model: 'ignored', handoffExecution: 'client' })
      .open({ kind: 'start', inputs: 'Hello', inputIds: [] }, signal);
    expect(agent.calls).toEqual([['start', { inputs: 'Hello', agent_id: 'ag_1', agent_version: 0, handoff_execution: 'client' }, { signal }]]);

    const model = fakeClient();
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: {} } }];
    new ConversationTransport({ client: model.client, model: 'parley-local', instructions: 'Be brief', toolDefinitions: tools })
      .open({ kind: 'start', inputs: 'Hello', inputIds: [] }, signal);
    expect(model.calls).toEqual([['start', { inputs: 'Hello', model: 'parley-local', instructions: 'Be brief', tools }, { signal }]]);

    const bare = fakeClient();
    new ConversationTransport({ client: bare.client, toolDefinitions: [] }).open({ kind: 'start', inputs: 'Hi', inputIds: [] }, signal);
    expect(bare.calls[0][1]).toEqual({ inputs: 'Hi', model: null });
  });

  test('an append and a restart name their conversation; a restart without inputs sends none', () => {
    const { client, calls } = fakeClient();
    const transport = new ConversationTransport({ client, handoffExecution: 'server' });
    transport.open({ kind: 'append', conversationId: 'conv_1', inputs: 'More', inputIds: [] }, signal);
    transport.open({ kind: 'restart', conversationId: 'conv_1', fromEntryId: 'msg_1', inputIds: [] }, signal);
    transport.open({ kind: 'restart', conversationId: 'conv_1', fromEntryId: 'msg_1', inputs: 'Edited', inputIds: [] }, signal);
    expect(calls).toEqual([
      ['append', 'conv_1', { inputs: 'More', handoff_execution: 'server' }, { signal }],
      ['restart', 'conv_1', { from_entry_id: 'msg_1', handoff_execution: 'server' }, { signal }],
      ['restart', 'conv_1', { from_entry_id: 'msg_1', inputs: 'Edited', handoff_execution: 'server' }, { signal }],
    ]);
  });

  test('a resume turn reconnects from its stored point', () => {
    const { client, calls } = fakeClient();
    const transport = new ConversationTransport({ client });
    const from = { conversationId: 'conv_1', streamId: 'str_1', lastEventId: '7', entryId: 'msg_2' };
    expect(transport.canReconnect).toBe(true);
    transport.open({ kind: 'resume', conversationId: 'conv_1', from, locked: false, inputIds: [] }, signal);
    expect(calls).toEqual([['resume', { streamId: 'str_1', lastEventId: '7', conversationId: 'conv_1' }, { signal }]]);
    expect(new ConversationTransport({ client: fakeClient([], false).client }).canReconnect).toBe(false);
  });
});

describe('inputTurn', () => {
  test('page-made entries as the turn that sends them: appended to a conversation, or starting one', () => {
    const entries = [user('local_1', 'a'), user('local_2', 'b')];
    expect(inputTurn('conv_1', entries)).toEqual({
      kind: 'append', conversationId: 'conv_1', inputs: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], inputIds: ['local_1', 'local_2'],
    });
    expect(inputTurn(null, entries)).toMatchObject({ kind: 'start', inputIds: ['local_1', 'local_2'] });
  });
});

describe('ConversationTransport.recoverGone (the relay no longer has the reply)', () => {
  test('the history when the reply is complete on the server', async () => {
    const history = [user('msg_1', 'Hi'), reply('msg_2', true)];
    const transport = new ConversationTransport({ client: fakeClient(history).client });
    expect(await transport.recoverGone('conv_1', 'msg_2')).toEqual(history);
    expect(await transport.recoverGone('conv_1', null)).toEqual(history);
  });

  test('null when the reply is not complete there, the history ends with an input, or it cannot be read', async () => {
    expect(await new ConversationTransport({ client: fakeClient([user('msg_1', 'Hi'), reply('msg_2', false)]).client }).recoverGone('conv_1', 'msg_2')).toBeNull();
    expect(await new ConversationTransport({ client: fakeClient([reply('msg_0', false), user('msg_1', 'Hi'), reply('msg_2', true)]).client }).recoverGone('conv_1', 'msg_0')).toBeNull();
    expect(await new ConversationTransport({ client: fakeClient([user('msg_1', 'Hi')]).client }).recoverGone('conv_1', null)).toBeNull();
    expect(await new ConversationTransport({ client: fakeClient(new TypeError('Failed to fetch')).client }).recoverGone('conv_1', null)).toBeNull();
  });
});
