/** `POST /v1/client/sessions` (short-lived `rt_` secrets for the realtime WebSocket) and the realtime model card. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ISO_Z, call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';
import { fixtureWav } from './transcription-audio.js';

const PATH = '/v1/client/sessions';
const MODEL = 'voxtral-mini-transcribe-realtime-2602';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(async () => { await platform.close(); });

/** Calls `make`, and checks that `expiresAt(result)` is `ttlSeconds` after a moment while it ran. */
async function expectExpiry<T>(make: () => Promise<T>, expiresAt: (result: T) => string | Date, ttlSeconds: number): Promise<T> {
  const before = Date.now();
  const result = await make();
  const after = Date.now();
  const at = new Date(expiresAt(result)).getTime();
  expect(at, `${ttlSeconds} s after the request`).toBeGreaterThanOrEqual(before + ttlSeconds * 1000);
  expect(at).toBeLessThanOrEqual(after + ttlSeconds * 1000);
  return result;
}

describe('POST /v1/client/sessions', () => {
  it('mints an rt_ secret for a realtime model: 201, default 900 s', async () => {
    const res = await expectExpiry(() => call(platform, PATH, { body: { purpose: 'realtime', model: MODEL } }), (r) => r.json.expires_at, 900);
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ object: 'client.session', purpose: 'realtime', expires_at: expect.stringMatching(ISO_Z), client_secret: { value: expect.stringMatching(/^rt_[A-Za-z0-9_-]{32}$/), expires_at: res.json.expires_at } });
    const again = await expectExpiry(() => call(platform, PATH, { body: { purpose: 'realtime', model: 'parley-pocketsphinx-realtime', ttl_seconds: 60 } }), (r) => r.json.expires_at, 60);
    expect(again.json.client_secret.value).not.toBe(res.json.client_secret.value);
  });

  it('is parsed by the official SDK (realtime.sessions.create)', async () => {
    const session = await expectExpiry(() => sdkFor(platform).realtime.sessions.create({ purpose: 'realtime', model: MODEL, ttlSeconds: 120 }), (s) => s.expiresAt, 120);
    expect(session.clientSecret.value).toMatch(/^rt_/);
    expect(session.expiresAt).toBeInstanceOf(Date);
  });

  it('answers bad bodies with 422 FastAPI detail', async () => {
    const cases: Array<[unknown, Array<string | number>, string]> = [
      [{ model: MODEL }, ['body', 'purpose'], 'missing'],
      [{ purpose: 'chat', model: MODEL }, ['body', 'purpose'], 'literal_error'],
      [{ purpose: 'realtime' }, ['body', 'model'], 'missing'],
      [{ purpose: 'realtime', model: 7 }, ['body', 'model'], 'string_type'],
      [{ purpose: 'realtime', model: MODEL, ttl_seconds: 5 }, ['body', 'ttl_seconds'], 'greater_than_equal'],
      [{ purpose: 'realtime', model: MODEL, ttl_seconds: 3601 }, ['body', 'ttl_seconds'], 'less_than_equal'],
      [{ purpose: 'realtime', model: MODEL, ttl_seconds: 1.5 }, ['body', 'ttl_seconds'], 'int_type'],
    ];
    for (const [body, loc, type] of cases) {
      const res = await call(platform, PATH, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.detail[0], JSON.stringify(body)).toMatchObject({ loc, type });
    }
    const notJson = await call(platform, PATH, { rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(422);
    expect(notJson.json.detail[0].type).toBe('json_invalid');
  });

  it('refuses models without realtime transcription (400 invalid_model) and callers without a key (401)', async () => {
    for (const model of ['no-such-model', 'voxtral-mini-latest', 'parley-local', 'parley-espeak']) {
      const res = await call(platform, PATH, { body: { purpose: 'realtime', model } });
      expect(res.status, model).toBe(400);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model', code: '1500' });
    }
    expect((await call(platform, PATH, { body: { purpose: 'realtime', model: MODEL }, key: null })).status).toBe(401);
  });
});

describe('realtime model card', () => {
  it('is listed with audio_transcription_realtime only, found by its aliases', async () => {
    const list = (await call(platform, '/v1/models')).json.data;
    const card = list.find((m: any) => m.id === 'parley-pocketsphinx-realtime');
    expect(card).toMatchObject({ object: 'model', type: 'base', owned_by: 'mistralai', aliases: [MODEL, 'voxtral-mini-transcribe-realtime-latest'] });
    expect(Object.entries(card.capabilities).filter(([, v]) => v).map(([k]) => k)).toEqual(['audio_transcription_realtime']);
    expect((await call(platform, `/v1/models/${MODEL}`)).json.id).toBe('parley-pocketsphinx-realtime');
    const file = list.find((m: any) => m.id === 'parley-pocketsphinx');
    expect(file.capabilities).toMatchObject({ audio_transcription: true, audio_transcription_realtime: false });
  });

  it('is refused by the file transcription route and by conversations', async () => {
    const form = new FormData();
    form.append('model', MODEL);
    form.append('file', new Blob([fixtureWav('weather') as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'weather.wav');
    const file = await call(platform, '/v1/audio/transcriptions', { rawBody: form });
    expect(file.status).toBe(400);
    expect(file.json).toMatchObject({ type: 'invalid_model', param: 'model' });
    const conv = await call(platform, '/v1/conversations', { body: { model: MODEL, inputs: 'hello' } });
    expect(conv.status).toBe(400);
    expect(conv.json).toMatchObject({ type: 'invalid_model' });
  });
});
