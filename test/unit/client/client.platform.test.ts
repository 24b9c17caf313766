import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import type { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import type { ConversationEvent } from '../../../src/client/types.js';
import { collect, platformClient, startPlatform, weatherTool } from './helpers.js';

let platform: Platform;
let client: ParleyClient;

beforeAll(async () => {
  platform = await startPlatform();
  client = platformClient(platform);
});
afterAll(() => platform.close());

function types(events: ConversationEvent[]): string[] {
  return [...new Set(events.map((e) => e.type))];
}

describe('client against the local platform', () => {
  test('start streams started → deltas → done, and the deltas add up to the stored reply', async () => {
    const stream = client.conversations.start({ model: 'parley-local', inputs: 'Hello from the client test' });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    expect(types(events)).toEqual(['conversation.response.started', 'message.output.delta', 'conversation.response.done']);
    const id = await stream.conversationId;
    expect(id).toMatch(/^conv_[0-9a-f]{32}$/);
    const text = events.filter((e) => e.type === 'message.output.delta').map((e) => (e as any).content).join('');
    const history = await client.conversations.history(id);
    expect(history.entries.map((e) => e.type)).toEqual(['message.input', 'message.output']);
    expect(history.entries[1]).toMatchObject({ content: text, id: (events[1] as any).id });
    expect(await client.conversations.get(id)).toMatchObject({ id, model: 'parley-local' });
    expect((await client.conversations.messages(id)).messages).toHaveLength(2);
  });

  test('append continues the conversation; restart makes a new one from an entry', async () => {
    const first = client.conversations.start({ model: 'parley-local', inputs: 'one' });
    await collect(first);
    const id = await first.conversationId;
    const append = client.conversations.append(id, { inputs: 'two' });
    const appended = await collect(append);
    expect(appended.error).toBeNull();
    expect(await append.conversationId).toBe(id);
    const history = await client.conversations.history(id);
    expect(history.entries).toHaveLength(4);

    const restart = client.conversations.restart(id, { from_entry_id: history.entries[1].id, inputs: 'two, again' });
    const restarted = await collect(restart);
    expect(types(restarted.events)).toEqual(['conversation.response.started', 'message.output.delta', 'conversation.response.done']);
    const newId = await restart.conversationId;
    expect(newId).not.toBe(id);
    const newHistory = await client.conversations.history(newId);
    expect(newHistory.entries.slice(0, 2).map((e) => e.id)).toEqual(history.entries.slice(0, 2).map((e) => e.id));
    expect(newHistory.entries[2]).toMatchObject({ type: 'message.input', content: 'two, again' });
  });

  test('a function tool call streams function.call.delta events', async () => {
    const stream = client.conversations.start({ model: 'parley-local', inputs: 'use get_weather for Paris', tools: [weatherTool] });
    const { events, error } = await collect(stream);
    expect(error).toBeNull();
    expect(types(events)).toEqual(['conversation.response.started', 'function.call.delta', 'conversation.response.done']);
    const args = events.filter((e) => e.type === 'function.call.delta').map((e) => (e as any).arguments).join('');
    expect(JSON.parse(args)).toMatchObject({ city: 'Paris' });
  });

  test('/fail yields some deltas and the error event, then throws its message', async () => {
    const { events, error } = await collect(client.conversations.start({ model: 'parley-local', inputs: '/fail' }));
    expect(events.filter((e) => e.type === 'message.output.delta').length).toBeGreaterThan(0);
    expect(events.at(-1)?.type).toBe('conversation.response.error');
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).message).toMatch(/failed on purpose/);
  });

  test('validation errors come back as PlatformError with detail', async () => {
    const { error } = await collect(client.conversations.restart('conv_00000000000000000000000000000000', { from_entry_id: 'x' }));
    expect(error).toMatchObject({ status: 404, type: 'invalid_request_error' });
    const missing = await collect(client.conversations.start({ inputs: 'hi' }));
    expect(missing.error).toMatchObject({ status: 422 });
    expect((missing.error as PlatformError).detail?.[0].loc).toEqual(['body', 'model']);
  });

  test('a wrong key is a 401 PlatformError', async () => {
    const bad = platformClient(platform, { getToken: async () => 'wrong' });
    await expect(bad.models.list()).rejects.toMatchObject({ status: 401, type: 'authentication_error' });
  });

  test('abort mid-stream ends quietly, and the platform keeps what was produced', async () => {
    const slow = await startPlatform({ tokenDelayMs: 20 });
    try {
      const c = platformClient(slow);
      const stream = c.conversations.start({ model: 'parley-local', inputs: 'Tell me a long story about markdown tables and code' });
      let deltas = 0;
      for await (const event of stream) {
        if (event.type === 'message.output.delta' && ++deltas === 3) stream.abort();
      }
      expect(deltas).toBe(3);
      const id = await stream.conversationId;
      // The platform saves the cut reply once it notices the abort.
      let history = await c.conversations.history(id);
      for (let i = 0; i < 50 && history.entries.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
        history = await c.conversations.history(id);
      }
      expect(history.entries[1]?.type).toBe('message.output');
      expect(history.entries[1]?.completed_at ?? null).toBeNull();
    } finally {
      await slow.close();
    }
  });
});
