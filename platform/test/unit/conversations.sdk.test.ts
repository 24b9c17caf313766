import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mistral } from '@mistralai/mistralai';
import { Mistral as MistralClient } from '@mistralai/mistralai';
import type { Platform } from '../../src/app.js';
import { serveFetch } from '../../src/node.js';
import { API_KEY, startPlatform, weatherTool } from './helpers.js';
import { drain, sdkFor } from './sdk.js';

let platform: Platform;
let sdk: Mistral;
beforeAll(async () => { platform = await startPlatform(); sdk = sdkFor(platform); });
afterAll(async () => { await platform.close(); });

describe('official SDK against the local platform: conversations', () => {
  it('start, append, getHistory, getMessages, get, list, delete all parse', async () => {
    const started = await sdk.beta.conversations.start({ model: 'parley-local', inputs: 'Hello from the SDK', metadata: { sdk: true } });
    expect(started.conversationId).toMatch(/^conv_/);
    expect(started.outputs[0]).toMatchObject({ type: 'message.output', role: 'assistant' });
    expect(started.outputs[0].createdAt).toBeInstanceOf(Date);
    const id = started.conversationId;

    const appended = await sdk.beta.conversations.append({ conversationId: id, conversationAppendRequest: { inputs: 'And again' } });
    expect(appended.conversationId).toBe(id);

    const history = await sdk.beta.conversations.getHistory({ conversationId: id });
    expect(history.entries).toHaveLength(4);
    const messages = await sdk.beta.conversations.getMessages({ conversationId: id });
    expect(messages.messages).toHaveLength(4);

    const got = await sdk.beta.conversations.get({ conversationId: id });
    expect(got.id).toBe(id);
    expect('model' in got && got.model).toBe('parley-local');

    const list = await sdk.beta.conversations.list({ page: 0, pageSize: 10 });
    expect(list.some((c) => c.id === id)).toBe(true);

    await sdk.beta.conversations.delete({ conversationId: id });
    await expect(sdk.beta.conversations.get({ conversationId: id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('startStream, appendStream and restartStream yield only known events', async () => {
    const events = await drain(await sdk.beta.conversations.startStream({ model: 'parley-local', inputs: 'Show me some markdown' }));
    expect(events[0].data.type).toBe('conversation.response.started');
    expect(events.at(-1)!.data.type).toBe('conversation.response.done');
    const id = (events[0].data as any).conversationId as string;

    const more = await drain(await sdk.beta.conversations.appendStream({ conversationId: id, conversationAppendStreamRequest: { inputs: 'Another' } }));
    expect(more.at(-1)!.data.type).toBe('conversation.response.done');

    const history = await sdk.beta.conversations.getHistory({ conversationId: id });
    const restarted = await drain(await sdk.beta.conversations.restartStream({
      conversationId: id, conversationRestartStreamRequest: { fromEntryId: history.entries[0].id!, inputs: 'Instead' },
    }));
    expect((restarted[0].data as any).conversationId).not.toBe(id);
  });

  it('restart (JSON) parses', async () => {
    const started = await sdk.beta.conversations.start({ model: 'parley-local', inputs: 'one' });
    const history = await sdk.beta.conversations.getHistory({ conversationId: started.conversationId });
    const restarted = await sdk.beta.conversations.restart({
      conversationId: started.conversationId, conversationRestartRequest: { fromEntryId: history.entries[1].id!, inputs: 'two' },
    });
    expect(restarted.conversationId).not.toBe(started.conversationId);
  });

  it('function calls and results round-trip through the SDK, streamed and not', async () => {
    const started = await sdk.beta.conversations.start({ model: 'parley-local', inputs: 'What is the weather in Lyon? use get_weather', tools: [weatherTool as any] });
    const call = started.outputs.find((o) => o.type === 'function.call') as any;
    expect(call).toBeDefined();
    expect(call.toolCallId).toMatch(/^[A-Za-z0-9]{9}$/);
    const resumed = await sdk.beta.conversations.append({
      conversationId: started.conversationId,
      conversationAppendRequest: { inputs: [{ type: 'function.result', toolCallId: call.toolCallId, result: '{"temperature": 18}' }] },
    });
    expect(resumed.outputs[0].type).toBe('message.output');

    const events = await drain(await sdk.beta.conversations.startStream({ model: 'parley-local', inputs: 'get weather for Oslo', tools: [weatherTool as any] }));
    expect(events.some((e) => e.data.type === 'function.call.delta')).toBe(true);
  });

  it('agent conversations with handoffs parse, streamed and not', async () => {
    const billing = await sdk.beta.agents.create({ model: 'parley-local', name: 'Billing' });
    const front = await sdk.beta.agents.create({ model: 'parley-local', name: 'Front', handoffs: [billing.id] });
    const res = await sdk.beta.conversations.start({ agentId: front.id, inputs: 'transfer me to Billing' });
    expect(res.outputs.map((o) => o.type)).toEqual(['agent.handoff', 'message.output']);
    const events = await drain(await sdk.beta.conversations.startStream({ agentId: front.id, inputs: 'transfer me to Billing' }));
    expect(events.map((e) => e.data.type)).toContain('agent.handoff.done');
    const conv = await sdk.beta.conversations.get({ conversationId: res.conversationId });
    expect('agentId' in conv && conv.agentId).toBe(front.id);
  });

  it('a failing turn surfaces as conversation.response.error through the SDK stream', async () => {
    const events = await drain(await sdk.beta.conversations.startStream({ model: 'parley-local', inputs: '/fail' }));
    expect(events.at(-1)!.data.type).toBe('conversation.response.error');
  });

  it('validation errors come back as the SDK\'s HTTPValidationError', async () => {
    const err = await sdk.beta.conversations.restart({ conversationId: 'conv_00000000000000000000000000000000', conversationRestartRequest: { fromEntryId: 'x' } }).catch((e) => e);
    expect(err.statusCode).toBe(404);
    const started = await sdk.beta.conversations.start({ model: 'parley-local', inputs: 'x' });
    const bad = await sdk.beta.conversations.restart({ conversationId: started.conversationId, conversationRestartRequest: { fromEntryId: 'nope' } }).catch((e) => e);
    expect(bad.name).toBe('HTTPValidationError');
    expect(bad.statusCode).toBe(422);
  });

  it('models.list and models.retrieve parse with no unknown cards', async () => {
    const list = await sdk.models.list();
    for (const m of list.data ?? []) expect((m as any).isUnknown).toBeUndefined();
    const card = await sdk.models.retrieve({ modelId: 'parley-local' });
    expect(card.id).toBe('parley-local');
  });

  it('works over real HTTP on loopback through the Node adapter', async () => {
    const server = await serveFetch(platform.fetch);
    try {
      const client = new MistralClient({ apiKey: API_KEY, serverURL: server.url });
      const events = await drain(await client.beta.conversations.startStream({ model: 'parley-local', inputs: 'over the wire' }));
      expect(events.at(-1)!.data.type).toBe('conversation.response.done');
      const res = await client.beta.conversations.start({ model: 'parley-local', inputs: 'json over the wire' });
      expect(res.outputs).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
