import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { API_KEY, HEX32, ISO_Z, call, startPlatform, stream, weatherTool } from './helpers.js';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(async () => { await platform.close(); });

async function createAgent(body: Record<string, unknown>) {
  const res = await call(platform, '/v1/agents', { body: { model: 'parley-local', ...body } });
  expect(res.status).toBe(200);
  return res.json;
}

describe('auth', () => {
  it('refuses a request without a key with 401 in the generic error shape', async () => {
    const res = await call(platform, '/v1/conversations', { key: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ object: 'error', type: 'authentication_error' });
    expect(typeof res.json.message).toBe('string');
  });
  it('refuses a wrong key', async () => {
    expect((await call(platform, '/v1/models', { key: 'nope' })).status).toBe(401);
  });
  it('accepts the key in x-api-key', async () => {
    const res = await call(platform, '/v1/models', { key: null, headers: { 'x-api-key': API_KEY } });
    expect(res.status).toBe(200);
  });
  it('answers an unknown route with 404 in the generic shape', async () => {
    const res = await call(platform, '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.json.object).toBe('error');
  });
});

describe('start (JSON)', () => {
  it('answers a conversation.response with a message output and integer usage', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Hello there, who are you?' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const r = res.json;
    expect(r.object).toBe('conversation.response');
    expect(r.conversation_id).toMatch(new RegExp(`^conv_${HEX32}$`));
    expect(r.outputs).toHaveLength(1);
    const out = r.outputs[0];
    expect(out).toMatchObject({ object: 'entry', type: 'message.output', role: 'assistant', model: 'parley-local', agent_id: null });
    expect(out.id).toMatch(new RegExp(`^msg_${HEX32}$`));
    expect(out.created_at).toMatch(ISO_Z);
    expect(out.completed_at).toMatch(ISO_Z);
    expect(typeof out.content).toBe('string');
    expect(out.content.length).toBeGreaterThan(0);
    for (const k of ['prompt_tokens', 'completion_tokens', 'total_tokens']) expect(Number.isInteger(r.usage[k])).toBe(true);
    expect(r.usage.total_tokens).toBe(r.usage.prompt_tokens + r.usage.completion_tokens);
    expect(r.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('is deterministic: the same input gives the same reply', async () => {
    const a = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Tell me about tides' } });
    const b = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Tell me about tides' } });
    expect(a.json.outputs[0].content).toBe(b.json.outputs[0].content);
  });

  it('keeps the conversation: get, history and messages', async () => {
    const start = await call(platform, '/v1/conversations', {
      body: { model: 'parley-local', inputs: [{ role: 'user', content: 'First question' }], name: 'n', description: 'd', metadata: { team: 'a' }, instructions: 'Be brief.' },
    });
    const id = start.json.conversation_id;
    const got = await call(platform, `/v1/conversations/${id}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ object: 'conversation', id, model: 'parley-local', name: 'n', description: 'd', metadata: { team: 'a' }, instructions: 'Be brief.' });
    expect(got.json.created_at).toMatch(ISO_Z);
    const history = await call(platform, `/v1/conversations/${id}/history`);
    expect(history.json.object).toBe('conversation.history');
    expect(history.json.entries.map((e: any) => e.type)).toEqual(['message.input', 'message.output']);
    expect(history.json.entries[0]).toMatchObject({ role: 'user', content: 'First question', object: 'entry' });
    const messages = await call(platform, `/v1/conversations/${id}/messages`);
    expect(messages.json).toMatchObject({ object: 'conversation.messages', conversation_id: id });
    expect(messages.json.messages).toHaveLength(2);
  });

  it('store:false keeps nothing', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'ephemeral', store: false } });
    expect(res.status).toBe(200);
    expect((await call(platform, `/v1/conversations/${res.json.conversation_id}`)).status).toBe(404);
  });

  it('honours max_tokens and stop', async () => {
    const limited = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Show me some markdown', completion_args: { max_tokens: 3 } } });
    expect(limited.json.usage.completion_tokens).toBeLessThanOrEqual(3);
    const full = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Show me some markdown' } });
    const text: string = full.json.outputs[0].content;
    const stopAt = text.slice(10, 14);
    const stopped = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Show me some markdown', completion_args: { stop: stopAt } } });
    expect(stopped.json.outputs[0].content).toBe(text.slice(0, text.indexOf(stopAt)));
  });

  it('response_format json_object yields valid JSON', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Give me data', completion_args: { response_format: { type: 'json_object' } } } });
    const parsed = JSON.parse(res.json.outputs[0].content);
    expect(typeof parsed).toBe('object');
  });

  it('accepts a real platform model alias and answers with the local model', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'mistral-small-latest', inputs: 'hi' } });
    expect(res.status).toBe(200);
    expect(res.json.outputs[0].model).toBe('parley-local');
  });
});

describe('start: bad input', () => {
  const post = (body: unknown) => call(platform, '/v1/conversations', { body });
  it('missing inputs → 422 with loc body.inputs', async () => {
    const res = await post({ model: 'parley-local' });
    expect(res.status).toBe(422);
    expect(res.json.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'inputs'], type: 'missing' }));
  });
  it('wrong types → 422', async () => {
    const res = await post({ model: 'parley-local', inputs: 42, stream: 'yes' });
    expect(res.status).toBe(422);
    const locs = res.json.detail.map((d: any) => d.loc.join('.'));
    expect(locs).toContain('body.inputs');
    expect(locs).toContain('body.stream');
    for (const d of res.json.detail) expect(typeof d.msg).toBe('string');
  });
  it('an empty inputs list → 422', async () => {
    const res = await post({ model: 'parley-local', inputs: [] });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'inputs']);
  });
  it('neither model nor agent_id → 422', async () => {
    expect((await post({ inputs: 'hi' })).status).toBe(422);
  });
  it('both model and agent_id → 422', async () => {
    expect((await post({ inputs: 'hi', model: 'parley-local', agent_id: 'ag_x' })).status).toBe(422);
  });
  it('unknown model → 400 invalid_model', async () => {
    const res = await post({ inputs: 'hi', model: 'no-such-model' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model' });
  });
  it('unknown agent → 404', async () => {
    expect((await post({ inputs: 'hi', agent_id: 'ag_00000000000000000000000000000000' })).status).toBe(404);
  });
  it('bad JSON → 422 json_invalid', async () => {
    const res = await call(platform, '/v1/conversations', { rawBody: '{"inputs": ', headers: { 'content-type': 'application/json' }, method: 'POST' });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].type).toBe('json_invalid');
  });
  it('a body over the limit → 413', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'x'.repeat(11 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.json.object).toBe('error');
  });
  it('temperature out of range → 422 with loc into completion_args', async () => {
    const res = await post({ model: 'parley-local', inputs: 'hi', completion_args: { temperature: 3 } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'completion_args', 'temperature']);
  });
  it('an unknown entry shape in inputs → 422', async () => {
    expect((await post({ model: 'parley-local', inputs: [{ type: 'message.input' }] })).status).toBe(422);
  });
  it('a function.result answering no call → 422', async () => {
    const res = await post({ model: 'parley-local', inputs: [{ type: 'function.result', tool_call_id: 'abc123XYZ', result: '{}' }] });
    expect(res.status).toBe(422);
  });
});

describe('streaming', () => {
  it('streams started, deltas, done in order, every event named and typed', async () => {
    const { status, contentType, events } = await stream(platform, '/v1/conversations', { model: 'parley-local', inputs: 'Show me some markdown' });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(events[0].event).toBe('conversation.response.started');
    expect(events.at(-1)!.event).toBe('conversation.response.done');
    for (const e of events) expect(e.data.type).toBe(e.event);
    const deltas = events.filter((e) => e.event === 'message.output.delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(new Set(deltas.map((d) => d.data.id)).size).toBe(1);
    for (const d of deltas) expect(d.data).toMatchObject({ output_index: 0, content_index: 0, role: 'assistant', model: 'parley-local' });
    const text = deltas.map((d) => d.data.content).join('');
    expect(text).toMatch(/^#/m);
    const convId = events[0].data.conversation_id;
    const history = await call(platform, `/v1/conversations/${convId}/history`);
    expect(history.json.entries[1].content).toBe(text);
    expect(history.json.entries[1].id).toBe(deltas[0].data.id);
    const usage = events.at(-1)!.data.usage;
    expect(Number.isInteger(usage.total_tokens)).toBe(true);
  });

  it('a turn that fails mid-stream ends with conversation.response.error and keeps what was said', async () => {
    const { events } = await stream(platform, '/v1/conversations', { model: 'parley-local', inputs: '/fail' });
    expect(events[0].event).toBe('conversation.response.started');
    const last = events.at(-1)!;
    expect(last.event).toBe('conversation.response.error');
    expect(typeof last.data.message).toBe('string');
    expect(Number.isInteger(last.data.code)).toBe(true);
    const said = events.filter((e) => e.event === 'message.output.delta').map((e) => e.data.content).join('');
    expect(said.length).toBeGreaterThan(0);
    const history = await call(platform, `/v1/conversations/${events[0].data.conversation_id}/history`);
    expect(history.json.entries.map((e: any) => e.type)).toEqual(['message.input', 'message.output']);
    expect(history.json.entries[1].content).toBe(said);
    expect(history.json.entries[1].completed_at).toBeNull();
  });

  it('the same failure without streaming is a 500 in the generic shape, and keeps nothing', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: '/fail' } });
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ object: 'error', type: 'server_error' });
  });

  it('a cancelled stream stops the engine', async () => {
    const slow = await startPlatform({ tokenDelayMs: 20 });
    try {
      const controller = new AbortController();
      const res = await slow.fetch(new Request('http://x/v1/conversations', {
        method: 'POST', signal: controller.signal,
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'parley-local', inputs: 'Show me some markdown', stream: true }),
      }));
      const reader = res.body!.getReader();
      await reader.read();
      const t0 = Date.now();
      controller.abort();
      await reader.cancel().catch(() => {});
      // The conversation is freed once the engine has stopped: a new turn on it is then not refused as busy
      // (retried while busy; the deadline is only a safety net).
      const convs = await call(slow, '/v1/conversations');
      const id = convs.json[0].id;
      let status = 409;
      while (status === 409 && Date.now() - t0 < 10_000) {
        status = (await call(slow, `/v1/conversations/${id}`, { body: { inputs: 'again' } })).status;
        if (status === 409) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

describe('append, list, delete', () => {
  it('append adds a turn that sees the history', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'My name is Ada' } });
    const id = start.json.conversation_id;
    const next = await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'What did I say?' } });
    expect(next.status).toBe(200);
    expect(next.json.conversation_id).toBe(id);
    const history = await call(platform, `/v1/conversations/${id}/history`);
    expect(history.json.entries).toHaveLength(4);
    expect(next.json.usage.prompt_tokens).toBeGreaterThan(start.json.usage.prompt_tokens);
  });
  it('append streams', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'one' } });
    const { events } = await stream(platform, `/v1/conversations/${start.json.conversation_id}`, { inputs: 'two' });
    expect(events[0].data.conversation_id).toBe(start.json.conversation_id);
    expect(events.at(-1)!.event).toBe('conversation.response.done');
  });
  it('append rejects unknown fields, unknown ids and bad inputs', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'one' } });
    const id = start.json.conversation_id;
    const extra = await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'x', model: 'parley-local' } });
    expect(extra.status).toBe(422);
    expect(extra.json.detail[0]).toMatchObject({ loc: ['body', 'model'], type: 'extra_forbidden' });
    expect((await call(platform, '/v1/conversations/conv_00000000000000000000000000000000', { body: { inputs: 'x' } })).status).toBe(404);
    expect((await call(platform, `/v1/conversations/${id}`, { body: { inputs: [{ role: 'system', content: 'x' }] } })).status).toBe(422);
  });
  it('list pages newest first and filters by metadata; delete is 204', async () => {
    const fresh = await startPlatform();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call(fresh, '/v1/conversations', { body: { model: 'parley-local', inputs: `n${i}`, metadata: { i, group: i < 2 ? 'a' : 'b' } } });
        ids.push(r.json.conversation_id);
      }
      const all = await call(fresh, '/v1/conversations');
      expect(Array.isArray(all.json)).toBe(true);
      expect(all.json.map((c: any) => c.id)).toEqual([...ids].reverse());
      const page1 = await call(fresh, '/v1/conversations?page=1&page_size=2');
      expect(page1.json.map((c: any) => c.id)).toEqual([ids[0]]);
      const filtered = await call(fresh, `/v1/conversations?metadata=${encodeURIComponent(JSON.stringify({ group: 'a' }))}`);
      expect(filtered.json.map((c: any) => c.id).sort()).toEqual([ids[0], ids[1]].sort());
      expect((await call(fresh, '/v1/conversations?page=-1')).status).toBe(422);
      expect((await call(fresh, '/v1/conversations?page_size=abc')).status).toBe(422);
      expect((await call(fresh, '/v1/conversations?metadata=%7Bnot')).status).toBe(422);
      const del = await call(fresh, `/v1/conversations/${ids[0]}`, { method: 'DELETE' });
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect((await call(fresh, `/v1/conversations/${ids[0]}`)).status).toBe(404);
      expect((await call(fresh, `/v1/conversations/${ids[0]}`, { method: 'DELETE' })).status).toBe(404);
      expect((await call(fresh, `/v1/conversations/${ids[0]}/history`)).status).toBe(404);
    } finally {
      await fresh.close();
    }
  });
});

describe('function calls', () => {
  it('calls a function tool, then resumes the turn with its result', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', tools: [weatherTool], inputs: 'What is the weather in Paris? Use get_weather.' } });
    expect(start.status).toBe(200);
    const fc = start.json.outputs.find((o: any) => o.type === 'function.call');
    expect(fc).toBeDefined();
    expect(fc.id).toMatch(new RegExp(`^fc_${HEX32}$`));
    expect(fc.tool_call_id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(fc.name).toBe('get_weather');
    const args = JSON.parse(fc.arguments);
    expect(typeof args.city).toBe('string');
    const id = start.json.conversation_id;
    const resumed = await call(platform, `/v1/conversations/${id}`, {
      body: { inputs: [{ type: 'function.result', tool_call_id: fc.tool_call_id, result: JSON.stringify({ temperature: 21, sky: 'clear' }) }] },
    });
    expect(resumed.status).toBe(200);
    const reply = resumed.json.outputs[0];
    expect(reply.type).toBe('message.output');
    expect(reply.content).toContain('21');
    const types = (await call(platform, `/v1/conversations/${id}/history`)).json.entries.map((e: any) => e.type);
    expect(types).toEqual(['message.input', 'function.call', 'function.result', 'message.output']);
  });

  it('streams function.call.delta events whose arguments join to valid JSON', async () => {
    const { events } = await stream(platform, '/v1/conversations', { model: 'parley-local', tools: [weatherTool], inputs: 'get weather for Berlin' });
    const deltas = events.filter((e) => e.event === 'function.call.delta');
    expect(deltas.length).toBeGreaterThan(0);
    for (const d of deltas) expect(d.data).toMatchObject({ name: 'get_weather', output_index: 0 });
    const args = JSON.parse(deltas.map((d) => d.data.arguments).join(''));
    expect(typeof args.city).toBe('string');
    expect(events.at(-1)!.event).toBe('conversation.response.done');
  });

  it('tool_choice none never calls', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', tools: [weatherTool], inputs: 'get weather for Rome', completion_args: { tool_choice: 'none' } } });
    expect(res.json.outputs.every((o: any) => o.type === 'message.output')).toBe(true);
  });
});

describe('agents in conversations and handoffs', () => {
  it('an agent conversation answers as the agent and records agent_id and version', async () => {
    const agent = await createAgent({ name: 'Helper', instructions: 'You help.' });
    const res = await call(platform, '/v1/conversations', { body: { agent_id: agent.id, inputs: 'hello' } });
    expect(res.status).toBe(200);
    expect(res.json.outputs[0].agent_id).toBe(agent.id);
    const conv = await call(platform, `/v1/conversations/${res.json.conversation_id}`);
    expect(conv.json.agent_id).toBe(agent.id);
    expect(conv.json.model).toBeUndefined();
  });

  it('unknown agent version → 404', async () => {
    const agent = await createAgent({ name: 'Versioned' });
    expect((await call(platform, '/v1/conversations', { body: { agent_id: agent.id, agent_version: 99, inputs: 'x' } })).status).toBe(404);
    expect((await call(platform, '/v1/conversations', { body: { agent_id: agent.id, agent_version: 'no-alias', inputs: 'x' } })).status).toBe(404);
  });

  it('server handoff: the next agent answers in the same turn, with started/done events', async () => {
    const billing = await createAgent({ name: 'Billing', description: 'Invoices and refunds' });
    const front = await createAgent({ name: 'Front desk', handoffs: [billing.id] });
    const json = await call(platform, '/v1/conversations', { body: { agent_id: front.id, inputs: 'Please transfer me to Billing' } });
    expect(json.json.outputs.map((o: any) => o.type)).toEqual(['agent.handoff', 'message.output']);
    const h = json.json.outputs[0];
    expect(h.id).toMatch(new RegExp(`^handoff_${HEX32}$`));
    expect(h).toMatchObject({ previous_agent_id: front.id, previous_agent_name: 'Front desk', next_agent_id: billing.id, next_agent_name: 'Billing' });
    expect(json.json.outputs[1].agent_id).toBe(billing.id);

    const { events } = await stream(platform, '/v1/conversations', { agent_id: front.id, inputs: 'Please transfer me to Billing' });
    const names = events.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['conversation.response.started', 'agent.handoff.started', 'agent.handoff.done']);
    expect(names.at(-1)).toBe('conversation.response.done');
    const started = events[1].data, done = events[2].data;
    expect(started).toMatchObject({ previous_agent_id: front.id, output_index: 0 });
    expect(done).toMatchObject({ next_agent_id: billing.id, next_agent_name: 'Billing', id: started.id });
    expect(events.filter((e) => e.event === 'message.output.delta').every((e) => e.data.output_index === 1 && e.data.agent_id === billing.id)).toBe(true);
  });

  it('client handoff: the turn stops at the handoff and the next append speaks as the new agent', async () => {
    const billing = await createAgent({ name: 'Billing desk' });
    const front = await createAgent({ name: 'Reception', handoffs: [billing.id] });
    const res = await call(platform, '/v1/conversations', { body: { agent_id: front.id, inputs: 'transfer me to Billing desk', handoff_execution: 'client' } });
    expect(res.json.outputs.map((o: any) => o.type)).toEqual(['agent.handoff']);
    const next = await call(platform, `/v1/conversations/${res.json.conversation_id}`, { body: { inputs: 'I need a refund' } });
    expect(next.json.outputs.at(-1).agent_id).toBe(billing.id);
  });
});

describe('restart', () => {
  it('makes a new conversation holding the history up to the entry, then runs the turn', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'first' } });
    const id = start.json.conversation_id;
    await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'second' } });
    const entries = (await call(platform, `/v1/conversations/${id}/history`)).json.entries;
    expect(entries).toHaveLength(4);
    const res = await call(platform, `/v1/conversations/${id}/restart`, { body: { from_entry_id: entries[1].id, inputs: 'another second' } });
    expect(res.status).toBe(200);
    expect(res.json.conversation_id).not.toBe(id);
    const restarted = (await call(platform, `/v1/conversations/${res.json.conversation_id}/history`)).json.entries;
    expect(restarted.map((e: any) => e.type)).toEqual(['message.input', 'message.output', 'message.input', 'message.output']);
    expect(restarted[0].content).toBe('first');
    expect(restarted[2].content).toBe('another second');
    // The source conversation is untouched.
    expect((await call(platform, `/v1/conversations/${id}/history`)).json.entries).toHaveLength(4);
  });
  it('restart from a user message regenerates the reply (no new inputs) and streams', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'regenerate me' } });
    const entries = (await call(platform, `/v1/conversations/${start.json.conversation_id}/history`)).json.entries;
    const { events } = await stream(platform, `/v1/conversations/${start.json.conversation_id}/restart`, { from_entry_id: entries[0].id });
    const text = events.filter((e) => e.event === 'message.output.delta').map((e) => e.data.content).join('');
    expect(text).toBe(start.json.outputs[0].content);
  });
  it('rejects a missing or foreign from_entry_id', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'x' } });
    const id = start.json.conversation_id;
    const missing = await call(platform, `/v1/conversations/${id}/restart`, { body: { inputs: 'y' } });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['body', 'from_entry_id']);
    const foreign = await call(platform, `/v1/conversations/${id}/restart`, { body: { from_entry_id: 'msg_00000000000000000000000000000000' } });
    expect(foreign.status).toBe(422);
  });
});

describe('models', () => {
  it('lists the local engine with honest capabilities', async () => {
    const res = await call(platform, '/v1/models');
    expect(res.json.object).toBe('list');
    const local = res.json.data.find((m: any) => m.id === 'parley-local');
    expect(local).toMatchObject({ object: 'model', type: 'base' });
    expect(local.capabilities).toMatchObject({ completion_chat: true, function_calling: true, vision: true, audio_speech: false, ocr: false });
    expect(local.description).toMatch(/deterministic/i);
    expect((await call(platform, '/v1/models/parley-local')).json.id).toBe('parley-local');
    expect((await call(platform, '/v1/models/nope')).status).toBe(404);
    expect((await call(platform, '/v1/models/parley-local', { method: 'DELETE' })).status).toBe(403);
  });
});
