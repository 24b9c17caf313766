// The relay's realtime WebSocket in front of the real local platform (pocketsphinx), both on loopback
// ports: a page socket streams fox.wav and reads the words; the platform's own refusals pass through.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { createRelay, serveRelay, type Relay, type ServedRelay } from '../../../src/relay/index.js';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { wavS16 } from '../../browser/helpers/wav.js';
import { OPEN_POLICY, ORIGIN, SECRET, openSession } from './helpers.js';
import { openPage, ticketFor } from './realtime-helpers.js';

const KEY = 'platform-key-relay-realtime-7c1e';
const MODEL = 'voxtral-mini-transcribe-realtime-2602';

let platform: Platform;
let platformServer: ServedFetch;
let relay: Relay;
let served: ServedRelay;

beforeAll(async () => {
  platform = createPlatform({ apiKey: KEY, onError: () => {} });
  await platform.ready();
  platformServer = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
  relay = createRelay({
    upstream: { baseUrl: platformServer.url, apiKey: KEY },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: SECRET,
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 2 } },
    onError: () => {},
  });
  served = await serveRelay(relay);
});
afterAll(async () => {
  await served.close();
  await platformServer.close();
  await platform.close();
});

describe('relay realtime WebSocket → local platform', () => {
  it('streams fox.wav as s16le and gets the sentence back; the platform key never reaches the page', async () => {
    const { token } = await openSession(relay);
    const page = await openPage(served.url, `/api/v1/audio/transcriptions/realtime?model=${MODEL}`, ['realtime', await ticketFor(relay, token)]);
    if (page.kind !== 'open') throw new Error(`refused ${page.status} ${page.body}`);
    expect(page.protocol).toBe('realtime');
    expect((await page.next('session.created')).session.audio_format).toEqual({ encoding: 'pcm_s16le', sample_rate: 16000 });
    const { samples } = wavS16(new Uint8Array(readFileSync(new URL('../../fixtures/transcription/fox.wav', import.meta.url))));
    const padded = new Int16Array(samples.length + 8000);
    padded.set(samples);
    for (let i = 0; i < padded.length; i += 3200) {
      const chunk = padded.subarray(i, i + 3200);
      page.socket.send(JSON.stringify({ type: 'input_audio.append', audio: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64') }));
    }
    page.socket.send(JSON.stringify({ type: 'input_audio.end' }));
    const done = await page.next('transcription.done');
    for (const word of ['fox', 'lazy', 'dog']) expect(done.text.toLowerCase()).toContain(word);
    expect(page.messages.map((m) => m.type)).toContain('transcription.text.delta');
    expect((await page.closed).code).toBe(1000);
    expect(page.raw.join('\n')).not.toContain(KEY);
  });

  it("passes the platform's own error for a model it has no realtime engine for", async () => {
    const { token } = await openSession(relay);
    const page = await openPage(served.url, '/api/v1/audio/transcriptions/realtime?model=parley-local', ['realtime', await ticketFor(relay, token, 'parley-local')]);
    if (page.kind !== 'open') throw new Error(`refused ${page.status} ${page.body}`);
    expect((await page.next('error')).error).toMatchObject({ code: 400, message: expect.stringContaining('parley-local') });
    expect((await page.closed).code).not.toBe(1000);
  });
});
