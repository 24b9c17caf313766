// @vitest-environment happy-dom
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { collect, platformClient, startPlatform } from './helpers.js';

// fetchEventSource behaves differently when window/document exist; the stream must work the same.
let platform: Platform;
beforeAll(async () => { platform = await startPlatform({ tokenDelayMs: 5 }); });
afterAll(() => platform.close());

test('streams under a DOM environment too (window, document, hidden page)', async () => {
  expect(typeof window).toBe('object');
  const client = platformClient(platform);
  const stream = client.conversations.start({ model: 'parley-local', inputs: 'hello under happy-dom' });
  const { events, error } = await collect(stream);
  expect(error).toBeNull();
  expect(events[0].type).toBe('conversation.response.started');
  expect(events.at(-1)?.type).toBe('conversation.response.done');
});

test('abort under a DOM environment ends quietly', async () => {
  const client = platformClient(platform);
  const stream = client.conversations.start({ model: 'parley-local', inputs: 'a reply to cut short please' });
  let n = 0;
  for await (const event of stream) if (event.type === 'message.output.delta' && ++n === 2) stream.abort();
  expect(n).toBe(2);
});
