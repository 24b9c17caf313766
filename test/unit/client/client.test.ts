import { afterEach, describe, expect, test, vi } from 'vitest';
import { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import type { ConversationEvent } from '../../../src/client/types.js';
import { collect, delta, done, json, scriptedFetch, sse, sseResponse, started } from './helpers.js';

const fast = { retries: 3, baseDelayMs: 1, maxDelayMs: 2_000 };
afterEach(() => { vi.useRealTimers(); });

function client(steps: Parameters<typeof scriptedFetch>[0], options: Partial<ConstructorParameters<typeof ParleyClient>[0]> = {}) {
  const script = scriptedFetch(steps);
  return { client: new ParleyClient({ baseUrl: 'https://relay.test/', fetch: script.fetch, getToken: async () => 'tok', retry: fast, ...options }), calls: script.calls };
}

describe('JSON calls', () => {
  test('paths, query, bearer token; DELETE 204 resolves to undefined', async () => {
    const { client: c, calls } = client([
      json({ object: 'conversation.history', conversation_id: 'conv_1', entries: [] }),
      json([]),
      new Response(null, { status: 204 }),
      json({ object: 'agent', id: 'ag_1' }),
      json({ object: 'list', data: [] }),
    ]);
    expect(await c.conversations.history('conv_1')).toMatchObject({ conversation_id: 'conv_1' });
    expect(await c.conversations.list({ page: 2, pageSize: 10 })).toEqual([]);
    expect(await c.conversations.delete('conv_1')).toBeUndefined();
    await c.agents.get('ag_1', { agentVersion: 3 });
    await c.models.list();
    expect(calls.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET https://relay.test/v1/conversations/conv_1/history',
      'GET https://relay.test/v1/conversations?page=2&page_size=10',
      'DELETE https://relay.test/v1/conversations/conv_1',
      'GET https://relay.test/v1/agents/ag_1?agent_version=3',
      'GET https://relay.test/v1/models',
    ]);
    expect(calls.every((r) => r.headers.authorization === 'Bearer tok')).toBe(true);
  });

  test('429 with Retry-After is waited for, then the call succeeds', async () => {
    const { client: c, calls } = client([
      json({ object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' }, 429, { 'retry-after': '1' }),
      json({ object: 'conversation.history', conversation_id: 'conv_1', entries: [] }),
    ]);
    // Timers are faked: the wait is checked on the client's clock, as "not retried before 1 s, retried at 1 s".
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = c.conversations.history('conv_1');
    await vi.advanceTimersByTimeAsync(999);
    expect(calls, 'not retried before Retry-After').toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await expect(answer).resolves.toMatchObject({ conversation_id: 'conv_1' });
  });

  test('a Retry-After longer than maxDelayMs is not waited for: the error is returned with retryAfter', async () => {
    const { client: c, calls } = client([json({ object: 'error', message: 'slow down', type: 'rate_limited', code: null }, 429, { 'retry-after': '120' })]);
    await expect(c.conversations.history('conv_1')).rejects.toMatchObject({ status: 429, retryAfter: 120, message: 'slow down' });
    expect(calls).toHaveLength(1);
  });

  test('503 and network errors are retried with backoff, then give up with the last error', async () => {
    const { client: c, calls } = client([
      new Response('busy', { status: 503 }),
      new TypeError('fetch failed'),
      new Response('busy', { status: 503 }),
      new TypeError('fetch failed'),
    ]);
    const error = await c.models.list().catch((e) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 0, type: 'network_error' });
    expect(calls).toHaveLength(4); // 1 + 3 retries
  });

  test('other errors are not retried; a 422 body becomes PlatformError.detail', async () => {
    const detail = [{ loc: ['query', 'page_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }];
    const { client: c, calls } = client([json({ detail }, 422)]);
    const error = await c.conversations.list({ pageSize: 0 }).catch((e) => e);
    expect(error).toMatchObject({ status: 422, detail, message: 'page_size: Input should be greater than or equal to 1' });
    expect(calls).toHaveLength(1);
  });

  test('a 401 makes the token source drop its token; the request is sent once more with a new one', async () => {
    let n = 0;
    let invalidated = 0;
    const script = scriptedFetch([json({ object: 'error', message: 'expired', type: 'authentication_error', code: null }, 401), json({ object: 'list', data: [] })]);
    const c = new ParleyClient({
      baseUrl: 'https://relay.test', fetch: script.fetch, retry: fast,
      session: { getToken: async () => `tok${++n}`, invalidate: () => { invalidated++; } },
    });
    await c.models.list();
    expect(invalidated).toBe(1);
    expect(script.calls.map((r) => r.headers.authorization)).toEqual(['Bearer tok1', 'Bearer tok2']);
  });

  test('an aborted JSON call rejects with an AbortError and is not retried', async () => {
    const controller = new AbortController();
    const { client: c, calls } = client([
      (req) => new Promise((_, reject) => req.signal!.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))),
    ]);
    const pending = c.models.list({ signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(1);
  });
});

describe('streams', () => {
  test('a turn yields typed events in order; conversationId resolves on started; stream: true is sent', async () => {
    const { client: c, calls } = client([sseResponse([started('conv_9'), delta('Hel'), delta('lo'), done()])]);
    const stream = c.conversations.start({ model: 'm', inputs: 'hi' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    expect(events.map((e) => e.type)).toEqual(['conversation.response.started', 'message.output.delta', 'message.output.delta', 'conversation.response.done']);
    await expect(stream.conversationId).resolves.toBe('conv_9');
    expect(calls[0]).toMatchObject({ method: 'POST', url: 'https://relay.test/v1/conversations', body: { model: 'm', inputs: 'hi', stream: true } });
    expect(calls[0].headers).toMatchObject({ accept: 'text/event-stream', 'content-type': 'application/json', authorization: 'Bearer tok' });
  });

  test('append and restart post to their paths', async () => {
    const { client: c, calls } = client([sseResponse([started('conv_1'), done()]), sseResponse([started('conv_2'), done()])]);
    await collect(c.conversations.append('conv_1', { inputs: 'more' }));
    await collect(c.conversations.restart('conv_1', { from_entry_id: 'msg_1', inputs: 'again' }));
    expect(calls.map((r) => r.url)).toEqual(['https://relay.test/v1/conversations/conv_1', 'https://relay.test/v1/conversations/conv_1/restart']);
    expect(calls[1].body).toEqual({ from_entry_id: 'msg_1', inputs: 'again', stream: true });
  });

  test('429 with Retry-After before the stream opens is retried, then the stream is read', async () => {
    const { client: c, calls } = client([
      json({ object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', code: '1300' }, 429, { 'retry-after': '1' }),
      sseResponse([started(), delta('ok'), done()]),
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const collected = collect(c.conversations.start({ model: 'm', inputs: 'hi' }));
    await vi.advanceTimersByTimeAsync(999);
    expect(calls, 'not retried before Retry-After').toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await vi.runAllTimersAsync(); // the scripted stream's own pacing
    const { events, error } = await collected;
    expect(error).toBeNull();
    expect(events).toHaveLength(3);
    expect(calls).toHaveLength(2);
  });

  test('no retry after the first byte: a stream that breaks throws stream_error after yielding what arrived', async () => {
    const { client: c, calls } = client([sseResponse([started(), delta('Hel'), delta('lo')], new TypeError('terminated'))]);
    const stream = c.conversations.start({ model: 'm', inputs: 'hi' });
    const { events, error } = await collect(stream);
    expect(events.map((e) => e.type)).toEqual(['conversation.response.started', 'message.output.delta', 'message.output.delta']);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 0, type: 'stream_error' });
    expect(calls).toHaveLength(1);
  });

  test('a stream that closes without a final event is a stream_error', async () => {
    const { client: c } = client([sseResponse([started(), delta('Hel')])]);
    const { events, error } = await collect(c.conversations.start({ model: 'm', inputs: 'hi' }));
    expect(events).toHaveLength(2);
    expect(error).toMatchObject({ type: 'stream_error', message: 'The stream ended before the reply finished' });
  });

  test('conversation.response.error is yielded, then thrown as a PlatformError with its message', async () => {
    const { client: c } = client([sseResponse([started(), delta('Hel'), sse({ type: 'conversation.response.error', message: 'model failed', code: 500 } as any)])]);
    const { events, error } = await collect(c.conversations.start({ model: 'm', inputs: 'hi' }));
    expect(events.map((e) => e.type).at(-1)).toBe('conversation.response.error');
    expect(error).toMatchObject({ message: 'model failed', code: '500', type: 'server_error' });
  });

  test('an error answer (after retries) throws before any event; conversationId rejects', async () => {
    const detail = [{ loc: ['body', 'inputs'], msg: 'Field required', type: 'missing' }];
    const { client: c } = client([json({ detail }, 422)]);
    const stream = c.conversations.start({ model: 'm', inputs: '' });
    const { events, error } = await collect(stream);
    expect(events).toEqual([]);
    expect(error).toMatchObject({ status: 422, detail });
    await expect(stream.conversationId).rejects.toMatchObject({ status: 422 });
  });

  test('a 200 that is not an event stream is a stream_error', async () => {
    const { client: c } = client([json({ object: 'conversation.response' })]);
    const { error } = await collect(c.conversations.start({ model: 'm', inputs: 'x' }));
    expect(error).toMatchObject({ type: 'stream_error' });
  });

  test('network errors before the stream opens are retried', async () => {
    const { client: c, calls } = client([new TypeError('fetch failed'), sseResponse([started(), done()])]);
    const { error } = await collect(c.conversations.start({ model: 'm', inputs: 'x' }));
    expect(error).toBeNull();
    expect(calls).toHaveLength(2);
  });

  test('abort() ends the iteration quietly and cancels the request', async () => {
    let requestSignal: AbortSignal | null = null;
    const { client: c } = client([(req) => { requestSignal = req.signal; return sseResponse([started(), delta('a'), delta('b')], 'open', req.signal); }]);
    const stream = c.conversations.start({ model: 'm', inputs: 'x' });
    const seen: ConversationEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (seen.length === 2) stream.abort();
    }
    expect(seen).toHaveLength(2);
    expect(requestSignal!.aborted).toBe(true);
  });

  test('an AbortSignal ends the iteration quietly, also before the answer', async () => {
    const controller = new AbortController();
    const { client: c } = client([(req) => new Promise((_, reject) => req.signal!.addEventListener('abort', () => reject(Object.assign(new Error('x'), { name: 'AbortError' }))))]);
    const stream = c.conversations.start({ model: 'm', inputs: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const { events, error } = await collect(stream);
    expect(events).toEqual([]);
    expect(error).toBeNull();
    await expect(stream.conversationId).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('leaving a for-await loop cancels the request', async () => {
    let requestSignal: AbortSignal | null = null;
    const { client: c } = client([(req) => { requestSignal = req.signal; return sseResponse([started(), delta('a')], 'open', req.signal); }]);
    for await (const event of c.conversations.start({ model: 'm', inputs: 'x' })) {
      if (event.type === 'conversation.response.started') break;
    }
    expect(requestSignal!.aborted).toBe(true);
  });

  test('events split across chunks, comments and unknown event types', async () => {
    const whole = started() + ': keep-alive\n\n' + sse({ type: 'future.event' } as any) + delta('é🙂') + done();
    const bytes = new TextEncoder().encode(whole);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
        controller.close();
      },
    });
    const { client: c } = client([new Response(body, { headers: { 'content-type': 'text/event-stream' } })]);
    const { events, error } = await collect(c.conversations.start({ model: 'm', inputs: 'x' }));
    expect(error).toBeNull();
    expect(events.map((e) => e.type)).toEqual(['conversation.response.started', 'message.output.delta', 'conversation.response.done']);
    expect((events[1] as any).content).toBe('é🙂');
  });
});

describe('getClient', () => {
  test('one client per relay URL; a site token function instead of a relay session', async () => {
    const { getClient, forgetClient } = await import('../../../src/client/registry.js');
    const script = scriptedFetch([json({ object: 'list', data: [] })]);
    const a = getClient('https://registry.test/relay/', { fetch: script.fetch, getToken: async () => 'site-token' });
    expect(getClient('https://registry.test/relay')).toBe(a);
    expect(a.baseUrl).toBe('https://registry.test/relay');
    await a.models.list();
    expect(script.calls.map((c) => [c.url, c.headers.authorization])).toEqual([['https://registry.test/relay/v1/models', 'Bearer site-token']]);
    forgetClient('https://registry.test/relay');
    expect(getClient('https://registry.test/relay', { fetch: script.fetch })).not.toBe(a);
  });
});
