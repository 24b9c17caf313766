/**
 * `GET /v1/models?provider=…`: every card names its owner in `owned_by` (`mistralai` for the local
 * stand-ins of Mistral's models, `openai-compatible` for an OpenAI-compatible server's model), and
 * `provider` filters on it in any case; a provider that owns nothing lists nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { createLocalChatEngine } from '../../src/engines/chat/local.js';
import { createOpenAICompatibleChatEngine } from '../../src/engines/chat/openai-compatible.js';
import { call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({
    chatEngines: [
      createLocalChatEngine({ tokenDelayMs: 0 }),
      // Never called: listing models does not reach the server.
      createOpenAICompatibleChatEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'llama3.2', fetch: () => Promise.reject(new Error('no server')) }),
    ],
  });
});
afterAll(async () => { await platform.close(); });

const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((m) => m.id);

describe('GET /v1/models?provider', () => {
  it('lists the local stand-ins of Mistral models under mistralai, in any case', async () => {
    const everything = await call(platform, '/v1/models');
    const mistral = await call(platform, '/v1/models?provider=mistralai');
    expect(mistral.status).toBe(200);
    expect(ids(mistral)).toEqual(expect.arrayContaining([
      'parley-local', 'parley-infill', 'parley-embed', 'parley-espeak', 'parley-pocketsphinx', 'parley-pocketsphinx-realtime', 'parley-ocr', 'parley-moderation',
    ]));
    expect(mistral.json.data.every((m: { owned_by: string }) => m.owned_by === 'mistralai')).toBe(true);
    expect(ids(mistral)).toEqual(ids(everything).filter((id: string) => id !== 'llama3.2'));
    expect(ids(await call(platform, '/v1/models?provider=MistralAI'))).toEqual(ids(mistral));
  });

  it('lists an OpenAI-compatible server\'s model under openai-compatible only', async () => {
    const res = await call(platform, '/v1/models?provider=OpenAI-Compatible');
    expect(ids(res)).toEqual(['llama3.2']);
    expect(res.json.data[0].owned_by).toBe('openai-compatible');
  });

  it('answers an empty list for a provider that owns nothing', async () => {
    const res = await call(platform, '/v1/models?provider=anthropic');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: 'list', data: [] });
  });

  it('combines provider with model, and works through the SDK', async () => {
    expect(ids(await call(platform, '/v1/models?provider=mistralai&model=mistral-small-latest'))).toEqual(['parley-local']);
    expect(ids(await call(platform, '/v1/models?provider=openai-compatible&model=mistral-small-latest'))).toEqual([]);
    const sdk = sdkFor(platform);
    const listed = await sdk.models.list({ provider: 'MISTRALAI' });
    expect(listed.data?.length).toBeGreaterThanOrEqual(8);
    for (const card of listed.data ?? []) {
      expect(card).not.toHaveProperty('isUnknown');
      expect(card).toMatchObject({ type: 'base', ownedBy: 'mistralai' });
    }
    expect((await sdk.models.list({ provider: 'nobody' })).data).toEqual([]);
  });
});
