import { describe, expect, test } from 'vitest';
import { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import { decodeBase64 } from '../../../src/client/speech.js';
import { collect, json, scriptedFetch, sse, sseResponse } from './helpers.js';

const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));
const delta = (bytes: number[]) => sse({ type: 'speech.audio.delta', audio_data: b64(bytes) } as any);
const done = () => sse({ type: 'speech.audio.done', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } } as any);

function client(steps: Parameters<typeof scriptedFetch>[0]) {
  const script = scriptedFetch(steps);
  return { client: new ParleyClient({ baseUrl: 'http://relay.test/api', getToken: async () => 'rt_x', fetch: script.fetch, retry: { baseDelayMs: 1, maxDelayMs: 20 } }), calls: script.calls };
}

describe('client.speech (scripted fetch)', () => {
  test('stream posts stream:true with the token and yields the decoded deltas, then usage', async () => {
    const { client: c, calls } = client([sseResponse([delta([1, 2, 3]), delta([4]), done()])]);
    const stream = c.speech.stream({ input: 'hi', response_format: 'pcm', voice_id: 'v' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    expect(events.map((e) => [...e])).toEqual([[1, 2, 3], [4]]);
    expect(await stream.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
    expect(calls[0]).toMatchObject({ url: 'http://relay.test/api/v1/audio/speech', method: 'POST', body: { input: 'hi', response_format: 'pcm', voice_id: 'v', stream: true } });
    expect(calls[0].headers.authorization).toBe('Bearer rt_x');
    expect(stream.format).toBe('pcm');
  });

  test('a 503 before the first byte is retried; the stream then plays', async () => {
    const { client: c, calls } = client([
      json({ object: 'error', message: 'busy', type: 'service_unavailable', code: null }, 503, { 'retry-after': '0' }),
      new TypeError('fetch failed'),
      sseResponse([delta([9]), done()]),
    ]);
    const { events, error } = await collect(c.speech.stream({ input: 'hi' }));
    expect(error).toBeNull();
    expect(events.map((e) => [...e])).toEqual([[9]]);
    expect(calls).toHaveLength(3);
  });

  test('an error answer becomes a PlatformError with status, type and message', async () => {
    const { client: c } = client([json({ object: 'error', message: 'Too many', type: 'rate_limited', code: '1300' }, 429, { 'retry-after': '120' })]);
    const { events, error } = await collect(c.speech.stream({ input: 'hi' }));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limited', message: 'Too many', retryAfter: 120 });
  });

  test('a connection lost after some audio throws a stream_error after the audio that arrived', async () => {
    const { client: c } = client([sseResponse([delta([1])], new Error('reset'))]);
    const { events, error } = await collect(c.speech.stream({ input: 'hi' }));
    expect(events).toHaveLength(1);
    expect(error).toMatchObject({ type: 'stream_error' });
  });

  test('a stream that closes without speech.audio.done is an error; an error event is a server_error', async () => {
    const a = client([sseResponse([delta([1])])]);
    expect((await collect(a.client.speech.stream({ input: 'hi' }))).error).toMatchObject({ type: 'stream_error' });
    const b = client([sseResponse([delta([1]), sse({ type: 'speech.error', message: 'engine crashed', code: 3000 } as any)])]);
    expect((await collect(b.client.speech.stream({ input: 'hi' }))).error).toMatchObject({ type: 'server_error', message: 'engine crashed', code: '3000' });
  });

  test('abort (signal) mid-stream cancels the request and ends quietly; usage is null', async () => {
    const controller = new AbortController();
    let requestSignal: AbortSignal | null = null;
    const { client: c } = client([(req) => { requestSignal = req.signal; return sseResponse([delta([1]), delta([2])], 'open', req.signal); }]);
    const stream = c.speech.stream({ input: 'hi' }, { signal: controller.signal });
    const seen: number[][] = [];
    for await (const chunk of stream) {
      seen.push([...chunk]);
      if (seen.length === 2) controller.abort();
    }
    expect(seen).toEqual([[1], [2]]);
    expect(requestSignal!.aborted).toBe(true);
    expect(await stream.usage).toBeNull();
  });

  test('a JSON answer to a stream request is one fragment; synthesize decodes audio_data', async () => {
    const { client: c, calls } = client([json({ audio_data: b64([7, 8]) }), json({ audio_data: b64([5, 6, 7]) })]);
    expect((await collect(c.speech.stream({ input: 'hi', response_format: 'wav' }))).events.map((e) => [...e])).toEqual([[7, 8]]);
    const whole = await c.speech.synthesize({ input: 'hi', response_format: 'wav' });
    expect([...whole.bytes]).toEqual([5, 6, 7]);
    expect(whole).toMatchObject({ format: 'wav', audio_data: b64([5, 6, 7]) });
    expect(calls[1].body).toMatchObject({ stream: false });
  });

  test('decodeBase64 reads padded, unpadded and URL-safe base64 and refuses garbage', () => {
    expect([...decodeBase64('AQID')]).toEqual([1, 2, 3]);
    expect([...decodeBase64('AQI')]).toEqual([1, 2]);
    expect([...decodeBase64('-_8=')]).toEqual([251, 255]);
    expect(() => decodeBase64('@@@@')).toThrow(PlatformError);
  });
});
