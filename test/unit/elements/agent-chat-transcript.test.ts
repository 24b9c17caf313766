import { describe, expect, test } from 'vitest';
import { lastReply, prettyJson, transcriptItems } from '../../../src/elements/agent-chat/transcript.js';
import type { CachedEntry } from '../../../src/client/contracts.js';
import type { MessageOutputEntry } from '../../../src/client/types.js';

const base = { object: 'entry', created_at: 't' } as const;
const user = (id: string, content: string): CachedEntry => ({ ...base, type: 'message.input', id, role: 'user', content });
const reply = (id: string, content: MessageOutputEntry['content']): CachedEntry => ({
  ...base, type: 'message.output', id, role: 'assistant', content, agent_id: null, model: 'm',
});
const call = (id: string, toolCallId: string, args: string): CachedEntry => ({
  ...base, type: 'function.call', id, tool_call_id: toolCallId, name: 'lookup', arguments: args,
});
const result = (id: string, toolCallId: string, value: string): CachedEntry => ({ ...base, type: 'function.result', id, tool_call_id: toolCallId, result: value });

describe('agent-chat transcript', () => {
  test('user messages are keyed by position, so renaming a temporary id keeps the row', () => {
    const before = transcriptItems([user('local_1', 'hi'), reply('msg_1', 'hello'), user('local_2', 'again')]);
    const after = transcriptItems([user('entry_1', 'hi'), reply('msg_1', 'hello'), user('entry_2', 'again')]);
    expect(before.map((item) => item.key)).toEqual(['user-0', 'msg_1', 'user-1']);
    expect(after.map((item) => item.key)).toEqual(before.map((item) => item.key));
    expect(after[0]).toMatchObject({ kind: 'user', text: 'hi', entry: { id: 'entry_1' } });
  });

  test('a reply made of chunks shows their text joined', () => {
    const [item] = transcriptItems([reply('msg_1', [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }])]);
    expect(item).toMatchObject({ kind: 'assistant', text: 'Hello' });
  });

  test('a function result is shown inside its call, with both as indented JSON', () => {
    const items = transcriptItems([user('u', 'order?'), call('c', 'tc_1', '{"id":7}'), result('r', 'tc_1', '{"status":"sent"}'), reply('m', 'Sent.')]);
    expect(items.map((item) => item.kind)).toEqual(['user', 'call', 'assistant']);
    expect(items[1]).toMatchObject({ kind: 'call', arguments: '{\n  "id": 7\n}', result: '{\n  "status": "sent"\n}' });
  });

  test('a call still waiting has no result; a result without its call gets a row of its own', () => {
    const items = transcriptItems([call('c', 'tc_1', 'not json'), result('r', 'tc_2', '42')]);
    expect(items[0]).toMatchObject({ kind: 'call', arguments: 'not json', result: null });
    expect(items[1]).toMatchObject({ key: 'result-tc_2', kind: 'result', result: '42' });
  });

  test('a tool execution and a handoff are rows of their own', () => {
    const items = transcriptItems([
      { ...base, type: 'tool.execution', id: 't', name: 'web_search', arguments: '{"q":"x"}' },
      { ...base, type: 'agent.handoff', id: 'h', previous_agent_id: 'a', previous_agent_name: 'Front desk', next_agent_id: 'b', next_agent_name: 'Billing' },
    ]);
    expect(items).toMatchObject([
      { kind: 'call', arguments: '{\n  "q": "x"\n}', result: null },
      { kind: 'handoff', entry: { next_agent_name: 'Billing' } },
    ]);
  });

  test('the last reply is the newest reply after the last user message', () => {
    const items = transcriptItems([user('u1', 'a'), reply('m1', 'one'), call('c', 'tc', '{}'), reply('m2', 'two'), call('c2', 'tc2', '{}')]);
    expect(lastReply(items)?.entry.id).toBe('m2');
    expect(lastReply(transcriptItems([user('u1', 'a'), reply('m1', 'one'), user('u2', 'b')]))).toBeNull();
  });

  test('prettyJson indents JSON and leaves other text as it is', () => {
    expect(prettyJson('[1,2]')).toBe('[\n  1,\n  2\n]');
    expect(prettyJson('{oops')).toBe('{oops');
  });
});
