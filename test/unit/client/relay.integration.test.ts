import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { createRelay, type Relay } from '../../../src/relay/index.js';
import { OPEN_POLICY } from '../relay/helpers.js';
import { ChatSession } from '../../../src/client/chat-session.js';
import { ParleyClient } from '../../../src/client/client.js';
import { forgetClient, getClient } from '../../../src/client/registry.js';
import { RelaySession } from '../../../src/client/session.js';
import { HistoryStore } from '../../../src/store/history-store.js';

// The client through the real relay in front of the real local platform: tokens from
// POST {relay}/session, resume after a reload, refresh before expiry, streaming through the relay.
const ORIGIN = 'https://shop.example';
const RELAY_URL = 'http://relay.test/api';
const PLATFORM_KEY = 'platform-key-client-tests';

let platform: Platform;
let relay: Relay;
let sessionPosts: Array<Record<string, unknown>>;

/** What a browser on ORIGIN sends: the Origin header on every call. */
const pageFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  request.headers.set('origin', ORIGIN);
  if (request.url.endsWith('/session')) sessionPosts.push(await request.clone().json());
  return relay.fetch(request);
};

beforeAll(async () => {
  platform = createPlatform({ apiKey: PLATFORM_KEY, onError: () => {} });
  await platform.ready();
  relay = createRelay({
    upstream: { baseUrl: 'http://platform.internal', apiKey: PLATFORM_KEY, fetch: (r) => platform.fetch(r) },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: 'relay-test-secret-0123456789-abcdefghij',
    getClientIp: () => '127.0.0.1',
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } },
    onError: () => {},
  });
});
afterAll(() => platform.close());

describe('client through the relay', () => {
  test('a page chats through the shared client; after a reload the resume token gives the same session and its conversations', async () => {
    sessionPosts = [];
    const store = await HistoryStore.open({ name: 'relay-page' });
    const client = getClient(RELAY_URL, { fetch: pageFetch, store });
    expect(getClient(`${RELAY_URL}/`)).toBe(client); // one client per relay URL
    const chat = new ChatSession({ client, store, model: 'parley-local' });
    await chat.send('Hello through the relay');
    expect(chat.state.status).toBe('ready');
    expect(chat.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.output']);
    expect(sessionPosts).toEqual([{}]);
    const resumeToken = await store.getResumeToken(RELAY_URL);
    expect(resumeToken).toBeTruthy();

    // Reload: a new page (new client, same IndexedDB). The relay ties conversations to the session,
    // so reading the old conversation only works because the session is resumed.
    forgetClient(RELAY_URL);
    const reloaded = getClient(RELAY_URL, { fetch: pageFetch, store });
    expect(reloaded).not.toBe(client);
    const again = new ChatSession({ client: reloaded, store, model: 'parley-local' });
    await again.load(chat.state.conversationId!);
    expect(again.state.status).toBe('ready');
    expect(sessionPosts[1]).toEqual({ resume_token: resumeToken });
    await again.send('Still me?');
    expect(again.state.entries).toHaveLength(4);
    expect(again.state.error).toBeNull();
    await store.close();
  });

  test('a fresh session cannot read another session\'s conversation (the relay answers 404)', async () => {
    sessionPosts = [];
    const owner = new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session: new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch }) });
    const stream = owner.conversations.start({ model: 'parley-local', inputs: 'mine' });
    for await (const _ of stream) { /* drain */ }
    const id = await stream.conversationId;
    const stranger = new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session: new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch }) });
    await expect(stranger.conversations.history(id)).rejects.toMatchObject({ status: 404 });
    await expect(owner.conversations.history(id)).resolves.toMatchObject({ conversation_id: id });
  });

  test('the token is refreshed before it expires (same session), and calls keep working', async () => {
    sessionPosts = [];
    let skew = 0;
    const session = new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch, now: () => Date.now() + skew });
    const client = new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session });
    await client.models.list();
    const first = await session.getToken();
    const sessionId = session.sessionId;
    skew = 570_000; // 30 s before the 600 s token expires: inside the refresh margin
    await client.models.list();
    expect(sessionPosts).toEqual([{}, { token: first }]);
    expect(await session.getToken()).not.toBe(first);
    expect(session.sessionId).toBe(sessionId);
  });

  test('a revoked session: the 401 drops the token; the refused resume falls back to a new session', async () => {
    sessionPosts = [];
    const store = await HistoryStore.open({ name: 'relay-revoked' });
    const session = new RelaySession({ relayUrl: RELAY_URL, fetch: pageFetch, store });
    const client = new ParleyClient({ baseUrl: RELAY_URL, fetch: pageFetch, session });
    await client.models.list();
    const revoked = session.sessionId!;
    await relay.revokeSession(revoked);
    await expect(client.models.list()).resolves.toMatchObject({ object: 'list' });
    expect(session.sessionId).not.toBe(revoked);
    expect(sessionPosts.map((b) => Object.keys(b)[0] ?? 'new')).toEqual(['new', 'resume_token', 'new']);
    await store.close();
  });
});
