/** The input rules (input-guard.ts): what a caller gets for NUL, unpaired surrogates, deep JSON, bad UTF-8, long URLs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { boundedEcho, truncate } from '../../src/http/errors.js';
import { MAX_JSON_DEPTH, jsonDepthOver, jsonTextIssue } from '../../src/http/input-guard.js';
import WebSocket from 'ws';
import { serveFetch } from 'parley-kit/server';
import { API_KEY, call, startPlatform } from './helpers.js';

const json = (text: string) => ({ rawBody: text, headers: { 'content-type': 'application/json' } });
const nested = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('input rules over HTTP', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(async () => {
    await platform.close();
  });

  it('refuses NUL and unpaired surrogates in JSON strings and keys with 422 naming the field', async () => {
    const nul = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'a\u0000b' } });
    expect(nul.status).toBe(422);
    expect(nul.json.detail).toEqual([{ loc: ['body', 'inputs'], msg: expect.stringContaining('NUL'), type: 'value_error', input: 'a\u0000b' }]);

    const lone = await call(platform, '/v1/agents', json('{"model":"parley-local","name":"x","metadata":{"k\\ud800":"v"}}'));
    expect(lone.status).toBe(422);
    expect(lone.json.detail[0].loc).toEqual(['body', 'metadata', 'k\ud800']);
    expect(lone.json.detail[0].msg).toMatch(/surrogate/);

    const deepInList = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'ok' }, { role: 'user', content: '\udfff' }] } });
    expect(deepInList.status).toBe(422);
    expect(deepInList.json.detail[0].loc).toEqual(['body', 'messages', 1, 'content']);
  });

  it('keeps other control characters in JSON text (newlines, tabs) as ordinary text', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'line 1\nline\t2\u0001' } });
    expect(res.status).toBe(200);
  });

  it('refuses JSON nested deeper than the limit before parsing it, and takes the limit itself', async () => {
    const deep = await call(platform, '/v1/agents', json(`{"model":"parley-local","name":"x","metadata":${nested(10_000)}}`));
    expect(deep.status).toBe(422);
    expect(deep.json.detail).toEqual([{ loc: ['body', 0], msg: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_invalid', ctx: { max_depth: MAX_JSON_DEPTH } }]);
    const arrays = await call(platform, '/v1/embeddings', json('['.repeat(100_000)));
    expect(arrays.status).toBe(422);
    expect(arrays.json.detail[0].type).toBe('json_invalid');

    const atLimit = await call(platform, '/v1/agents', json(`{"model":"parley-local","name":"x","metadata":${nested(MAX_JSON_DEPTH - 1)}}`));
    expect(atLimit.status).toBe(200);
  });

  it('refuses bytes that are not UTF-8 in a JSON body', async () => {
    const res = await call(platform, '/v1/agents', { rawBody: new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 0], type: 'json_invalid', msg: expect.stringContaining('UTF-8') });
  });

  it('refuses control characters and unpaired surrogates in path segments and query parameters', async () => {
    const path = await call(platform, '/v1/agents/ag%00x');
    expect(path.status).toBe(422);
    expect(path.json.detail[0]).toMatchObject({ loc: ['path', 2], input: 'ag\u0000x' });
    const surrogate = await call(platform, '/v1/files/%ED%A0%80');
    expect(surrogate.status).toBeLessThan(500);
    const query = await call(platform, '/v1/conversations?page=1&q=a%0Ab');
    expect(query.status).toBe(422);
    expect(query.json.detail[0]).toMatchObject({ loc: ['query', 'q'], input: 'a\nb' });
    const name = await call(platform, '/v1/conversations?a%00=1');
    expect(name.status).toBe(422);
    expect(name.json.detail[0].msg).toMatch(/^Query parameter name/);
  });

  it('holds JSON inside query parameters, page tokens and JSONL files to the same rules', async () => {
    const nulJson = encodeURIComponent('{"team":"a\\u0000"}');
    for (const path of [`/v1/agents?metadata=${nulJson}`, `/v1/conversations?metadata=${nulJson}`, `/v1/batch/jobs?metadata=${nulJson}`]) {
      const res = await call(platform, path);
      expect(res.status, path).toBe(422);
      expect(res.json.detail[0].loc, path).toEqual(['query', 'metadata']);
    }
    const deep = await call(platform, `/v1/conversations?metadata=${encodeURIComponent(`{"a":${'['.repeat(100)}${']'.repeat(100)}}`)}`);
    expect(deep.status).toBe(422);
    for (const name of ['guard-a', 'guard-b']) await call(platform, '/v2/prompts', { body: { name, definition: { content: 'Hi' } } });
    const page = await call(platform, '/v2/prompts?pageSize=1');
    const real = JSON.parse(Buffer.from(page.json.nextPageToken, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...real, k: 'a\u0000', i: '\ud800' })).toString('base64url');
    const refused = await call(platform, `/v2/prompts?pageSize=1&pageToken=${forged}`);
    expect(refused.status).toBe(422);
    expect(refused.json.detail[0].loc).toEqual(['query', 'pageToken']);

    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new File(['{"custom_id":"a\\u0000","body":{"messages":[{"role":"user","content":"hi"}]}}\n'], 'in.jsonl'));
    const file = await call(platform, '/v1/files', { rawBody: form });
    expect(file.status).toBe(200);
    const job = await call(platform, '/v1/batch/jobs', { body: { input_files: [file.json.id], endpoint: '/v1/chat/completions', model: 'parley-local' } });
    expect(job.status).toBe(422);
    expect(job.json.detail[0].msg).toMatch(/line 1 is not valid JSON/);
  });

  it('answers an over-long URL or path segment with 414', async () => {
    const segment = await call(platform, `/v1/agents/${'x'.repeat(2000)}`);
    expect(segment.status).toBe(414);
    expect(segment.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'uri_too_long' });
    expect((await call(platform, `/v1/conversations?q=${'y'.repeat(10_000)}`)).status).toBe(414);
  });

  it('answers the observability routes in their own error shape', async () => {
    const res = await call(platform, '/v1/observability/datasets/a%00b');
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ detail: { message: expect.stringContaining('path.3'), error_code: 'VALIDATION_ERROR' } });
    const body = await call(platform, '/v1/observability/datasets', { body: { name: 'a\u0000', description: 'd' } });
    expect(body.status).toBe(422);
    expect(body.json.detail.error_code).toBe('VALIDATION_ERROR');
  });

  it('refuses hostile multipart field names, file names and NUL text values', async () => {
    const boundary = 'b0undary';
    const form = (disposition: string, value = 'x') =>
      `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nfine-tune\r\n--${boundary}--\r\n`;
    const post = (body: string) => call(platform, '/v1/files', { rawBody: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });

    // POST /v1/files parses its form as a stream (busboy), which refuses a control character in a part header
    // (field names and file names); text values are checked by the input rules.
    const fileName = await post(form('name="file"; filename="a\u0000.jsonl"'));
    expect(fileName.status).toBe(422);
    expect(fileName.json.detail[0]).toMatchObject({ loc: ['body'], msg: expect.stringMatching(/^Malformed multipart\/form-data body \(Malformed part header\)/) });
    const fieldName = await post(form('name="fi\u0001le"'));
    expect(fieldName.status).toBe(422);
    expect(fieldName.json.detail[0].msg).toMatch(/^Malformed multipart\/form-data body \(Malformed part header\)/);
    const value = await post(form('name="expiry"', 'a\u0000b'));
    expect(value.status).toBe(422);
    expect(value.json.detail[0]).toMatchObject({ loc: ['body', 'expiry'], msg: expect.stringContaining('NUL') });
  });

  it('never echoes unbounded input in an error answer', async () => {
    const huge = 'z'.repeat(100_000);
    const model = await call(platform, '/v1/chat/completions', { body: { model: huge, messages: [{ role: 'user', content: 'hi' }] } });
    expect(model.status).toBe(400);
    expect(model.text.length).toBeLessThan(2000);
    const wrongType = await call(platform, '/v1/agents', { body: { model: 'parley-local', name: ['x'.repeat(100_000), ...Array(5000).fill('y')] } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.text.length).toBeLessThan(30_000);
    const judge = await call(platform, '/v1/observability/judges', { body: { name: 'Judge', description: 'd', model_name: huge, instructions: 'i', tools: [], output: { type: 'CLASSIFICATION', options: [{ value: 'a', description: 'b' }] } } });
    expect(judge.status).toBe(422);
    expect(judge.json.detail.message.length).toBeLessThanOrEqual(1001);
    const manyKeys = await call(platform, '/v1/agents', { body: { model: 'parley-local', name: 'x', ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) } });
    expect(manyKeys.status).toBe(422);
    expect(manyKeys.json.detail).toHaveLength(50);
    expect(manyKeys.json.detail[49]).toMatchObject({ type: 'too_many_errors', msg: '4951 more problems are not listed' });
  });
});

describe('realtime WebSocket', () => {
  it('refuses a model name of many-byte characters with an error event and a close, not a crash', async () => {
    const errors: unknown[] = [];
    const platform = await startPlatform({ onError: (e) => errors.push(e) });
    const server = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
    try {
      const url = `${server.url.replace(/^http/, 'ws')}/v1/audio/transcriptions/realtime?model=${encodeURIComponent('ü'.repeat(200))}`;
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${API_KEY}` } });
      const events: any[] = [];
      ws.on('message', (data) => events.push(JSON.parse(String(data))));
      const closed = await new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
      expect(closed.code).toBe(1008);
      expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
      expect(events).toEqual([{ type: 'error', error: { message: expect.stringContaining('üü'), code: 400 } }]);
      expect(errors).toEqual([]);
    } finally {
      await platform.close();
      await server.close();
    }
  });
});

describe('input rule helpers', () => {
  it('finds the nesting depth in raw JSON text, skipping brackets inside strings and escaped quotes', () => {
    expect(jsonDepthOver('[[[]]]', 3)).toBe(-1);
    expect(jsonDepthOver('[[[[]]]]', 3)).toBe(3);
    expect(jsonDepthOver('["[[[[", "\\"[[[["]', 1)).toBe(-1);
    expect(jsonDepthOver('{"a\\\\":[[1]]}', 2)).toBe(8);
  });

  it('finds the key or string that breaks the text rules, and passes pairs and escaped backslashes', () => {
    const issue = (text: string) => jsonTextIssue(JSON.parse(text), ['body'], text);
    expect(issue('{"a":[{"b":"x"},{"c\\u0000":1}]}')).toMatchObject({ loc: ['body', 'a', 1, 'c\u0000'], msg: expect.stringMatching(/^Key: .*NUL/) });
    expect(issue('[1, "ok", ["\\udc00x"]]')).toMatchObject({ loc: ['body', 2, 0], input: '\udc00x' });
    expect(issue('"\\u0000"')).toMatchObject({ loc: ['body'] });
    expect(issue('{"emoji":"\\ud83d\\ude00","path":"C:\\\\u0000"}')).toBeNull();
  });

  it('truncates without splitting a surrogate pair and bounds echoed values', () => {
    expect(truncate('abc', 5)).toBe('abc');
    expect(truncate('ab😀cd', 3)).toBe('ab…');
    expect(boundedEcho({ a: [1, 'x'], b: null })).toEqual({ a: [1, 'x'], b: null });
    const echoed = boundedEcho(Array(1000).fill('w'.repeat(1000))) as string[];
    expect(echoed.length).toBeLessThan(200);
    expect(echoed.at(-1)).toBe('…');
    expect(echoed[0]).toHaveLength(201);
  });
});
