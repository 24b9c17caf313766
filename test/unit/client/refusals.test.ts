import { afterEach, describe, expect, test, vi } from 'vitest';
import { PlatformError, refusalKind } from '../../../src/client/errors.js';

const answer = (status: number, body: object, url = 'https://relay.example/api/v1/audio/transcriptions') => {
  const res = new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  Object.defineProperty(res, 'url', { value: url });
  return res;
};
const relayError = (code: string, message: string) => ({ object: 'error', type: 'invalid_request_error', param: null, code, message });

afterEach(() => vi.restoreAllMocks());

describe('refusalKind: refusals that retrying cannot fix', () => {
  test.each([
    [403, relayError('model_not_allowed', "This session may not use model 'x'"), 'not-allowed'],
    [403, relayError('agent_not_allowed', "This session may not use agent 'a'"), 'not-allowed'],
    [403, relayError('scope_not_allowed', 'This session may not use ocr'), 'not-allowed'],
    [403, relayError('remote_file_not_allowed', 'no'), 'not-allowed'],
    [400, { object: 'error', type: 'invalid_model', code: '1500', param: 'model', message: 'Invalid model: x' }, 'not-allowed'],
    [413, relayError('request_too_large', 'Request body is larger than the limit of 10 bytes'), 'too-large'],
    [413, relayError('attachment_too_large', 'big'), 'too-large'],
    [415, relayError('unsupported_file_type', 'not audio'), 'type'],
    [403, relayError('origin_not_allowed', 'nope'), 'origin'],
  ])('%i %o → %s', async (status, body, kind) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(refusalKind(await PlatformError.fromResponse(answer(status, body)))).toBe(kind);
  });

  test.each([
    [401, relayError('unauthorized', 'token expired')],
    [403, relayError('forbidden', 'revoked')],
    [429, relayError('rate_limited', 'slow down')],
    [400, relayError('bad_request', 'malformed')],
    [503, { object: 'error', type: 'server_error', code: null, message: 'busy' }],
  ])('%i %o may be retried', async (status, body) => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(refusalKind(await PlatformError.fromResponse(answer(status, body)))).toBe(null);
    expect(error).not.toHaveBeenCalled();
  });

  test('the site owner reads one console line naming the setting, once per refusal', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const body = relayError('model_not_allowed', "This session may not use model 'voxtral-mini-latest'");
    await PlatformError.fromResponse(answer(403, body));
    await PlatformError.fromResponse(answer(403, body));
    expect(error).toHaveBeenCalledTimes(1);
    const line = String(error.mock.calls[0]![0]);
    expect(line).toContain('https://relay.example');
    expect(line).toContain("voxtral-mini-latest");
    expect(line).toContain("relay policy's models");
    expect(line).toContain('--model');
    expect(line).toContain('`model` attribute');
  });

  test('a shape (as elements keep in view state) is classified the same way', () => {
    expect(refusalKind({ status: 403, type: 'invalid_request_error', code: 'agent_not_allowed', message: '', retryAfter: null })).toBe('not-allowed');
    expect(refusalKind({ status: 0, type: 'network_error', code: null, message: '', retryAfter: null })).toBe(null);
    expect(refusalKind(null)).toBe(null);
  });
});
