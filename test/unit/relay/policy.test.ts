import { describe, expect, it } from 'vitest';
import { createRelay, type RelayPolicy } from '../../../src/relay/index.js';
import { ORIGIN, SECRET, UPSTREAM, UPSTREAM_KEY, api, fakeUpstream, json, makeRelay, openSession } from './helpers.js';

/** A one-line PDF as a data: URL (the relay does not let the platform fetch remote documents). */
const PDF = `data:application/pdf;base64,${Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64')}`;

/** An upstream that answers every conversation call with a new or the same conversation id. */
function conversationUpstream() {
  let n = 0;
  return fakeUpstream(async (req) => {
    const parts = new URL(req.url).pathname.split('/').slice(1);
    if (parts[1] !== 'conversations') return json({ ok: true });
    const creates = !parts[2] || parts[3] === 'restart';
    const id = creates ? `conv_${++n}` : parts[2];
    return json({ object: 'conversation.response', conversation_id: id, outputs: [], usage: {} });
  });
}

/** A relay whose sessions may use one agent and one model of each kind, every scope. */
async function narrowed(policy: Partial<RelayPolicy> = { agents: ['ag_shop'], models: ['small', 'tts-1', 'ocr-1', 'rt-1'] }) {
  const upstream = conversationUpstream();
  const relay = makeRelay(upstream.fetch, { authorize: () => ({ policy }) });
  const { token } = await openSession(relay);
  const started = await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', inputs: 'hi' } });
  expect(started.status).toBe(200);
  const { conversation_id: id } = await started.json() as { conversation_id: string };
  return { relay, upstream, token, id };
}

async function expectRefused(res: Response, code: string) {
  expect(res.status, await res.clone().text()).toBe(403);
  expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', code, param: null });
}

describe('body checks on every route (the token decides, not the body)', () => {
  it('append and restart bodies naming another agent or model → 403, upstream not called', async () => {
    const { relay, upstream, token, id } = await narrowed();
    const calls = upstream.calls.length;
    const refusals: Array<[string, unknown, string]> = [
      [`/v1/conversations/${id}`, { inputs: 'x', agent_id: 'ag_other' }, 'agent_not_allowed'],
      [`/v1/conversations/${id}`, { inputs: 'x', model: 'large' }, 'model_not_allowed'],
      [`/v1/conversations/${id}`, { inputs: 'x', stream: true, model: 'large' }, 'model_not_allowed'],
      [`/v1/conversations/${id}/restart`, { from_entry_id: 'msg_1', agent_id: 'ag_other' }, 'agent_not_allowed'],
      [`/v1/conversations/${id}/restart`, { from_entry_id: 'msg_1', model: 'large', stream: true }, 'model_not_allowed'],
    ];
    for (const [path, body, code] of refusals) await expectRefused(await api(relay, path, { token, body }), code);
    expect(upstream.calls.length).toBe(calls);
    // The same bodies naming what the session may use go through.
    expect((await api(relay, `/v1/conversations/${id}`, { token, body: { inputs: 'x', agent_id: 'ag_shop' } })).status).toBe(200);
    expect((await api(relay, `/v1/conversations/${id}/restart`, { token, body: { from_entry_id: 'msg_1', agent_version: 2 } })).status).toBe(200);
  });

  it('a page gives a model conversation only function tools: built-in tools, connectors and libraries → 403', async () => {
    const { relay, upstream, token } = await narrowed();
    const calls = upstream.calls.length;
    const refused = [
      { type: 'connector', connector_id: '0b8f2a52-1c7e-4a7e-9a55-8d3c1b2e4f60' },
      { type: 'document_library', library_ids: ['lib_1'] },
      { type: 'web_search_premium' },
      { type: 'code_interpreter' },
      { type: 'image_generation' },
      { type: 'web_search' },
      { name: 'no type' },
      'function',
    ];
    for (const tool of refused) {
      await expectRefused(await api(relay, '/v1/conversations', { token, body: { model: 'small', inputs: 'hi', tools: [tool] } }), 'tool_not_allowed');
    }
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'small', inputs: 'hi', tools: { type: 'function' } } })).status).toBe(400);
    expect(upstream.calls.length).toBe(calls);
    const fn = { type: 'function', function: { name: 'get_order_status', parameters: { type: 'object', properties: {} } } };
    expect((await api(relay, '/v1/conversations', { token, body: { model: 'small', inputs: 'hi', tools: [fn] } })).status).toBe(200);
  });

  it('a handoff entry written into inputs cannot hand the conversation to another agent', async () => {
    const { relay, upstream, token, id } = await narrowed();
    const handoff = (next: string) => ({ type: 'agent.handoff', previous_agent_id: 'ag_shop', previous_agent_name: 'Shop', next_agent_id: next, next_agent_name: 'X' });
    const calls = upstream.calls.length;
    await expectRefused(await api(relay, `/v1/conversations/${id}`, { token, body: { inputs: [{ role: 'user', content: 'hi' }, handoff('ag_billing')] } }), 'agent_not_allowed');
    await expectRefused(await api(relay, `/v1/conversations/${id}/restart`, { token, body: { from_entry_id: 'msg_1', inputs: [handoff('ag_billing')] } }), 'agent_not_allowed');
    await expectRefused(await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', inputs: [handoff('ag_billing')] } }), 'agent_not_allowed');
    expect(upstream.calls.length).toBe(calls);
    expect((await api(relay, `/v1/conversations/${id}`, { token, body: { inputs: [handoff('ag_shop')] } })).status).toBe(200);
  });

  it('agent_version: any version of an unpinned agent; a pinned agent (ag_…@3) only at its version, on start and restart', async () => {
    const open = await narrowed();
    expect((await api(open.relay, '/v1/conversations', { token: open.token, body: { agent_id: 'ag_shop', agent_version: 7, inputs: 'x' } })).status).toBe(200);
    expect((await api(open.relay, `/v1/conversations/${open.id}/restart`, { token: open.token, body: { from_entry_id: 'msg_1', agent_version: 'beta' } })).status).toBe(200);

    const upstream = conversationUpstream();
    const relay = makeRelay(upstream.fetch, { authorize: () => ({ policy: { agents: ['ag_shop@3', 'ag_shop@stable'], models: [] } }) });
    const { token } = await openSession(relay);
    const ok = await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', agent_version: 3, inputs: 'x' } });
    expect(ok.status).toBe(200);
    const { conversation_id: id } = await ok.json() as { conversation_id: string };
    expect((await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', agent_version: 'stable', inputs: 'x' } })).status).toBe(200);
    const calls = upstream.calls.length;
    await expectRefused(await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', agent_version: 4, inputs: 'x' } }), 'agent_not_allowed');
    // No version: the agent's current one, which the pin does not allow.
    await expectRefused(await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', inputs: 'x' } }), 'agent_not_allowed');
    // A restart cannot switch the pinned conversation to another version (the body does not name the agent).
    await expectRefused(await api(relay, `/v1/conversations/${id}/restart`, { token, body: { from_entry_id: 'msg_1', agent_version: 4 } }), 'agent_not_allowed');
    // A handoff entry to a pinned agent would run its current version.
    const handoff = { type: 'agent.handoff', previous_agent_id: 'ag_shop', previous_agent_name: 'Shop', next_agent_id: 'ag_shop', next_agent_name: 'Shop' };
    await expectRefused(await api(relay, `/v1/conversations/${id}`, { token, body: { inputs: [handoff] } }), 'agent_not_allowed');
    expect(upstream.calls.length).toBe(calls);
    // Without a version the restart keeps the conversation's own (pinned) one; the agent's card is readable.
    expect((await api(relay, `/v1/conversations/${id}/restart`, { token, body: { from_entry_id: 'msg_1' } })).status).toBe(200);
    expect((await api(relay, '/v1/agents/ag_shop', { token })).status).toBe(200);
    expect((await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_shop', agent_version: 3.5, inputs: 'x' } })).status).toBe(400);
  });

  it('a field of the wrong type is a 400, not a pass', async () => {
    const { relay, token, id } = await narrowed();
    const res = await api(relay, `/v1/conversations/${id}`, { token, body: { inputs: 'x', agent_id: ['ag_other'] } });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('bad_request');
  });

  it('speech, OCR and the realtime client session check their model', async () => {
    const { relay, upstream, token } = await narrowed();
    const calls = upstream.calls.length;
    await expectRefused(await api(relay, '/v1/audio/speech', { token, body: { model: 'tts-hd', input: 'x', stream: true } }), 'model_not_allowed');
    await expectRefused(await api(relay, '/v1/ocr', { token, body: { model: 'ocr-2', document: { type: 'document_url', document_url: PDF } } }), 'model_not_allowed');
    await expectRefused(await api(relay, '/v1/client/sessions', { token, body: { purpose: 'realtime', model: 'rt-2' } }), 'model_not_allowed');
    expect(upstream.calls.length).toBe(calls);
    expect((await api(relay, '/v1/audio/speech', { token, body: { model: 'tts-1', input: 'x', voice_id: 'any-voice' } })).status).toBe(200);
    expect((await api(relay, '/v1/audio/speech', { token, body: { input: 'the platform default model' } })).status).toBe(200);
    expect((await api(relay, '/v1/ocr', { token, body: { model: 'ocr-1', document: { type: 'document_url', document_url: PDF } } })).status).toBe(200);
    expect((await api(relay, '/v1/client/sessions', { token, body: { purpose: 'realtime', model: 'rt-1' } })).status).toBe(201);
  });

  it('a session narrowed to conversations cannot reach speech, transcription, OCR or model reads', async () => {
    const { relay, token } = await narrowed({ scopes: ['conversations'], agents: ['ag_shop'], models: [] });
    for (const [path, body] of [['/v1/audio/speech', { input: 'x' }], ['/v1/ocr', { model: 'ocr-1' }], ['/v1/client/sessions', { purpose: 'realtime', model: 'rt-1' }]] as const) {
      await expectRefused(await api(relay, path, { token, body }), 'scope_not_allowed');
    }
    await expectRefused(await api(relay, '/v1/models', { token }), 'scope_not_allowed');
  });
});

describe('the library default policy is locked down', () => {
  it('createRelay without a policy: conversations only, with no agent and no model; other scopes refused', async () => {
    const upstream = conversationUpstream();
    const relay = createRelay({ upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: upstream.fetch }, basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET });
    const { token } = await openSession(relay);
    await expectRefused(await api(relay, '/v1/conversations', { token, body: { model: 'any-model', inputs: 'x' } }), 'model_not_allowed');
    await expectRefused(await api(relay, '/v1/conversations', { token, body: { agent_id: 'ag_any', inputs: 'x' } }), 'agent_not_allowed');
    await expectRefused(await api(relay, '/v1/audio/speech', { token, body: { input: 'x' } }), 'scope_not_allowed');
    await expectRefused(await api(relay, '/v1/models', { token }), 'scope_not_allowed');
    await expectRefused(await api(relay, '/v1/agents/ag_any', { token }), 'scope_not_allowed');
    expect(upstream.calls).toHaveLength(0);
    // Naming an agent opens exactly that agent.
    const named = createRelay({ upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: upstream.fetch }, basePath: '/api', allowedOrigins: [ORIGIN], secret: SECRET, policy: { agents: ['ag_shop'] } });
    const s = await openSession(named);
    expect((await api(named, '/v1/conversations', { token: s.token, body: { agent_id: 'ag_shop', inputs: 'x' } })).status).toBe(200);
    await expectRefused(await api(named, '/v1/conversations', { token: s.token, body: { model: 'any-model', inputs: 'x' } }), 'model_not_allowed');
  });
});
