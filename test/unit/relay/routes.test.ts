import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionResponse } from '../../../src/client/contracts.js';
import { createRelay, defaultRoutes, isCleanPath, type Relay } from '../../../src/relay/index.js';
import { OPEN_POLICY, ORIGIN, RELAY, SECRET, UPSTREAM, UPSTREAM_KEY, api, fakeUpstream, json, makeRelay, openSession } from './helpers.js';

let upstream: ReturnType<typeof fakeUpstream>;
let relay: Relay;
let session: SessionResponse;

beforeEach(async () => {
  upstream = fakeUpstream((req) => (req.method === 'DELETE' ? new Response(null, { status: 204 }) : json({ conversation_id: 'conv_1', object: 'list', data: [] })));
  relay = makeRelay(upstream.fetch);
  session = await openSession(relay);
});

/**
 * Paths (after `/api`) that must never be routed (§5 item 9 and friends). In-process, the URL
 * parser has already resolved plain `./` segments before the relay sees the Request; the raw
 * target forms (`/./`, `/../`, `\`, TRACE, NUL) are covered over real HTTP in node.test.ts.
 */
const TRICKS = [
  '/v1/admin/x',
  '/v1/admin',
  '/v1/keys',
  '/v1/agents',
  '/v1/files',
  '/v1/chat/completions',
  '/v1/conversations/..%2Fadmin',
  '/v1/conversations/%2e%2e/admin',
  '/v1/conversations/%2E%2E/%2E%2E/admin',
  '/v1/conversations/x/%2e%2e/history',
  '/v1/conversations/.%2e/admin',
  '/v1/conversations//admin',
  '/v1/conversations//',
  '/v1/conversations/x%2Fadmin',
  '/v1/conversations/x%2fhistory',
  '/v1/conversations/x%5Cadmin',
  '/v1/conversations/x%5chistory',
  '/v1/Conversations',
  '/V1/conversations',
  '/v1/CONVERSATIONS',
  '/v1/conversations;jsessionid=x',
  '/v1/conversations/x;y=z',
  '/v1/conversations/x%252Fadmin',
  '/v1/conversations/%252e%252e/admin',
  '/v1/conversations%00',
  '/v1/conversations/x%00',
  '/v1/conversations/',
  '/v1/models/',
  '/v1/models/.',
  '/v1/models/..',
  '/v1/models/%2e',
  '/v1/models/a%20b',
  '/v1/conversations/x/history/extra',
  '/v1/agents/ag_1/versions',
  '/v1/models/x/../../admin',
  '/v1/conversations/' + 'a'.repeat(200),
];

describe('nothing outside the route table is routable', () => {
  it.each(TRICKS)('%s → 404, upstream not called', async (path) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await api(relay, path, { method, token: session.token, ...(method === 'POST' ? { body: { inputs: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'not_found', param: null });
    }
    expect(upstream.calls).toHaveLength(0);
  });

  it('a path outside the base path, or a case variant of it, is 404', async () => {
    for (const url of ['http://relay.test/v1/models', 'http://relay.test/API/v1/models', 'http://relay.test/api/V1/models', 'http://relay.test/api', 'http://relay.test/']) {
      const res = await relay.fetch(new Request(url, { headers: { authorization: `Bearer ${session.token}` } }));
      expect(res.status, url).toBe(404);
    }
    expect(upstream.calls).toHaveLength(0);
  });

  it('answers 404 before checking the token (no auth oracle)', async () => {
    expect((await api(relay, '/v1/admin/x')).status).toBe(404);
    expect((await api(relay, '/v1/admin/x', { token: 'garbage' })).status).toBe(404);
  });

  it('isCleanPath accepts plain paths only', () => {
    expect(isCleanPath('/v1/conversations/conv_1/history')).toBe(true);
    expect(isCleanPath('/v1/models/ft:open-mistral-7b:abc:20240101:1a2b')).toBe(true);
    for (const bad of ['/v1//x', '/v1/./x', '/v1/../x', '/v1/x/', '/v1/x%2F', '/v1/x;y', '/v1/x\\y', '/v1/x\0', '', '/']) expect(isCleanPath(bad), bad).toBe(false);
  });
});

describe('methods', () => {
  const wrong: Array<[string, string, string]> = [
    ['DELETE', '/v1/conversations', 'GET, POST'],
    ['PUT', '/v1/conversations', 'GET, POST'],
    ['PATCH', '/v1/conversations/conv_1', 'GET, DELETE, POST'],
    ['PUT', '/v1/conversations/conv_1', 'GET, DELETE, POST'],
    ['GET', '/v1/conversations/conv_1/restart', 'POST'],
    ['DELETE', '/v1/conversations/conv_1/history', 'GET'],
    ['POST', '/v1/conversations/conv_1/messages', 'GET'],
    ['DELETE', '/v1/agents/ag_1', 'GET'],
    ['PATCH', '/v1/agents/ag_1', 'GET'],
    ['POST', '/v1/models', 'GET'],
    ['DELETE', '/v1/models/parley-local', 'GET'],
    ['HEAD', '/v1/models', 'GET'],
    ['GET', '/v1/audio/speech', 'POST'],
  ];
  it.each(wrong)('%s %s → 405 with Allow, upstream not called', async (method, path, allow) => {
    const res = await relay.fetch(new Request(RELAY + path, { method, headers: { authorization: `Bearer ${session.token}` } }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')!.split(', ').sort()).toEqual(allow.split(', ').sort());
    expect(upstream.calls).toHaveLength(0);
  });

  it('OPTIONS is answered by CORS logic only (never forwarded, no token needed)', async () => {
    const res = await relay.fetch(new Request(`${RELAY}/v1/conversations/conv_1`, {
      method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization' },
    }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, DELETE, POST');
    expect(upstream.calls).toHaveLength(0);
    expect((await relay.fetch(new Request(`${RELAY}/v1/admin`, { method: 'OPTIONS', headers: { origin: ORIGIN } }))).status).toBe(404);
  });
});

describe('the route table maps to fixed upstream URLs', () => {
  it('each route reaches its template on the configured upstream, with only the allowed query parameters', async () => {
    await api(relay, '/v1/models?provider=mistralai&model=x&admin=1&page=2', { token: session.token });
    await api(relay, '/v1/models/parley-local', { token: session.token });
    await api(relay, '/v1/agents/ag_123?agent_version=2&x=1', { token: session.token });
    expect(upstream.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `GET ${UPSTREAM}/v1/models?provider=mistralai&model=x`,
      `GET ${UPSTREAM}/v1/models/parley-local`,
      `GET ${UPSTREAM}/v1/agents/ag_123?agent_version=2`,
    ]);
  });

  it('a Host header or absolute-looking request never changes the upstream host', async () => {
    await relay.fetch(new Request('http://evil.example/api/v1/models', { headers: { authorization: `Bearer ${session.token}`, host: 'evil.example', 'x-forwarded-host': 'evil.example', upgrade: 'websocket', connection: 'upgrade' } }));
    expect(new URL(upstream.calls[0]!.url).origin).toBe(UPSTREAM);
    expect(upstream.calls[0]!.headers.get('upgrade')).toBeNull();
  });

  it('keeps an upstream base path prefix', async () => {
    const prefixed = fakeUpstream(() => json({ object: 'list', data: [] }));
    const r = createRelay({ upstream: { baseUrl: 'https://gw.example/platform/', apiKey: UPSTREAM_KEY, fetch: prefixed.fetch }, basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET, policy: OPEN_POLICY });
    const s = await openSession(r);
    await api(r, '/v1/models', { token: s.token });
    expect(prefixed.calls[0]!.url).toBe('https://gw.example/platform/v1/models');
  });

  it('lists the expected routes', () => {
    expect(defaultRoutes().map((r) => `${r.method} ${r.path} [${r.scope}]`)).toEqual([
      'POST /v1/conversations [conversations]',
      'GET /v1/conversations [conversations]',
      'GET /v1/conversations/{conversation_id} [conversations]',
      'DELETE /v1/conversations/{conversation_id} [conversations]',
      'POST /v1/conversations/{conversation_id} [conversations]',
      'POST /v1/conversations/{conversation_id}/restart [conversations]',
      'POST /v1/conversations/{conversation_id}/feedback [conversations]',
      'GET /v1/conversations/{conversation_id}/history [conversations]',
      'GET /v1/conversations/{conversation_id}/messages [conversations]',
      'GET /v1/agents/{agent_id} [agents:read]',
      'GET /v1/models [models:read]',
      'GET /v1/models/{model_id} [models:read]',
      'GET /v1/audio/voices [speech]',
      'POST /v1/audio/speech [speech]',
      'POST /v1/audio/transcriptions [transcription]',
      'POST /v1/client/sessions [transcription]',
      'POST /v1/ocr [ocr]',
    ]);
  });

  it('lists voices for speech sessions, passing only the known query parameters', async () => {
    const voices = fakeUpstream(() => json({ items: [] }));
    const r = makeRelay(voices.fetch);
    const s = await openSession(r);
    expect((await api(r, '/v1/audio/voices?limit=5&offset=0&type=preset&evil=1', { token: s.token })).status).toBe(200);
    expect(voices.calls[0]!.url).toBe(`${UPSTREAM}/v1/audio/voices?limit=5&offset=0&type=preset`);
  });

  it('extra rows extend the table', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const r = makeRelay(upstream.fetch, { routes: [...defaultRoutes(), { name: 'files.list', method: 'GET', path: '/v1/files', scope: 'ocr', query: ['page'] }] });
    const s = await openSession(r);
    expect((await api(r, '/v1/files?page=1', { token: s.token })).status).toBe(200);
    expect(upstream.calls[0]!.url).toBe(`${UPSTREAM}/v1/files?page=1`);
  });
});
