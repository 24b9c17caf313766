import { describe, expect, test } from 'vitest';
import { DECLINED_TOOL_RESULT, MAX_TOOL_ROUNDS, answerCalls, callsAwaitingConsent, callsToAnswer, needsConsent } from '../../../src/client/tool-rounds.js';
import type { CachedEntry } from '../../../src/client/contracts.js';
import type { FunctionCallEntry } from '../../../src/client/types.js';
import { isLocalId } from '../../../src/client/chat-entries.js';

const AT = '2025-01-01T00:00:00.000Z';
const call = (id: string, name: string, args = '{}'): FunctionCallEntry =>
  ({ object: 'entry', type: 'function.call', id, tool_call_id: `call_${id}`, name, arguments: args, created_at: AT, completed_at: AT });
const result = (toolCallId: string): CachedEntry =>
  ({ object: 'entry', type: 'function.result', id: `res_${toolCallId}`, tool_call_id: toolCallId, result: '1', created_at: AT, completed_at: AT });
const tools = { weather: () => 'sunny', clock: () => ({ h: 12 }) };

describe('callsToAnswer: which function calls the page answers', () => {
  test('the calls the turn produced, with a registered tool and no result yet', () => {
    const entries: CachedEntry[] = [call('a', 'weather'), call('b', 'weather'), call('c', 'unknown'), call('d', 'clock'), result('call_d')];
    const produced = new Set(['b', 'c', 'd']);
    expect(callsToAnswer(entries, produced, tools, 0).map((c) => c.id)).toEqual(['b']);
  });

  test('none without tools, and none once the round limit is reached', () => {
    const entries = [call('a', 'weather')];
    const produced = new Set(['a']);
    expect(callsToAnswer(entries, produced, undefined, 0)).toEqual([]);
    expect(callsToAnswer(entries, produced, tools, MAX_TOOL_ROUNDS - 1)).toHaveLength(1);
    expect(callsToAnswer(entries, produced, tools, MAX_TOOL_ROUNDS)).toEqual([]);
  });
});

describe('answerCalls: the page\'s answers as entries', () => {
  test('results in the calls\' order as page-made function.result entries; objects as JSON, strings as they are', async () => {
    const slow = { weather: async () => { await new Promise((r) => setTimeout(r, 20)); return 'sunny'; }, clock: () => ({ h: 12 }) };
    const entries = (await answerCalls([call('a', 'weather'), call('b', 'clock')], slow))!;
    expect(entries.map((e) => e.type === 'function.result' && [e.tool_call_id, e.result])).toEqual([['call_a', 'sunny'], ['call_b', '{"h":12}']]);
    expect(entries.every((e) => isLocalId(e.id) && e.completed_at)).toBe(true);
  });

  test('a tool gets the parsed arguments ({} for none); a throw or bad JSON answers {"error": message}; undefined answers null', async () => {
    const seen: unknown[] = [];
    const mine = {
      echo: (args: unknown) => { seen.push(args); return undefined; },
      fail: () => { throw new Error('down'); },
    };
    const entries = (await answerCalls([call('a', 'echo', '{"city":"Paris"}'), call('b', 'echo', '  '), call('c', 'fail'), call('d', 'echo', '{oops')], mine))!;
    expect(seen).toEqual([{ city: 'Paris' }, {}]);
    const results = entries.map((e) => (e.type === 'function.result' ? e.result : ''));
    expect(results.slice(0, 3)).toEqual(['null', 'null', '{"error":"down"}']);
    expect(JSON.parse(results[3])).toHaveProperty('error');
  });
});

describe('answerCalls with consent (requiresApproval)', () => {
  const asking = (answers: Record<string, boolean | null>, asked: string[]) => async (c: FunctionCallEntry) => { asked.push(c.id); return answers[c.id]; };

  test('only the tools that need it ask; allowed runs, declined answers DECLINED_TOOL_RESULT without running', async () => {
    const ran: string[] = [];
    const mine = {
      free: () => { ran.push('free'); return 'ok'; },
      guarded: Object.assign((a: { n: number }) => { ran.push(`guarded ${a.n}`); return 'done'; }, { requiresApproval: true }),
    };
    const asked: string[] = [];
    const entries = await answerCalls([call('a', 'free'), call('b', 'guarded', '{"n":1}'), call('c', 'guarded', '{"n":2}')], mine, asking({ b: true, c: false }, asked));
    expect(asked).toEqual(['b', 'c']);
    expect(ran.sort()).toEqual(['free', 'guarded 1']);
    expect(entries!.map((e) => e.type === 'function.result' && e.result)).toEqual(['ok', 'done', DECLINED_TOOL_RESULT]);
  });

  test('a predicate sees the parsed arguments; one that throws asks; without a way to ask, a guarded tool is declined', async () => {
    const rule = (a: { amount: number }) => { if (a.amount < 0) throw new Error('bad'); return a.amount > 100; };
    const pay = Object.assign(() => 'paid', { requiresApproval: rule });
    expect(needsConsent(pay, { amount: 5 })).toBe(false);
    expect(needsConsent(pay, { amount: 500 })).toBe(true);
    expect(needsConsent(pay, { amount: -1 })).toBe(true);
    expect(needsConsent(Object.assign(() => 1, { requiresApproval: false }), {})).toBe(false);
    const entries = await answerCalls([call('a', 'pay', '{"amount":5}'), call('b', 'pay', '{"amount":500}')], { pay });
    expect(entries!.map((e) => e.type === 'function.result' && e.result)).toEqual(['paid', DECLINED_TOOL_RESULT]);
  });

  test('stopped while asking: null, nothing answered', async () => {
    const guarded = Object.assign(() => 'x', { requiresApproval: true });
    expect(await answerCalls([call('a', 'guarded')], { guarded }, async () => null)).toBeNull();
  });

  test('callsAwaitingConsent: the last turn\'s unanswered calls, only when one of them needs consent', () => {
    const guarded = Object.assign(() => 'x', { requiresApproval: true });
    const mine = { guarded, free: () => 'y' };
    const user = (id: string): CachedEntry => ({ object: 'entry', type: 'message.input', id, role: 'user', content: 'hi', created_at: AT, completed_at: AT } as CachedEntry);
    expect(callsAwaitingConsent([user('u1'), call('a', 'guarded'), call('b', 'free')], mine).map((c) => c.id)).toEqual(['a', 'b']);
    expect(callsAwaitingConsent([user('u1'), call('b', 'free')], mine)).toEqual([]);
    expect(callsAwaitingConsent([user('u1'), call('a', 'guarded'), result('call_a')], mine)).toEqual([]);
    expect(callsAwaitingConsent([call('a', 'guarded'), user('u2')], mine)).toEqual([]);
    expect(callsAwaitingConsent([user('u1'), call('a', 'guarded')], undefined)).toEqual([]);
  });
});
