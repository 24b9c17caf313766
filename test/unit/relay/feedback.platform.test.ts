/**
 * The relay's feedback route against the real local platform: a rating becomes a record of the configured
 * observability dataset (read back through the platform's own API), a session rates only its own
 * conversations, bad bodies are 400, and without the option the route does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '@parley-kit/platform';
import type { SessionResponse } from '../../../src/client/contracts.js';
import { createRelay, type Relay } from '../../../src/relay/index.js';
import { OPEN_POLICY, ORIGIN, SECRET, api, openSession } from './helpers.js';

const PLATFORM_KEY = 'platform-key-feedback-7c2e';
const PLATFORM = 'http://platform.internal';

let platform: Platform;
let datasetId: string;

function platformCall(method: string, path: string, body?: unknown): Promise<Response> {
  return platform.fetch(new Request(`${PLATFORM}${path}`, {
    method,
    headers: { authorization: `Bearer ${PLATFORM_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }));
}

function relayWith(feedback: boolean): Relay {
  return createRelay({
    upstream: { baseUrl: PLATFORM, apiKey: PLATFORM_KEY, fetch: (r) => platform.fetch(r) },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: SECRET,
    getClientIp: () => '127.0.0.1',
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } },
    ...(feedback ? { feedback: { datasetId } } : {}),
    onError: (e) => { throw e; },
  });
}

/** A finished conversation of `session` through `relay`: its id and the id of its reply. */
async function converse(relay: Relay, session: SessionResponse): Promise<{ conversationId: string; replyId: string; userId: string }> {
  const res = await api(relay, '/v1/conversations', { token: session.token, body: { model: 'parley-local', inputs: 'Where is my lamp?', stream: false }, headers: { origin: ORIGIN } });
  expect(res.status, await res.clone().text()).toBe(200);
  const turn = await res.json() as { conversation_id: string; outputs: Array<{ id: string; type: string }> };
  const messages = await (await api(relay, `/v1/conversations/${turn.conversation_id}/messages`, { token: session.token })).json() as { messages: Array<{ id: string; role: string }> };
  return {
    conversationId: turn.conversation_id,
    replyId: turn.outputs.find((o) => o.type === 'message.output')!.id,
    userId: messages.messages.find((m) => m.role === 'user')!.id,
  };
}

async function records(): Promise<Array<{ payload: { messages: Array<{ role: string; content: unknown }> }; properties: Record<string, unknown> }>> {
  const res = await platformCall('GET', `/v1/observability/datasets/${datasetId}/records?page_size=100`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: { results: never } }).records.results;
}

beforeAll(async () => {
  platform = createPlatform({ apiKey: PLATFORM_KEY, tokenDelayMs: 0, onError: (e) => { throw e; } });
  await platform.ready();
  const created = await platformCall('POST', '/v1/observability/datasets', { name: 'Chat feedback', description: 'Ratings from <agent-chat>' });
  expect(created.status).toBe(201);
  datasetId = (await created.json() as { id: string }).id;
});
afterAll(async () => { await platform.close(); });

describe('feedback through the relay', () => {
  it('a thumbs-down with a comment becomes a record of the dataset: the messages up to the reply, the rating and the comment', async () => {
    const relay = relayWith(true);
    const session = await openSession(relay);
    expect(session.features).toEqual(['feedback']);
    const { conversationId, replyId } = await converse(relay, session);
    const before = (await records()).length;

    const res = await api(relay, `/v1/conversations/${conversationId}/feedback`, {
      token: session.token, headers: { origin: ORIGIN }, body: { message_id: replyId, rating: 'down', comment: 'It never said where the lamp is.' },
    });
    expect(res.status, await res.clone().text()).toBe(204);

    const all = await records();
    expect(all).toHaveLength(before + 1);
    const record = all.find((r) => r.properties.message_id === replyId)!;
    expect(record.properties).toMatchObject({ rating: 'down', comment: 'It never said where the lamp is.', conversation_id: conversationId, source: 'parley-relay' });
    expect(record.payload.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(record.payload.messages[0]!.content).toBe('Where is my lamp?');
  });

  it('a session may rate only its own conversations: another session gets 404 and nothing is written', async () => {
    const relay = relayWith(true);
    const owner = await openSession(relay);
    const stranger = await openSession(relay);
    const { conversationId, replyId } = await converse(relay, owner);
    const before = (await records()).length;
    const res = await api(relay, `/v1/conversations/${conversationId}/feedback`, { token: stranger.token, body: { message_id: replyId, rating: 'up' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { object: string }).object).toBe('error');
    expect((await records()).length).toBe(before);
  });

  it('refuses bad ratings with a 400 in the error shape, and an unknown or user message by id', async () => {
    const relay = relayWith(true);
    const session = await openSession(relay);
    const { conversationId, replyId, userId } = await converse(relay, session);
    const path = `/v1/conversations/${conversationId}/feedback`;
    const before = (await records()).length;
    for (const body of [
      { message_id: replyId, rating: 'meh' },
      { message_id: replyId },
      { message_id: replyId, rating: 'up', comment: 'x'.repeat(2001) },
      { message_id: replyId, rating: 'up', extra: true },
      { message_id: '../x', rating: 'up' },
    ]) {
      const res = await api(relay, path, { token: session.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { object: string; code: string }).object).toBe('error');
    }
    expect((await api(relay, path, { token: session.token, body: { message_id: 'msg_unknown', rating: 'up' } })).status).toBe(404);
    expect((await api(relay, path, { token: session.token, body: { message_id: userId, rating: 'up' } })).status).toBe(400);
    expect((await records()).length).toBe(before);
  });

  it('without the option the route does not exist and sessions do not list it', async () => {
    const relay = relayWith(false);
    const session = await openSession(relay);
    expect(session.features).toBeUndefined();
    const { conversationId, replyId } = await converse(relay, session);
    const res = await api(relay, `/v1/conversations/${conversationId}/feedback`, { token: session.token, body: { message_id: replyId, rating: 'up' } });
    expect(res.status).toBe(404);
  });
});
