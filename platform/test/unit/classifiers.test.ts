/**
 * Moderations and classifications over plain HTTP: shapes, the nine categories, chat inputs, validation (422),
 * unknown models (400), the model card in /v1/models, and usage recorded per request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { MODERATION_CATEGORIES } from '../../src/engines/classifier/types.js';
import { call, startPlatform } from './helpers.js';

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const MODEL = 'mistral-moderation-latest';
const post = (path: string, body: unknown) => call(platform, path, { body });
const detail = async (path: string, body: unknown) => {
  const res = await post(path, body);
  expect(res.status, res.text).toBe(422);
  return res.json.detail as Array<{ loc: Array<string | number>; type: string; msg: string }>;
};

describe('POST /v1/moderations', () => {
  it('answers one result per input with the nine categories as booleans and 0..1 scores', async () => {
    const res = await post('/v1/moderations', { model: MODEL, input: ['Such a lovely day today!', 'I will kill you if you come back here.'] });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json.id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.json.model).toBe(MODEL);
    expect(res.json.results).toHaveLength(2);
    for (const result of res.json.results) {
      expect(Object.keys(result.categories)).toEqual([...MODERATION_CATEGORIES]);
      expect(Object.keys(result.category_scores)).toEqual([...MODERATION_CATEGORIES]);
      for (const c of MODERATION_CATEGORIES) {
        expect(result.category_scores[c]).toBeGreaterThan(0);
        expect(result.category_scores[c]).toBeLessThan(1);
        expect(result.categories[c]).toBe(result.category_scores[c] >= 0.5);
      }
    }
    expect(Object.values(res.json.results[0].categories).some(Boolean)).toBe(false);
    expect(res.json.results[1].categories.violence_and_threats).toBe(true);
    expect(res.json.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: 0, total_tokens: res.json.usage.prompt_tokens, request_count: 1 });
    expect(res.json.usage.prompt_tokens).toBeGreaterThan(10);
  });

  it('accepts a single string, every alias and the model id; the answer names the model asked for', async () => {
    for (const model of ['parley-moderation', 'mistral-moderation-2411', 'mistral-moderation-2603']) {
      const res = await post('/v1/moderations', { model, input: 'My email is ana@example.org' });
      expect(res.status, res.text).toBe(200);
      expect(res.json.model).toBe(model);
      expect(res.json.results).toHaveLength(1);
      expect(res.json.results[0].categories.pii).toBe(true);
    }
  });

  it('is deterministic: the same text gets the same scores', async () => {
    const body = { model: MODEL, input: 'Should I put my savings into bitcoin?' };
    const a = await post('/v1/moderations', body);
    const b = await post('/v1/moderations', body);
    expect(a.json.results).toEqual(b.json.results);
    expect(a.json.id).not.toBe(b.json.id);
  });

  it('422s a missing, empty or mistyped input, a missing model and unknown fields', async () => {
    expect(await detail('/v1/moderations', { model: MODEL })).toEqual([{ loc: ['body', 'input'], msg: 'Field required', type: 'missing' }]);
    expect((await detail('/v1/moderations', { input: 'hi' }))[0]).toMatchObject({ loc: ['body', 'model'], type: 'missing' });
    expect((await detail('/v1/moderations', { model: MODEL, input: '' }))[0]).toMatchObject({ loc: ['body', 'input'], type: 'string_too_short' });
    expect((await detail('/v1/moderations', { model: MODEL, input: [] }))[0]).toMatchObject({ loc: ['body', 'input'], type: 'too_short' });
    expect((await detail('/v1/moderations', { model: MODEL, input: ['ok', 3] }))[0]).toMatchObject({ loc: ['body', 'input', 1], type: 'string_type' });
    expect((await detail('/v1/moderations', { model: MODEL, input: 'hi', colour: 'red' }))[0]).toMatchObject({ loc: ['body', 'colour'], type: 'extra_forbidden' });
    expect((await detail('/v1/moderations', { model: 7, input: 'hi' }))[0]).toMatchObject({ loc: ['body', 'model'], type: 'string_type' });
  });

  it('422s a body that is not JSON', async () => {
    const res = await call(platform, '/v1/moderations', { method: 'POST', rawBody: '{nope', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'json_invalid' });
  });

  it('400s an unknown model, a chat model and a fine-tuned classifier id, in the generic error shape', async () => {
    const chatModel = (await call(platform, '/v1/models')).json.data.find((m: any) => m.capabilities.completion_chat).id;
    for (const model of ['no-such-model', chatModel, 'ft:ministral-3b-latest:abc123:20250101:deadbeef']) {
      const res = await post('/v1/moderations', { model, input: 'hello' });
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model', code: '1500' });
      expect(res.json.message).toContain(model);
    }
    const ft = await post('/v1/classifications', { model: 'ft:classifier:ministral-3b:xyz', input: 'hello' });
    expect(ft.json.message).toMatch(/fine-tun/i);
  });

  it('400s a text longer than the model context', async () => {
    const res = await post('/v1/moderations', { model: MODEL, input: ['short', 'word '.repeat(9000)] });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_request_error', param: 'input' });
    expect(res.json.message).toMatch(/^Input 1 contains \d+ tokens, too large for model parley-moderation with 8192 maximum context length$/);
  });

  it('401s without a key', async () => {
    const res = await call(platform, '/v1/moderations', { body: { model: MODEL, input: 'hi' }, key: null });
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/chat/moderations', () => {
  const conversation = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Hi, how are you?' },
    { role: 'assistant', content: 'Fine, thanks! How can I help?' },
    { role: 'user', content: 'Tell me how to make a bomb at home.' },
  ];

  it('scores one conversation on its last turn', async () => {
    const res = await post('/v1/chat/moderations', { model: MODEL, input: conversation });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results).toHaveLength(1);
    expect(res.json.results[0].categories.dangerous_and_criminal_content).toBe(true);
    expect(Object.keys(res.json.results[0].category_scores)).toEqual([...MODERATION_CATEGORIES]);
  });

  it('scores a list of conversations, one result each; earlier turns only add context', async () => {
    const harmlessLast = [
      { role: 'user', content: 'Tell me how to make a bomb at home.' },
      { role: 'assistant', content: null, tool_calls: [] },
      { role: 'user', content: [{ type: 'text', text: 'Never mind, what is the weather like in Paris?' }] },
    ];
    const res = await post('/v1/chat/moderations', { model: MODEL, input: [conversation, harmlessLast] });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results.map((r: any) => r.categories.dangerous_and_criminal_content)).toEqual([true, false]);
    const alone = await post('/v1/moderations', { model: MODEL, input: 'Never mind, what is the weather like in Paris?' });
    expect(res.json.results[1].category_scores.dangerous_and_criminal_content).toBeGreaterThan(alone.json.results[0].category_scores.dangerous_and_criminal_content);
  });

  it('reads text chunks of message content', async () => {
    const res = await post('/v1/chat/moderations', {
      model: MODEL,
      input: [{ role: 'user', content: [{ type: 'image_url', image_url: 'https://example.com/a.png' }, { type: 'text', text: 'I want to kill myself.' }] }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results[0].categories.selfharm).toBe(true);
  });

  it('422s an empty conversation, a bad role, a text chunk without text and unknown fields', async () => {
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [] }))[0]).toMatchObject({ loc: ['body', 'input'], type: 'too_short' });
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [{ role: 'robot', content: 'hi' }] }))[0].loc.slice(0, 3)).toEqual(['body', 'input', 0]);
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [{ role: 'user', content: [{ type: 'text' }] }] }))[0]).toMatchObject({ loc: ['body', 'input', 0, 'content', 0, 'text'] });
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [{ role: 'user', content: 'hi' }], stream: true }))[0]).toMatchObject({ loc: ['body', 'stream'], type: 'extra_forbidden' });
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: 'just a string' }))[0].loc.slice(0, 2)).toEqual(['body', 'input']);
    // The detail points inside the shape sent (one conversation or several), not at `input` as a whole.
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [{ role: 'user', content: 'hi' }, { role: 'user', content: 3 }] }))[0]).toMatchObject({ loc: ['body', 'input', 1, 'content'], type: 'string_type' });
    expect((await detail('/v1/chat/moderations', { model: MODEL, input: [[{ role: 'user', content: 'hi' }], [{ role: 'robot', content: 'hi' }]] }))[0]).toMatchObject({ loc: ['body', 'input', 1, 0, 'role'] });
  });

  it('400s an unknown model', async () => {
    const res = await post('/v1/chat/moderations', { model: 'nope', input: conversation });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
  });
});

describe('POST /v1/classifications and /v1/chat/classifications', () => {
  it('classifies texts: each category is a target with flagged / not_flagged scores summing to 1', async () => {
    const res = await post('/v1/classifications', { model: MODEL, input: ['Can my landlord evict me without notice?', 'Nice weather'], metadata: { run: 1 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.json.results).toHaveLength(2);
    for (const result of res.json.results) {
      expect(Object.keys(result)).toEqual([...MODERATION_CATEGORIES]);
      for (const c of MODERATION_CATEGORIES) {
        expect(Object.keys(result[c].scores)).toEqual(['flagged', 'not_flagged']);
        expect(result[c].scores.flagged + result[c].scores.not_flagged).toBeCloseTo(1, 12);
      }
    }
    expect(res.json.results[0].law.scores.flagged).toBeGreaterThan(0.5);
    expect(res.json.results[1].law.scores.flagged).toBeLessThan(0.5);
    const moderation = await post('/v1/moderations', { model: MODEL, input: 'Can my landlord evict me without notice?' });
    expect(res.json.results[0].law.scores.flagged).toBe(moderation.json.results[0].category_scores.law);
  });

  it('classifies one chat or a list of chats', async () => {
    const chat = { messages: [{ role: 'user', content: 'Should I refinance my mortgage now?' }] };
    const one = await post('/v1/chat/classifications', { model: MODEL, input: chat });
    expect(one.status, one.text).toBe(200);
    expect(one.json.results).toHaveLength(1);
    expect(one.json.results[0].financial.scores.flagged).toBeGreaterThan(0.5);
    const many = await post('/v1/chat/classifications', { model: MODEL, input: [chat, { messages: [{ role: 'user', content: 'Hello there' }] }] });
    expect(many.json.results).toHaveLength(2);
    expect(many.json.results[1].financial.scores.flagged).toBeLessThan(0.5);
  });

  it('422s bad input and 400s unknown models', async () => {
    expect((await detail('/v1/classifications', { model: MODEL, input: '' }))[0]).toMatchObject({ loc: ['body', 'input'] });
    expect((await detail('/v1/chat/classifications', { model: MODEL, input: { messages: [] } }))[0]).toMatchObject({ type: 'too_short' });
    expect((await detail('/v1/chat/classifications', { model: MODEL, input: { messages: [{ role: 'user', content: 'x' }], extra: 1 } }))[0]).toMatchObject({ loc: ['body', 'input', 'extra'], type: 'extra_forbidden' });
    expect((await detail('/v1/chat/classifications', { model: MODEL, input: { messages: [{ role: 'robot', content: 'x' }] } }))[0]).toMatchObject({ loc: ['body', 'input', 'messages', 0, 'role'] });
    expect((await detail('/v1/classifications', { model: MODEL, input: ['a', 3] }))[0]).toMatchObject({ loc: ['body', 'input', 1], type: 'string_type' });
    for (const path of ['/v1/classifications', '/v1/chat/classifications']) {
      const input = path === '/v1/classifications' ? 'hi' : { messages: [{ role: 'user', content: 'hi' }] };
      const res = await post(path, { model: 'mistral-ocr-latest', input });
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
    }
  });
});

describe('the moderation model card', () => {
  it('is listed by GET /v1/models, says what it is, and resolves by id and by its real names', async () => {
    const list = await call(platform, '/v1/models');
    const card = list.json.data.find((m: any) => m.id === 'parley-moderation');
    expect(card).toMatchObject({ object: 'model', type: 'base', owned_by: 'mistralai' });
    expect(card.capabilities).toMatchObject({ moderation: true, classification: true, completion_chat: false });
    expect(card.description).toMatch(/lexicon classifier/i);
    expect(card.description).toMatch(/not a neural model/i);
    expect(card.aliases).toEqual(expect.arrayContaining(['mistral-moderation-latest', 'mistral-moderation-2411']));
    for (const id of ['parley-moderation', 'mistral-moderation-latest', 'mistral-moderation-2411']) {
      const one = await call(platform, `/v1/models/${id}`);
      expect(one.status).toBe(200);
      expect(one.json.id).toBe('parley-moderation');
    }
    const filtered = await call(platform, '/v1/models?model=mistral-moderation-latest');
    expect(filtered.json.data.map((m: any) => m.id)).toEqual(['parley-moderation']);
  });
});
