import { describe, expect, it } from 'vitest';
import type { RelayPolicy } from '../../../src/relay/index.js';
import { api, fakeUpstream, json, makeRelay, openSession } from './helpers.js';

/** A tiny stand-in for the conversation API: enough to see what the relay forwards. */
function conversationUpstream() {
  const conversations = new Map<string, { id: string; metadata: Record<string, unknown> | null; created: number }>();
  let n = 0;
  const upstream = fakeUpstream(async (req) => {
    const url = new URL(req.url);
    const parts = url.pathname.split('/').slice(1); // v1, conversations, id?, action?
    if (parts[1] === 'models') return json({ object: 'list', data: [{ id: 'small', aliases: ['small-latest'] }, { id: 'large', aliases: [] }, { id: 'ocr-1', aliases: [] }] });
    if (parts[1] === 'agents') return json({ object: 'agent', id: parts[2] });
    if (parts[1] !== 'conversations') return json({ ok: true });
    const id = parts[2];
    if (req.method === 'POST' && (!id || parts[3] === 'restart')) {
      const body = await req.json() as { metadata?: Record<string, unknown> };
      const newId = `conv_${String(++n).padStart(4, '0')}`;
      conversations.set(newId, { id: newId, metadata: body.metadata ?? null, created: n });
      return json({ object: 'conversation.response', conversation_id: newId, outputs: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
    }
    const found = id && conversations.get(id);
    if (!found) return json({ object: 'error', message: `Conversation '${id}' not found`, type: 'invalid_request_error', param: null, code: 'not_found' }, 404);
    if (req.method === 'DELETE') { conversations.delete(id); return new Response(null, { status: 204 }); }
    if (req.method === 'POST') return json({ object: 'conversation.response', conversation_id: id, outputs: [], usage: {} });
    if (parts[3] === 'history') return json({ object: 'conversation.history', conversation_id: id, entries: [] });
    if (parts[3] === 'messages') return json({ object: 'conversation.messages', conversation_id: id, messages: [] });
    return json({ object: 'conversation', id, model: 'small', metadata: found.metadata, created_at: 'x', updated_at: 'x' });
  });
  return { ...upstream, conversations };
}

async function setup(policy?: Partial<RelayPolicy>) {
  const upstream = conversationUpstream();
  const relay = makeRelay(upstream.fetch, policy ? { authorize: () => ({ policy }) } : {});
  return { upstream, relay };
}

describe('scopes (403, upstream not called)', () => {
  it('an operation outside the token scopes → 403', async () => {
    const { relay, upstream } = await setup({ scopes: ['conversations'] });
    const { token } = await openSession(relay);
    const calls: Array<[string, Parameters<typeof api>[2]]> = [
      ['/v1/audio/speech', { body: { input: 'hello' } }],
      ['/v1/ocr', { body: { model: 'ocr-1', document: { type: 'document_url', document_url: 'https://x/a.pdf' } } }],
      ['/v1/agents/ag_1', {}],
      ['/v1/models', {}],
      ['/v1/models/small', {}],
      ['/v1/audio/transcriptions', { rawBody: 'x', headers: { 'content-type': 'multipart/form-data; boundary=b' } }],
    ];
    for (const [path, options] of calls) {
      const res = await api(relay, path, { token, ...options });
      expect(res.status, path).toBe(403);
      expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'scope_not_allowed', param: null });
    }
    expect(upstream.calls).toHaveLength(0);
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'small', inputs: 'x' } })).status).toBe(200);
  });

  it('a token for one agent used for another → 403 (start body and agent read)', async () => {
    const { relay, upstream } = await setup({ agents: ['ag_shop'], models: [] });
    const { token } = await openSession(relay);
    expect((await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_other', inputs: 'x' } })).status).toBe(403);
    expect((await api(relay, '/v1/agents/ag_other', { token })).status).toBe(403);
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'large', inputs: 'x' } })).status).toBe(403);
    expect(upstream.calls).toHaveLength(0);
    expect((await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', inputs: 'x' } })).status).toBe(200);
    expect((await api(relay, '/v1/agents/ag_shop', { token })).status).toBe(200);
  });

  it('a model outside the token → 403 for conversations, speech, OCR and model reads; the model list is filtered', async () => {
    const { relay, upstream } = await setup({ models: ['small-latest', 'ocr-1'] });
    const { token } = await openSession(relay);
    const refused = [
      await api(relay, '/v1/conversations', { token, body: { model: 'large', inputs: 'x' } }),
      await api(relay, '/v1/audio/speech', { token, body: { model: 'large', input: 'x' } }),
      await api(relay, '/v1/ocr', { token, body: { model: 'large', document: {} } }),
      await api(relay, '/v1/models/large', { token }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('model_not_allowed');
    }
    expect(upstream.calls).toHaveLength(0);
    const list = await (await api(relay, '/v1/models', { token })).json();
    expect(list.data.map((m: { id: string }) => m.id)).toEqual(['small', 'ocr-1']);
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'small-latest', inputs: 'x' } })).status).toBe(200);
  });
});

describe('conversation ownership', () => {
  it("another session's conversation → 404 for get, append, restart, history, messages and delete, like a missing one", async () => {
    const { relay, upstream } = await setup();
    const a = await openSession(relay);
    const b = await openSession(relay);
    const started = await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'hi' } })).json();
    const id = started.conversation_id as string;
    const callsBefore = upstream.calls.length;
    const attempts: Array<[string, Parameters<typeof api>[2]]> = [
      [`/v1/conversations/${id}`, {}],
      [`/v1/conversations/${id}`, { body: { inputs: 'more' } }],
      [`/v1/conversations/${id}`, { body: { inputs: 'more', stream: true } }],
      [`/v1/conversations/${id}/restart`, { body: { from_entry_id: 'msg_1', inputs: 'x' } }],
      [`/v1/conversations/${id}/history`, {}],
      [`/v1/conversations/${id}/messages`, {}],
      [`/v1/conversations/${id}`, { method: 'DELETE' }],
    ];
    for (const [path, options] of attempts) {
      const theirs = await api(relay, path, { token: b.token, ...options });
      const missing = await api(relay, path.replace(id, 'conv_9999'), { token: b.token, ...options });
      expect(theirs.status, path).toBe(404);
      expect(await theirs.json()).toEqual({ ...(await missing.json()), message: `Conversation '${id}' not found` });
    }
    expect(upstream.calls.length).toBe(callsBefore);
    // The owner can do all of it.
    for (const [path, options] of attempts) expect((await api(relay, path, { token: a.token, ...options })).status, path).toBeLessThan(300);
  });

  it('ownership survives refresh and resume (same session id)', async () => {
    const { relay } = await setup();
    const a = await openSession(relay);
    const { conversation_id: id } = await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'hi' } })).json();
    const resumed = await openSession(relay, { resume_token: a.resume_token });
    const refreshed = await openSession(relay, { token: a.token });
    expect((await api(relay, `/v1/conversations/${id}/history`, { token: resumed.token })).status).toBe(200);
    expect((await api(relay, `/v1/conversations/${id}/history`, { token: refreshed.token })).status).toBe(200);
  });

  it('restart creates a conversation owned by the restarting session', async () => {
    const { relay } = await setup();
    const a = await openSession(relay);
    const b = await openSession(relay);
    const { conversation_id: id } = await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'hi' } })).json();
    const { conversation_id: copy } = await (await api(relay, `/v1/conversations/${id}/restart`, { token: a.token, body: { from_entry_id: 'msg_1' } })).json();
    expect(copy).not.toBe(id);
    expect((await api(relay, `/v1/conversations/${copy}`, { token: a.token })).status).toBe(200);
    expect((await api(relay, `/v1/conversations/${copy}`, { token: b.token })).status).toBe(404);
  });

  it('lists only the session’s own conversations, newest first, paged and filtered by metadata', async () => {
    const { relay, upstream } = await setup();
    const a = await openSession(relay);
    const b = await openSession(relay);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'x', metadata: { n: i, tag: i % 2 ? 'odd' : 'even' } } })).json()).conversation_id);
    }
    await api(relay, '/v1/conversations', { token: b.token, body: { model: 'small', inputs: 'theirs' } });
    const list = await (await api(relay, '/v1/conversations', { token: a.token })).json();
    expect(list.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    const page = await (await api(relay, '/v1/conversations?page=1&page_size=2', { token: a.token })).json();
    expect(page.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const even = await (await api(relay, `/v1/conversations?metadata=${encodeURIComponent('{"tag":"even"}')}`, { token: a.token })).json();
    expect(even.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[0]]);
    expect((await api(relay, '/v1/conversations?metadata=nope', { token: a.token })).status).toBe(400);
    expect(await (await api(relay, '/v1/conversations', { token: b.token })).json()).toHaveLength(1);
    // The relay never asks the upstream for the tenant-wide list.
    expect(upstream.calls.some((c) => c.method === 'GET' && new URL(c.url).pathname === '/v1/conversations')).toBe(false);
  });

  it('a deleted conversation is forgotten (and conversations gone upstream drop out of the list)', async () => {
    const { relay, upstream } = await setup();
    const a = await openSession(relay);
    const one = (await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'x' } })).json()).conversation_id;
    const two = (await (await api(relay, '/v1/conversations', { token: a.token, body: { model: 'small', inputs: 'x' } })).json()).conversation_id;
    expect((await api(relay, `/v1/conversations/${one}`, { token: a.token, method: 'DELETE' })).status).toBe(204);
    const calls = upstream.calls.length;
    expect((await api(relay, `/v1/conversations/${one}`, { token: a.token })).status).toBe(404);
    expect(upstream.calls.length).toBe(calls);
    upstream.conversations.delete(two);
    expect(await (await api(relay, '/v1/conversations', { token: a.token })).json()).toEqual([]);
  });
});
