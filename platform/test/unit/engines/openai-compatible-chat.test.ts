import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  UpstreamHttpError,
  createOpenAICompatibleChatEngine,
} from '../../../src/engines/chat/openai-compatible.js';
import { countTokens } from '../../../src/engines/text/tokenizer.js';
import type { HandoffTarget } from '../../../src/engines/chat/types.js';
import {
  assistantEntry, callEntry, collect, fnTool, handoffEntry, request, resultEntry, userEntry,
} from './helpers.js';

interface Received { method: string; url: string; headers: IncomingMessage['headers']; body: any }

const received: Received[] = [];
const closedEarly: string[] = [];
/** Emits a scenario's name when the client closes its connection before the answer ended. */
const earlyCloses = new EventEmitter();
let server: Server;
let base = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for `promise`; only a hang (a broken build) meets the 10 s deadline. */
const safetyNet = <T>(promise: Promise<T>, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), 10_000); })])
    .finally(() => clearTimeout(timer));
};
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usageChunk = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`;

async function stream(res: ServerResponse, parts: string[], gapMs = 2): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const p of parts) {
    res.write(p);
    await sleep(gapMs);
  }
  res.end();
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const c of req) raw += c;
  const url = req.url ?? '';
  received.push({ method: req.method ?? '', url, headers: req.headers, body: raw ? JSON.parse(raw) : null });
  const scenario = url.split('/')[1];
  res.on('close', () => { if (!res.writableFinished) { closedEarly.push(scenario); earlyCloses.emit(scenario); } });

  switch (scenario) {
    case 'text': {
      const first = chunk({ role: 'assistant', content: 'Hel' });
      // one SSE event split across two writes, and two events in one write
      await stream(res, [
        first.slice(0, 20), first.slice(20),
        chunk({ content: 'lo' }) + chunk({ content: ' world' }),
        ': keep-alive comment\n\n',
        chunk({}, 'stop'),
        usageChunk(11, 3),
        'data: [DONE]\n\n',
      ]);
      return;
    }
    case 'tools':
      await stream(res, [
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({ tool_calls: [{ index: 1, type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '"42"}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]);
      return;
    case 'handoff':
      await stream(res, [
        chunk({ role: 'assistant', content: 'One moment.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_h', type: 'function', function: { name: 'transfer_to_billing_agent', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]);
      return;
    case 'broken':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'partial' }));
      await sleep(20);
      res.write('data: {"choices":[{"index":0,"del');
      await sleep(20);
      res.socket?.destroy();
      return;
    case 'truncated':
      await stream(res, [chunk({ role: 'assistant', content: 'cut short' })]);
      return;
    case 'error':
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"model \\"llama9\\" not loaded"}');
      return;
    case 'inband-error':
      await stream(res, [chunk({ content: 'a' }), `data: ${JSON.stringify({ error: { message: 'context overflow' } })}\n\n`]);
      return;
    case 'json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'c', object: 'chat.completion',
        choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_j', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] } }],
        usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
      }));
      return;
    case 'held':
      // One token, then nothing until the client goes (or 30 s pass): the answer can only end early.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'first ' }));
      await new Promise((resolve) => { res.once('close', resolve); setTimeout(resolve, 30_000).unref(); });
      res.end();
      return;
    case 'slow':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 200 && !res.destroyed; i++) {
        res.write(chunk({ content: `t${i} ` }));
        await sleep(50);
      }
      res.end();
      return;
    default:
      res.writeHead(404).end('not found');
  }
}

beforeAll(async () => {
  server = createServer((req, res) => { handle(req, res).catch(() => res.destroy()); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  closedEarly.length = 0;
});

const targets: HandoffTarget[] = [
  { id: 'ag_billing', name: 'Billing Agent', description: 'Invoices and refunds' },
  { id: 'ag_self', name: 'Triage', description: null },
];
const weather = fnTool('get_weather', 'Weather for a city', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
const order = fnTool('lookup_order', 'Order status', { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] });

describe('OpenAI-compatible engine', () => {
  it('streams text and usage, and sends a correctly mapped request', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/text/v1/`, apiKey: 'sk-test', model: 'llama3.2' });
    const history = [
      userEntry('weather in Paris?'),
      assistantEntry('Let me check.'),
      callEntry('abcABC123', 'get_weather', '{"city":"Paris"}'),
      resultEntry('abcABC123', '{"t":21}'),
      handoffEntry({ id: 'ag_x', name: 'X' }, { id: 'ag_self', name: 'Triage' }),
      userEntry([{ type: 'text', text: 'and ' }, { type: 'image_url', image_url: 'https://x/y.png' }, { type: 'text', text: 'tomorrow?' }]),
    ];
    const r = await collect(engine, request(history, {
      model: 'llama3.2',
      instructions: 'Be brief.',
      tools: [weather, { type: 'web_search' }],
      handoffs: targets,
      agent: { id: 'ag_self', name: 'Triage' },
      completionArgs: {
        temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['\n\n'], random_seed: 7, tool_choice: 'any',
        response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      },
    }));
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual([
      { kind: 'text', delta: 'Hel' },
      { kind: 'text', delta: 'lo' },
      { kind: 'text', delta: ' world' },
      { kind: 'usage', promptTokens: 11, completionTokens: 3 },
    ]);

    expect(received).toHaveLength(1);
    const { method, url, headers, body } = received[0];
    expect(method).toBe('POST');
    expect(url).toBe('/text/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(headers['content-type']).toMatch(/application\/json/);
    expect(body).toMatchObject({
      model: 'llama3.2', stream: true, stream_options: { include_usage: true },
      temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['\n\n'], seed: 7, tool_choice: 'required',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'weather in Paris?' },
      {
        role: 'assistant', content: 'Let me check.',
        tool_calls: [{ id: 'abcABC123', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'abcABC123', content: '{"t":21}' },
      { role: 'user', content: 'and tomorrow?' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
      { type: 'function', function: { name: 'transfer_to_billing_agent', description: expect.stringContaining('Billing Agent'), parameters: { type: 'object', properties: {} } } },
    ]);
  });

  it('omits unset options, tools and the auth header', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/text/v1` });
    const r = await collect(engine, request('hi'));
    expect(r.error).toBeUndefined();
    const { headers, body } = received[0];
    expect(headers.authorization).toBeUndefined();
    expect(Object.keys(body).sort()).toEqual(['messages', 'model', 'stream', 'stream_options']);
    expect(body.model).toBe('local-openai-compatible');
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('maps tool calls split across chunks to function_call events, keeping or generating ids', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/tools/v1`, model: 'm' });
    const r = await collect(engine, request('weather and order', { tools: [weather, order] }));
    expect(r.error).toBeUndefined();
    expect(r.text).toBe('');
    expect(r.calls).toHaveLength(2);
    expect(r.calls[0]).toMatchObject({ toolCallId: 'call_abc123', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(r.calls[0].pieces).toBeGreaterThanOrEqual(2);
    expect(r.calls[1].name).toBe('lookup_order');
    expect(r.calls[1].toolCallId).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(JSON.parse(r.calls[1].arguments)).toEqual({ order_id: '42' });
    // no usage chunk from the server: estimated with countTokens
    expect(r.usage).toEqual({
      promptTokens: countTokens('weather and order'),
      completionTokens: countTokens('{"city":"Paris"}') + countTokens('{"order_id":"42"}'),
    });
    expect(received[0].body.tool_choice).toBe('auto');
    expect(received[0].body.tools.map((t: any) => t.function.name)).toEqual(['get_weather', 'lookup_order']);
  });

  it('turns a transfer_to_<agent> call into a handoff and stops', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/handoff/v1` });
    const r = await collect(engine, request('billing please', { handoffs: targets, agent: { id: 'ag_self', name: 'Triage' } }));
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual([{ kind: 'text', delta: 'One moment.' }, { kind: 'handoff', agentId: 'ag_billing' }]);
    // the current agent is not offered as a handoff target
    expect(received[0].body.tools.map((t: any) => t.function.name)).toEqual(['transfer_to_billing_agent']);
  });

  it('throws with the upstream status and body on a non-2xx answer', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/error/v1` });
    const r = await collect(engine, request('hi'));
    expect(r.events).toEqual([]);
    expect(r.error).toBeInstanceOf(UpstreamHttpError);
    const err = r.error as UpstreamHttpError;
    expect(err.status).toBe(500);
    expect(err.message).toContain('500');
    expect(err.message).toContain('model \\"llama9\\" not loaded');
  });

  it('accepts a server that ignores stream:true and answers with one JSON completion', async () => {
    const r = await collect(createOpenAICompatibleChatEngine({ baseUrl: `${base}/json/v1` }), request('weather in Oslo', { tools: [weather] }));
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual([
      { kind: 'text', delta: 'Checking.' },
      { kind: 'function_call', toolCallId: 'call_j', name: 'get_weather', argumentsDelta: '{"city":"Oslo"}' },
      { kind: 'usage', promptTokens: 5, completionTokens: 9 },
    ]);
  });

  it('throws when the stream breaks off mid-way, after what it already yielded', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/broken/v1` });
    const r = await collect(engine, request('hi'));
    expect(r.text).toBe('partial');
    expect(r.error).toBeInstanceOf(Error);
    expect((r.error as Error).message).toMatch(/broke off/);
    expect(r.usage).toBeNull();

    const truncated = await collect(createOpenAICompatibleChatEngine({ baseUrl: `${base}/truncated/v1` }), request('hi'));
    expect(truncated.text).toBe('cut short');
    expect((truncated.error as Error).message).toMatch(/ended before the reply was complete/);
  });

  it('throws on an error reported inside the stream', async () => {
    const r = await collect(createOpenAICompatibleChatEngine({ baseUrl: `${base}/inband-error/v1` }), request('hi'));
    expect(r.text).toBe('a');
    expect((r.error as Error).message).toMatch(/context overflow/);
  });

  it('throws a clear error when the server cannot be reached', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const r = await collect(createOpenAICompatibleChatEngine({ baseUrl: `http://127.0.0.1:${port}/v1` }), request('hi'));
    expect((r.error as Error).message).toMatch(/Could not reach/);
  });

  it('honours the abort signal and closes the upstream connection', async () => {
    // The upstream sends one token and then nothing: the run can only end because of the abort.
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/held/v1` });
    const upstreamClosed = once(earlyCloses, 'held');
    const controller = new AbortController();
    const r = await safetyNet(collect(engine, request('hi', { signal: controller.signal }), (e) => {
      if (e.kind === 'text') setTimeout(() => controller.abort(), 10);
    }), 'the run to end on the abort');
    expect((r.error as Error).name).toBe('AbortError');
    expect(r.textDeltas).toEqual(['first ']);
    await safetyNet(upstreamClosed, 'the upstream connection to close');
    expect(closedEarly).toEqual(['held']);
  });

  it('closes the upstream connection when the consumer stops early', async () => {
    const engine = createOpenAICompatibleChatEngine({ baseUrl: `${base}/slow/v1` });
    const upstreamClosed = once(earlyCloses, 'slow');
    for await (const e of engine.run(request('hi'))) {
      expect(e.kind).toBe('text');
      break;
    }
    await safetyNet(upstreamClosed, 'the upstream connection to close');
    expect(closedEarly).toEqual(['slow']);
  });

  it('uses the fetch option and describes itself in models()', async () => {
    let calls = 0;
    const engine = createOpenAICompatibleChatEngine({
      baseUrl: `${base}/text/v1`,
      model: 'qwen2.5:7b',
      fetch: (input, init) => { calls++; return fetch(input, init); },
    });
    await collect(engine, request('hi'));
    expect(calls).toBe(1);
    const [card] = engine.models();
    expect(card).toMatchObject({ id: 'qwen2.5:7b', object: 'model', type: 'base', aliases: [], deprecation: null });
    expect(card.capabilities.completion_chat).toBe(true);
    expect(card.capabilities.function_calling).toBe(true);
    expect(Object.entries(card.capabilities).filter(([, v]) => v)).toHaveLength(2);
    expect(card.description).toContain(`${base}/text/v1`);
    expect(Number.isInteger(card.created)).toBe(true);
    expect(createOpenAICompatibleChatEngine({ baseUrl: base }).models()[0].id).toBe('local-openai-compatible');
  });
});
