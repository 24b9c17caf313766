import { describe, expect, test } from 'vitest';
import { PlatformError, parseRetryAfter } from '../../../src/client/errors.js';

describe('PlatformError.fromResponse', () => {
  test('a 422 detail list becomes a readable message and keeps the issues', async () => {
    const detail = [
      { loc: ['body', 'inputs'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'completion_args', 'temperature'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal' },
    ];
    const error = await PlatformError.fromResponse(new Response(JSON.stringify({ detail }), { status: 422 }));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error.status).toBe(422);
    expect(error.detail).toEqual(detail);
    expect(error.message).toBe('inputs: Field required; completion_args.temperature: Input should be less than or equal to 1');
  });

  test('the generic body gives type, code and message; Retry-After gives retryAfter', async () => {
    const body = { object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' };
    const error = await PlatformError.fromResponse(new Response(JSON.stringify(body), { status: 429, headers: { 'retry-after': '7' } }));
    expect(error.toJSON()).toEqual({ status: 429, type: 'rate_limited', code: '1300', message: 'Rate limit exceeded', retryAfter: 7 });
  });

  test('a numeric code becomes a string; an older {message} body is read too', async () => {
    const a = await PlatformError.fromResponse(new Response(JSON.stringify({ object: 'error', message: 'x', type: 't', code: 1300 }), { status: 400 }));
    expect(a.code).toBe('1300');
    const b = await PlatformError.fromResponse(new Response(JSON.stringify({ message: 'Requests rate limit exceeded' }), { status: 429 }));
    expect(b.message).toBe('Requests rate limit exceeded');
    expect(b.type).toBeNull();
  });

  test('a non-JSON body keeps the status in words', async () => {
    const text = await PlatformError.fromResponse(new Response('upstream timed out', { status: 504 }));
    expect(text.message).toBe('504 Gateway Timeout: upstream timed out');
    const html = await PlatformError.fromResponse(new Response('<html><body>Bad gateway</body></html>', { status: 502 }));
    expect(html.message).toBe('502 Bad Gateway');
    const empty = await PlatformError.fromResponse(new Response(null, { status: 503 }));
    expect(empty).toMatchObject({ status: 503, type: null, code: null, message: '503 Service Unavailable' });
  });

  test('network and stream errors have status 0 and their own types', () => {
    expect(PlatformError.network(new TypeError('fetch failed'))).toMatchObject({ status: 0, type: 'network_error', message: 'Could not reach the server (fetch failed)' });
    expect(PlatformError.stream('cut')).toMatchObject({ status: 0, type: 'stream_error', message: 'cut' });
    expect(PlatformError.fromEvent({ type: 'conversation.response.error', message: 'boom', code: 500 })).toMatchObject({ status: 0, type: 'server_error', code: '500', message: 'boom' });
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
