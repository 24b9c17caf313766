import { describe, expect, test } from 'vitest';
import { appendContent, applyEvent, dropLocalTwins, isLocalId, localId, markCutReply, reconcileEntries, titleOf } from '../../../src/client/chat-entries.js';
import type { CachedEntry } from '../../../src/client/contracts.js';
import type { ConversationEvent } from '../../../src/client/types.js';

const user = (id: string, content: string): CachedEntry => ({ object: 'entry', type: 'message.input', id, role: 'user', content, created_at: 't' });
const out = (id: string, content: string, completed: string | null = 't'): CachedEntry => ({
  object: 'entry', type: 'message.output', id, role: 'assistant', content, agent_id: null, model: 'm', created_at: 't', completed_at: completed,
});

function run(events: ConversationEvent[], start: CachedEntry[] = []): CachedEntry[] {
  return events.reduce((entries, e) => applyEvent(entries, e).entries, start);
}

describe('applying stream events', () => {
  test('message deltas grow the entry with their id; a new id starts a new entry', () => {
    const entries = run([
      { type: 'message.output.delta', id: 'msg_1', content: 'Hel', output_index: 0, content_index: 0, model: 'm', agent_id: null, role: 'assistant' },
      { type: 'message.output.delta', id: 'msg_1', content: 'lo', output_index: 0, content_index: 0, model: 'm', agent_id: null, role: 'assistant' },
      { type: 'message.output.delta', id: 'msg_2', content: 'Bye', output_index: 1, content_index: 0, model: 'm', agent_id: null, role: 'assistant' },
    ], [user('u', 'hi')]);
    expect(entries.map((e) => [e.id, (e as any).content])).toEqual([['u', 'hi'], ['msg_1', 'Hello'], ['msg_2', 'Bye']]);
    expect(entries[1]).toMatchObject({ type: 'message.output', completed_at: null, model: 'm' });
  });

  test('chunk deltas turn the content into chunks; text after them merges', () => {
    expect(appendContent('Hi ', { type: 'tool_reference', tool: 'web_search', title: 'Doc' })).toEqual([
      { type: 'text', text: 'Hi ' }, { type: 'tool_reference', tool: 'web_search', title: 'Doc' },
    ]);
    expect(appendContent([{ type: 'text', text: 'a' }], 'b')).toEqual([{ type: 'text', text: 'ab' }]);
    expect(appendContent([{ type: 'text', text: 'a' }], { type: 'text', text: 'b' })).toEqual([{ type: 'text', text: 'ab' }]);
  });

  test('function.call deltas build a function.call entry; handoff events build an agent.handoff entry', () => {
    const entries = run([
      { type: 'function.call.delta', id: 'fc_1', name: 'get_weather', tool_call_id: 'abc123XYZ', arguments: '{"city":', output_index: 0, model: 'm', agent_id: null },
      { type: 'function.call.delta', id: 'fc_1', name: 'get_weather', tool_call_id: 'abc123XYZ', arguments: '"Paris"}', output_index: 0, model: 'm', agent_id: null },
      { type: 'agent.handoff.started', id: 'handoff_1', previous_agent_id: 'ag_a', previous_agent_name: 'Front desk', output_index: 1 },
      { type: 'agent.handoff.done', id: 'handoff_1', next_agent_id: 'ag_b', next_agent_name: 'Billing', output_index: 1, created_at: 'T' },
    ]);
    expect(entries[0]).toMatchObject({ type: 'function.call', tool_call_id: 'abc123XYZ', arguments: '{"city":"Paris"}' });
    expect(entries[1]).toMatchObject({ type: 'agent.handoff', previous_agent_name: 'Front desk', next_agent_name: 'Billing', next_agent_id: 'ag_b', completed_at: 'T' });
  });

  test('built-in tool events build a tool.execution entry', () => {
    const entries = run([
      { type: 'tool.execution.started', id: 'tool_exec_1', name: 'web_search', arguments: '{"q":', output_index: 0 },
      { type: 'tool.execution.delta', id: 'tool_exec_1', name: 'web_search', arguments: '"rome"}', output_index: 0 },
      { type: 'tool.execution.done', id: 'tool_exec_1', name: 'web_search', info: { results: 3 }, output_index: 0, created_at: 'T' },
    ]);
    expect(entries).toEqual([expect.objectContaining({ type: 'tool.execution', name: 'web_search', arguments: '{"q":"rome"}', info: { results: 3 }, completed_at: 'T' })]);
  });

  test('events never mutate the array they are given', () => {
    const before = [user('u', 'hi'), out('msg_1', 'He', null)];
    const frozen = structuredClone(before);
    applyEvent(before, { type: 'message.output.delta', id: 'msg_1', content: 'y', output_index: 0, content_index: 0, model: 'm', agent_id: null, role: 'assistant' });
    expect(before).toEqual(frozen);
  });
});

describe('reconciling with the server', () => {
  test('temporary ids learn the server ids; server content wins; interrupted marks are kept', () => {
    const local = [user('msg_u1', 'one'), out('msg_r1', 'A'), user(localId(), 'two'), { ...out('msg_r2', 'par', null), interrupted: true }];
    const server = [user('msg_u1', 'one'), out('msg_r1', 'A'), user('msg_u2', 'two'), out('msg_r2', 'part', null)];
    const { entries, renamed } = reconcileEntries(local, server);
    expect(entries.map((e) => e.id)).toEqual(['msg_u1', 'msg_r1', 'msg_u2', 'msg_r2']);
    expect(entries[3]).toMatchObject({ content: 'part', interrupted: true });
    expect([...renamed.values()]).toEqual(['msg_u2']);
  });

  test('entries the server does not have yet are kept after its entries', () => {
    const pending = user(localId(), 'never sent');
    const { entries } = reconcileEntries([user('msg_u1', 'one'), { ...out('msg_r1', 'cut', null), interrupted: true }, pending], [user('msg_u1', 'one')]);
    expect(entries.map((e) => e.id)).toEqual(['msg_u1', 'msg_r1', pending.id]);
  });

  test('a reply the server finished after all is no longer marked cut', () => {
    const { entries } = reconcileEntries([user('u', 'x'), { ...out('r', 'Hel', null), interrupted: true }], [user('u', 'x'), out('r', 'Hello there')]);
    expect(entries[1].interrupted).toBeUndefined();
  });

  test('an unfinished last reply in the cache is marked cut', () => {
    expect(markCutReply([user('u', 'x'), out('r', 'Hel', null)])[1].interrupted).toBe(true);
    expect(markCutReply([user('u', 'x'), out('r', 'Hello')])[1].interrupted).toBeUndefined();
    expect(markCutReply([user('u', 'x')])).toHaveLength(1);
  });

  test('a temporary entry beside its own server copy (two tabs wrote them) is dropped, never shown twice', () => {
    const copy = user(localId(), 'two');
    const server = [user('msg_u1', 'one'), out('msg_r1', 'A'), user('msg_u2', 'two'), out('msg_r2', 'B')];
    // The store as two tabs left it: the follower's reconciled copy, then the streaming tab's late write and its reply.
    const { entries, renamed } = reconcileEntries([user('msg_u1', 'one'), out('msg_r1', 'A'), user('msg_u2', 'two'), copy, out('msg_r2', 'B', null)], server);
    expect(entries.map((e) => e.id)).toEqual(['msg_u1', 'msg_r1', 'msg_u2', 'msg_r2']);
    expect(renamed.get(copy.id)).toBe('msg_u2');
    // Before the server's history comes: the reply still streaming between them does not hide the twin.
    expect(dropLocalTwins([user('msg_u2', 'two'), out('msg_r2', 'B', null), copy]).entries.map((e) => e.id)).toEqual(['msg_u2', 'msg_r2']);
    // An alias learnt earlier names the copy whatever the order.
    expect(dropLocalTwins([user('msg_u2', 'two'), out('msg_r2', 'B'), copy], { aliases: new Map([[copy.id, 'msg_u2']]) }).entries).toHaveLength(2);
  });

  test('the same words sent again are a new message, not a twin; unsent messages are never taken for twins', () => {
    const again = user(localId(), 'one');
    // A history read before the server had the new message: it stays, after the earlier turn's reply.
    const { entries } = reconcileEntries([user('msg_u1', 'one'), out('msg_r1', 'A'), again], [user('msg_u1', 'one'), out('msg_r1', 'A')]);
    expect(entries.map((e) => e.id)).toEqual(['msg_u1', 'msg_r1', again.id]);
    const cut = dropLocalTwins([user('msg_u1', 'one'), { ...out('msg_r1', 'A', null), interrupted: true }, again]);
    expect(cut.entries).toHaveLength(3);
    const waiting = dropLocalTwins([user('msg_u1', 'one'), again], { keep: new Set([again.id]) });
    expect(waiting.entries).toHaveLength(2);
  });

  test('titles and local ids', () => {
    expect(titleOf([user('u', '  Plan   a trip\nto Rome ')])).toBe('Plan a trip to Rome');
    expect(titleOf([user('u', 'x'.repeat(100))])).toHaveLength(80);
    expect(isLocalId(localId())).toBe(true);
    expect(isLocalId('msg_123')).toBe(false);
  });
});
