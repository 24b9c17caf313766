import { Mistral } from '@mistralai/mistralai';
import { HTTPClient } from '@mistralai/mistralai/lib/http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionResponse } from '../../../src/client/contracts.js';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { createRelay, type Relay } from '../../../src/relay/index.js';
import { OPEN_POLICY, ORIGIN, RELAY, SECRET, api, everyByte, openSession } from './helpers.js';

const PLATFORM_KEY = 'platform-key-4b1d6a0c9e';

let platform: Platform;
let relay: Relay;
let agentId: string;

beforeAll(async () => {
  platform = createPlatform({ apiKey: PLATFORM_KEY, tokenDelayMs: 5, onError: (e) => { throw e; } });
  await platform.ready();
  relay = createRelay({
    upstream: { baseUrl: 'http://platform.internal', apiKey: PLATFORM_KEY, fetch: (r) => platform.fetch(r) },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: SECRET,
    getClientIp: () => '127.0.0.1',
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } },
    heartbeatMs: 2, // pings between the local model's tokens: the SDK must not mind
    onError: (e) => { throw e; },
  });
  const created = await platform.fetch(new Request('http://platform.internal/v1/agents', {
    method: 'POST',
    headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'parley-local', name: 'Shop helper', instructions: 'Be brief.' }),
  }));
  agentId = ((await created.json()) as { id: string }).id;
});
afterAll(async () => { await platform.close(); });

/** The official SDK, unmodified, using the relay URL and a session token as its key. */
function sdkWith(session: SessionResponse): Mistral {
  const httpClient = new HTTPClient({ fetcher: (input, init) => relay.fetch(input instanceof Request ? input : new Request(input, init)) });
  return new Mistral({ apiKey: session.token, serverURL: RELAY, httpClient });
}

interface Event { event: string; data: any }
function parseSse(text: string): Event[] {
  return text.split(/\n\n+/).filter((b) => b.trim() && !b.startsWith(':')).map((block) => {
    const lines = block.split('\n').filter((l) => !l.startsWith(':'));
    return { event: lines.find((l) => l.startsWith('event:'))!.slice(6).trim(), data: JSON.parse(lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')) };
  });
}

async function streamTurn(session: SessionResponse, path: string, body: Record<string, unknown>) {
  const res = await api(relay, path, { token: session.token, body: { ...body, stream: true }, headers: { origin: ORIGIN } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await res.text();
  pingsSeen ||= text.includes('\n: ping\n\n');
  return parseSse(text);
}
/** Whether any relayed stream carried heartbeats (so the SDK tests below parse streams with pings in them). */
let pingsSeen = false;

describe('through the relay to the local platform', () => {
  it('start, append and restart stream through; ownership follows the session', async () => {
    const a = await openSession(relay);
    const b = await openSession(relay);
    const started = await streamTurn(a, '/v1/conversations', { model: 'parley-local', inputs: 'Hello' });
    expect(started[0]!.event).toBe('conversation.response.started');
    expect(started.at(-1)!.event).toBe('conversation.response.done');
    const id = started[0]!.data.conversation_id as string;

    const appended = await streamTurn(a, `/v1/conversations/${id}`, { inputs: 'Again' });
    expect(appended.at(-1)!.event).toBe('conversation.response.done');

    const history = await (await api(relay, `/v1/conversations/${id}/history`, { token: a.token })).json();
    expect(history.entries).toHaveLength(4);
    const restarted = await streamTurn(a, `/v1/conversations/${id}/restart`, { from_entry_id: history.entries[0].id, inputs: 'Instead' });
    const copy = restarted[0]!.data.conversation_id as string;
    expect(copy).not.toBe(id);
    expect(pingsSeen).toBe(true);

    for (const conv of [id, copy]) {
      expect((await api(relay, `/v1/conversations/${conv}`, { token: b.token })).status).toBe(404);
      expect((await api(relay, `/v1/conversations/${conv}`, { token: b.token, body: { inputs: 'hijack' } })).status).toBe(404);
      expect((await api(relay, `/v1/conversations/${conv}/restart`, { token: b.token, body: { from_entry_id: history.entries[0].id } })).status).toBe(404);
      expect((await api(relay, `/v1/conversations/${conv}/messages`, { token: b.token })).status).toBe(404);
      expect((await api(relay, `/v1/conversations/${conv}`, { token: b.token, method: 'DELETE' })).status).toBe(404);
      expect((await api(relay, `/v1/conversations/${conv}`, { token: a.token })).status).toBe(200);
    }
    const theirList = await (await api(relay, '/v1/conversations', { token: b.token })).json();
    expect(theirList).toEqual([]);
  });

  it('an agent conversation is allowed only for the token’s agents', async () => {
    const limited = createRelay({
      upstream: { baseUrl: 'http://platform.internal', apiKey: PLATFORM_KEY, fetch: (r) => platform.fetch(r) },
      basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET, policy: { scopes: ['conversations', 'agents:read'], agents: [agentId], models: [] },
    });
    const s = await openSession(limited);
    const ok = await api(limited, '/v1/conversations', { token: s.token, body: { agent_id: agentId, inputs: 'hi' } });
    expect(ok.status).toBe(200);
    expect((await api(limited, '/v1/conversations', { token: s.token, body: { agent_id: 'ag_00000000000000000000000000000000', inputs: 'hi' } })).status).toBe(403);
    expect((await api(limited, '/v1/conversations', { token: s.token, body: { model: 'parley-local', inputs: 'hi' } })).status).toBe(403);
    expect((await api(limited, `/v1/agents/${agentId}`, { token: s.token })).status).toBe(200);
  });

  it('the platform key appears in no answer, even for platform errors', async () => {
    const s = await openSession(relay);
    for (const res of [
      await api(relay, '/v1/models', { token: s.token }),
      await api(relay, '/v1/conversations', { token: s.token, body: { model: 'no-such-model', inputs: 'x' } }),
      await api(relay, '/v1/conversations', { token: s.token, body: { inputs: 'x' } }),
      await api(relay, '/v1/audio/speech', { token: s.token, body: { input: 'x' } }),
      await api(relay, '/v1/agents/ag_missing', { token: s.token }),
    ]) {
      expect(await everyByte(res)).not.toContain(PLATFORM_KEY);
    }
  });
});

describe('the official SDK through the relay', () => {
  it('conversations: start, startStream (no unknown events), append, restart, history, messages, get, list, delete', async () => {
    const session = await openSession(relay);
    const sdk = sdkWith(session);

    const started = await sdk.beta.conversations.start({ model: 'parley-local', inputs: 'Hello from the SDK' });
    expect(started.conversationId).toMatch(/^conv_/);
    const id = started.conversationId;

    const events = await drain(await sdk.beta.conversations.startStream({ model: 'parley-local', inputs: 'Show me some markdown' }));
    expect(events[0]!.data.type).toBe('conversation.response.started');
    expect(events.at(-1)!.data.type).toBe('conversation.response.done');
    const streamedId = (events[0]!.data as any).conversationId as string;

    const more = await drain(await sdk.beta.conversations.appendStream({ conversationId: streamedId, conversationAppendStreamRequest: { inputs: 'Another' } }));
    expect(more.at(-1)!.data.type).toBe('conversation.response.done');
    const appended = await sdk.beta.conversations.append({ conversationId: id, conversationAppendRequest: { inputs: 'And again' } });
    expect(appended.conversationId).toBe(id);

    const history = await sdk.beta.conversations.getHistory({ conversationId: id });
    expect(history.entries).toHaveLength(4);
    const messages = await sdk.beta.conversations.getMessages({ conversationId: id });
    expect(messages.messages).toHaveLength(4);
    const restarted = await drain(await sdk.beta.conversations.restartStream({
      conversationId: id, conversationRestartStreamRequest: { fromEntryId: history.entries[0]!.id!, inputs: 'Instead' },
    }));
    const restartedId = (restarted[0]!.data as any).conversationId as string;
    const restartedJson = await sdk.beta.conversations.restart({ conversationId: restartedId, conversationRestartRequest: { fromEntryId: history.entries[0]!.id!, inputs: 'Once more' } });
    expect(restartedJson.conversationId).not.toBe(restartedId);

    const got = await sdk.beta.conversations.get({ conversationId: id });
    expect(got.id).toBe(id);
    const list = await sdk.beta.conversations.list({ page: 0, pageSize: 50 });
    expect(list.map((c) => c.id).sort()).toEqual([id, streamedId, restartedId, restartedJson.conversationId].sort());

    await sdk.beta.conversations.delete({ conversationId: id });
    await expect(sdk.beta.conversations.get({ conversationId: id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("another session's SDK gets 404 for the first one's conversation", async () => {
    const mine = sdkWith(await openSession(relay));
    const theirs = sdkWith(await openSession(relay));
    const { conversationId } = await mine.beta.conversations.start({ model: 'parley-local', inputs: 'private' });
    await expect(theirs.beta.conversations.get({ conversationId })).rejects.toMatchObject({ statusCode: 404 });
    await expect(theirs.beta.conversations.appendStream({ conversationId, conversationAppendStreamRequest: { inputs: 'x' } })).rejects.toMatchObject({ statusCode: 404 });
    await expect(theirs.beta.conversations.getHistory({ conversationId })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('models and agents read; refusals arrive as SDK errors with the status', async () => {
    const session = await openSession(relay);
    const sdk = sdkWith(session);
    const models = await sdk.models.list();
    expect(models.data!.some((m) => m.id === 'parley-local')).toBe(true);
    expect((await sdk.models.retrieve({ modelId: 'parley-local' })).id).toBe('parley-local');
    const agent = await sdk.beta.agents.get({ agentId });
    expect(agent.id).toBe(agentId);
    await expect(sdk.beta.agents.list()).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk.models.delete({ modelId: 'parley-local' })).rejects.toMatchObject({ statusCode: 405 });
    const bad = new Mistral({ apiKey: 'not-a-token', serverURL: RELAY, httpClient: new HTTPClient({ fetcher: (input, init) => relay.fetch(input instanceof Request ? input : new Request(input, init)) }) });
    await expect(bad.models.list()).rejects.toMatchObject({ statusCode: 401 });
  });
});

/** Every event of an SDK stream, in order; one the SDK could not parse fails the test. */
async function drain(stream: AsyncIterable<{ event: string; data: any }>): Promise<Array<{ event: string; data: any }>> {
  const events: Array<{ event: string; data: any }> = [];
  for await (const e of stream) events.push(e.data?.isUnknown || e.data?.type === 'UNKNOWN' ? fail(e) : e);
  return events;
}

function fail(e: { data: any }): never {
  throw new Error(`SDK saw an unknown event: ${JSON.stringify(e.data.raw ?? e.data)}`);
}
