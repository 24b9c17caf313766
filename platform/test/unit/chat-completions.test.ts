/**
 * Chat, FIM and agent completions over plain HTTP: JSON answers, `data:` stream framing ended by `[DONE]`,
 * tool calls and their results, JSON mode, `max_tokens`, validation and model errors, usage recording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { infillText } from '../../src/completions/infill.js';
import { ADMIN_KEY, call, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
const MODEL = 'mistral-small-latest';

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const post = (path: string, body: unknown) => call(platform, path, { body });
const chat = (body: Record<string, unknown>) => post('/v1/chat/completions', { model: MODEL, ...body });
const user = (content: string) => ({ role: 'user', content });

/** Parses a data-only SSE body: JSON chunks, then the `[DONE]` sentinel (returned separately). */
function dataEvents(text: string): { chunks: any[]; done: boolean; trailing: string[] } {
  const datas = text.split(/\n\n/).filter((b) => b.trim()).map((block) => {
    expect(block.startsWith('data: '), block).toBe(true);
    return block.slice('data: '.length);
  });
  const doneAt = datas.indexOf('[DONE]');
  return { chunks: datas.slice(0, doneAt < 0 ? undefined : doneAt).map((d) => JSON.parse(d)), done: doneAt >= 0, trailing: doneAt < 0 ? [] : datas.slice(doneAt + 1) };
}

describe('POST /v1/chat/completions', () => {
  it('answers a chat.completion with the assistant message, finish reason and usage', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await chat({ messages: [{ role: 'system', content: 'Be brief.' }, user('Hello there, how are you?')] });
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.json;
    expect(body).toMatchObject({ object: 'chat.completion', model: MODEL });
    expect(body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(Number.isInteger(body.created)).toBe(true);
    expect(body.created, 'stamped while the request ran (unix seconds)').toBeGreaterThanOrEqual(before);
    expect(body.created).toBeLessThanOrEqual(after);
    expect(body.choices).toHaveLength(1);
    const [choice] = body.choices;
    expect(choice).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', tool_calls: null } });
    expect(choice.message.content).toContain('Hello there, how are you?');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('streams chat.completion.chunk data events ending with [DONE], and their text is the JSON answer', async () => {
    const messages = [user('Tell me something about streams')];
    const json = await chat({ messages });
    const res = await chat({ messages, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const { chunks, done, trailing } = dataEvents(res.text);
    expect(done).toBe(true);
    expect(trailing).toEqual([]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    for (const c of chunks) {
      expect(c).toMatchObject({ object: 'chat.completion.chunk', model: MODEL });
      expect(c.choices).toHaveLength(1);
    }
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toBe(json.json.choices[0].message.content);
    const last = chunks[chunks.length - 1];
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.usage).toEqual(json.json.usage);
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null && !c.usage)).toBe(true);
  });

  it('calls a function tool, then answers from the tool message (round trip)', async () => {
    const first = await chat({ tools: [weatherTool], messages: [user('What is the weather in Paris?')] });
    expect(first.status).toBe(200);
    const choice = first.json.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toHaveLength(1);
    const call0 = choice.message.tool_calls[0];
    expect(call0).toMatchObject({ type: 'function', index: 0, function: { name: 'get_weather' } });
    expect(call0.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(JSON.parse(call0.function.arguments)).toMatchObject({ city: expect.any(String) });

    const second = await chat({
      tools: [weatherTool],
      messages: [
        user('What is the weather in Paris?'),
        choice.message,
        { role: 'tool', tool_call_id: call0.id, name: 'get_weather', content: '{"temperature": 21, "sky": "clear"}' },
      ],
    });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(second.json.choices[0].finish_reason).toBe('stop');
    expect(second.json.choices[0].message.content).toContain('get_weather');
    expect(second.json.choices[0].message.content).toContain('21');
  });

  it('tool_choice none answers in text; a named function forces that call; tool calls stream in the last chunk', async () => {
    const none = await chat({ tools: [weatherTool], tool_choice: 'none', messages: [user('What is the weather in Paris?')] });
    expect(none.json.choices[0].finish_reason).toBe('stop');
    expect(none.json.choices[0].message.tool_calls).toBeNull();

    const forced = await chat({ tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } }, messages: [user('Lyon please')] });
    expect(forced.json.choices[0].finish_reason).toBe('tool_calls');
    expect(forced.json.choices[0].message.tool_calls[0].function.name).toBe('get_weather');

    const streamed = await chat({ stream: true, tools: [weatherTool], messages: [user('What is the weather in Paris?')] });
    const { chunks } = dataEvents(streamed.text);
    const last = chunks[chunks.length - 1].choices[0];
    expect(last.finish_reason).toBe('tool_calls');
    expect(last.delta.tool_calls[0].function.name).toBe('get_weather');
  });

  it('json_object mode answers valid JSON; json_schema mode follows the schema', async () => {
    const res = await chat({ response_format: { type: 'json_object' }, messages: [user('Give me JSON about cats')] });
    expect(res.status).toBe(200);
    expect(() => JSON.parse(res.json.choices[0].message.content)).not.toThrow();

    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
    const withSchema = await chat({ response_format: { type: 'json_schema', json_schema: { name: 'person', schema } }, messages: [user('Ada is 36')] });
    const parsed = JSON.parse(withSchema.json.choices[0].message.content);
    expect(typeof parsed.name).toBe('string');
    expect(Number.isInteger(parsed.age)).toBe(true);
  });

  it('max_tokens cuts the answer with finish_reason length; a long enough limit ends with stop', async () => {
    const messages = [user('Hello there, how are you?')];
    const full = await chat({ messages });
    const total = full.json.usage.completion_tokens;
    const cut = await chat({ messages, max_tokens: 3 });
    expect(cut.json.choices[0].finish_reason).toBe('length');
    expect(cut.json.usage.completion_tokens).toBe(3);
    expect(full.json.choices[0].message.content.startsWith(cut.json.choices[0].message.content)).toBe(true);
    const exact = await chat({ messages, max_tokens: total });
    expect(exact.json.choices[0].finish_reason).toBe('stop');
    expect(exact.json.choices[0].message.content).toBe(full.json.choices[0].message.content);
  });

  it('stop cuts before the stop sequence; an assistant prefix starts the answer; n gives several choices', async () => {
    const messages = [user('Hello there, how are you?')];
    const full = (await chat({ messages })).json.choices[0].message.content as string;
    const stopped = await chat({ messages, stop: ['wrote'] });
    expect(stopped.json.choices[0].message.content).toBe(full.slice(0, full.indexOf('wrote')));

    const prefixed = await chat({ messages: [...messages, { role: 'assistant', content: 'Dear user,', prefix: true }] });
    expect(prefixed.status).toBe(200);
    expect(prefixed.json.choices[0].message.content.startsWith('Dear user,')).toBe(true);

    const several = await chat({ messages, n: 3 });
    expect(several.json.choices.map((c: any) => c.index)).toEqual([0, 1, 2]);
    const single = await chat({ messages });
    expect(several.json.usage.prompt_tokens).toBe(single.json.usage.prompt_tokens);
    expect(several.json.usage.completion_tokens).toBeGreaterThan(single.json.usage.completion_tokens);
  });

  it('bad input answers 422 with a detail list naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [] }, 'body.messages'],
      [{ messages: [user('hi')], temperature: 3 }, 'body.temperature'],
      [{ messages: [user('hi')], top_p: -0.1 }, 'body.top_p'],
      [{ messages: [user('hi')], max_tokens: -1 }, 'body.max_tokens'],
      [{ messages: [user('hi')], n: 0 }, 'body.n'],
      [{ messages: [{ role: 'robot', content: 'hi' }] }, 'body.messages.0.role'],
      [{ messages: [user('hi')], tools: [{ type: 'web_search' }] }, 'body.tools.0.type'],
      [{ messages: [user('hi')], tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'nope' } } }, 'body.tool_choice.function.name'],
      [{ messages: [user('hi'), { role: 'tool', tool_call_id: 'abc', content: 'x' }] }, 'body.messages.1.tool_call_id'],
    ];
    for (const [body, loc] of cases) {
      const res = await chat(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.detail.map((d: any) => d.loc.join('.')), JSON.stringify(res.json)).toContain(loc);
    }
    const missing = await post('/v1/chat/completions', { messages: [user('hi')] });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'model'], type: 'missing' });
    const broken = await call(platform, '/v1/chat/completions', { rawBody: '{not json', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(422);
  });

  it('a conversation that ends with an assistant message (no prefix) is a 400', async () => {
    const res = await chat({ messages: [user('hi'), { role: 'assistant', content: 'hello' }] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_request_error', param: 'messages' });
  });

  it('an unknown model answers 400 invalid_model like the conversations API', async () => {
    const res = await chat({ model: 'no-such-model', messages: [user('hi')] });
    const conv = await post('/v1/conversations', { model: 'no-such-model', inputs: 'hi' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: conv.json.type, code: conv.json.code, param: conv.json.param });
    expect(res.json.message).toContain('no-such-model');
    const embedAsChat = await chat({ model: 'mistral-embed', messages: [user('hi')] });
    expect(embedAsChat.status).toBe(400);
  });

  it('an engine failure is a 500 model_error as JSON and a finish_reason error chunk when streaming', async () => {
    const res = await chat({ messages: [user('/fail')] });
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ object: 'error', code: 'model_error' });
    const streamed = await chat({ stream: true, messages: [user('/fail')] });
    const { chunks, done } = dataEvents(streamed.text);
    expect(done).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('error');
  });

  it('requires an API key', async () => {
    const res = await call(platform, '/v1/chat/completions', { body: { model: MODEL, messages: [user('hi')] }, key: null });
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/agents/completions', () => {
  it("answers with the agent's model, instructions and tools; 404 for an unknown agent", async () => {
    const agent = (await post('/v1/agents', { model: MODEL, name: 'Weatherman', instructions: 'You report weather.', tools: [weatherTool] })).json;
    const res = await post('/v1/agents/completions', { agent_id: agent.id, messages: [user('What is the weather in Oslo?')] });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.model).toBe(MODEL);
    expect(res.json.choices[0].finish_reason).toBe('tool_calls');
    expect(res.json.choices[0].message.tool_calls[0].function.name).toBe('get_weather');

    const text = await post('/v1/agents/completions', { agent_id: agent.id, messages: [user('Hello agent')] });
    expect(text.json.choices[0].message.content).toContain('Weatherman');

    const streamed = await call(platform, '/v1/agents/completions', { body: { agent_id: agent.id, stream: true, messages: [user('Hello agent')] } });
    const { chunks, done } = dataEvents(streamed.text);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(text.json.choices[0].message.content);

    const missing = await post('/v1/agents/completions', { agent_id: 'ag_00000000000000000000000000000000', messages: [user('hi')] });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ object: 'error' });
    const invalid = await post('/v1/agents/completions', { messages: [user('hi')] });
    expect(invalid.status).toBe(422);
  });

  it("applies the agent's completion_args, overridden by the request's", async () => {
    const agent = (await post('/v1/agents', { model: MODEL, name: 'Terse', completion_args: { max_tokens: 2 } })).json;
    const res = await post('/v1/agents/completions', { agent_id: agent.id, messages: [user('Hello there, how are you?')] });
    expect(res.json.choices[0].finish_reason).toBe('length');
    expect(res.json.usage.completion_tokens).toBe(2);
    const longer = await post('/v1/agents/completions', { agent_id: agent.id, max_tokens: 4, messages: [user('Hello there, how are you?')] });
    expect(longer.json.usage.completion_tokens).toBe(4);
  });
});

describe('POST /v1/fim/completions', () => {
  it('fills the middle from the context, as JSON and as a stream', async () => {
    const prompt = 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a';
    const res = await post('/v1/fim/completions', { model: 'codestral-latest', prompt, suffix: '\n' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'chat.completion', model: 'codestral-latest', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: ' + b' } }] });
    const streamed = await call(platform, '/v1/fim/completions', { body: { model: 'parley-infill', prompt, suffix: '\n', stream: true } });
    const { chunks, done } = dataEvents(streamed.text);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(' + b');
    const cut = await post('/v1/fim/completions', { model: 'codestral-latest', prompt, suffix: '\n', max_tokens: 1 });
    expect(cut.json.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: ' +' } });
  });

  it('refuses chat models (they do not claim completion_fim) and bad input', async () => {
    const res = await post('/v1/fim/completions', { model: MODEL, prompt: 'x = ' });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('completion_fim');
    const missing = await post('/v1/fim/completions', { model: 'codestral-latest' });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['body', 'prompt']);
  });

  it('infill copies a continuation seen elsewhere, skips what the suffix already has, and closes brackets at the end', () => {
    expect(infillText('user.name = data["name"]\nuser.email = data', '\n')).toBe('["name"]');
    expect(infillText('print(foo(1, [2, 3', '')).toBe(']))');
    expect(infillText('let total = compute(x', ')\n')).toBe('');
    expect(infillText('abc', 'xyz')).toBe('');
  });
});

describe('usage', () => {
  it('records the tokens of every completion in the usage ledger (admin usage report)', async () => {
    const fresh = await startPlatform();
    try {
      const chatRes = await call(fresh, '/v1/chat/completions', { body: { model: MODEL, messages: [user('Count me')] } });
      const streamed = await call(fresh, '/v1/chat/completions', { body: { model: MODEL, stream: true, messages: [user('Count me too')] } });
      const streamUsage = dataEvents(streamed.text).chunks.at(-1).usage;
      const fimRes = await call(fresh, '/v1/fim/completions', { body: { model: 'codestral-latest', prompt: 'a = 1\nb = 1\nc =', suffix: '' } });
      const report = (await call(fresh, '/v1/admin/usage', { key: ADMIN_KEY })).json;
      expect(report.completion.models['parley-local']).toMatchObject({
        requests: 2,
        input_tokens: chatRes.json.usage.prompt_tokens + streamUsage.prompt_tokens,
        output_tokens: chatRes.json.usage.completion_tokens + streamUsage.completion_tokens,
      });
      expect(report.completion.models['parley-infill']).toMatchObject({ requests: 1, input_tokens: fimRes.json.usage.prompt_tokens, output_tokens: fimRes.json.usage.completion_tokens });
    } finally {
      await fresh.close();
    }
  });

  it('a stream the client cancels stops the engine and records what was sent', async () => {
    const slow = await startPlatform({ tokenDelayMs: 20 });
    try {
      const response = await slow.fetch(new Request('http://platform.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, stream: true, messages: [user('Hello there, how are you?')] }),
      }));
      const reader = response.body!.getReader();
      for (let i = 0; i < 3; i++) await reader.read();
      await reader.cancel();
      // The turn is recorded when the engine has stopped: wait for the record (the deadline is only a safety net).
      let used: any;
      for (let tries = 0; !used && tries < 500; tries++) {
        used = (await call(slow, '/v1/admin/usage', { key: ADMIN_KEY })).json.completion.models['parley-local'];
        if (!used) await new Promise((r) => setTimeout(r, 20));
      }
      expect(used.requests).toBe(1);
      expect(used.output_tokens).toBeGreaterThan(0);
      expect(used.output_tokens).toBeLessThan(10);
    } finally {
      await slow.close();
    }
  });
});
