// client.transcription under Node, as a page would use it: through the real relay (over loopback HTTP
// and WebSocket) in front of the real local platform (pocketsphinx), plus a scripted realtime upstream
// for the handshake and error paths. The `ws` package stands in for the browser's WebSocket.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { ParleyClient } from '../../../src/client/client.js';
import { PlatformError } from '../../../src/client/errors.js';
import { RelaySession } from '../../../src/client/session.js';
import type { RealtimeServerEvent, TranscriptionStreamEvent } from '../../../src/client/types.js';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { createRelay, serveRelay, type RelayOptions, type ServedRelay } from '../../../src/relay/index.js';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { wavS16 } from '../../browser/helpers/wav.js';
import { fakeRealtimeUpstream } from '../relay/realtime-helpers.js';
import { OPEN_POLICY } from '../relay/helpers.js';
import { collect } from './helpers.js';

const ORIGIN = 'https://shop.example';
const KEY = 'platform-key-transcription-client';
const fox = readFileSync(new URL('../../fixtures/transcription/fox.wav', import.meta.url));
const foxBlob = () => new Blob([fox], { type: 'audio/wav' });

/** What a browser on ORIGIN sends: the Origin header on every request and every socket. */
const pageFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  request.headers.set('origin', ORIGIN);
  return fetch(request);
};
class PageSocket extends NodeWebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { origin: ORIGIN });
  }
}

let platform: Platform;
let platformServer: ServedFetch;
const servers: ServedRelay[] = [];
let client: ParleyClient;

async function relayClient(options: Partial<RelayOptions> = {}, socket: unknown = PageSocket): Promise<ParleyClient> {
  const relay = createRelay({
    upstream: { baseUrl: platformServer.url, apiKey: KEY },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: 'relay-test-secret-0123456789-abcdefghij',
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 4 } },
    onError: () => {},
    ...options,
  });
  const served = await serveRelay(relay);
  servers.push(served);
  const relayUrl = `${served.url}/api`;
  return new ParleyClient({
    baseUrl: relayUrl,
    session: new RelaySession({ relayUrl, fetch: pageFetch }),
    fetch: pageFetch,
    webSocket: socket as typeof WebSocket,
    retry: { retries: 0 },
  });
}

beforeAll(async () => {
  platform = createPlatform({ apiKey: KEY, onError: () => {} });
  await platform.ready();
  platformServer = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
  client = await relayClient();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await platformServer.close();
  await platform.close();
});

const words = (text: string) => text.toLowerCase();

describe('client.transcription files, through the relay to the local platform', () => {
  test('transcribe sends the form and returns the JSON result: the fox sentence', async () => {
    const result = await client.transcription.transcribe(foxBlob(), { timestampGranularities: ['segment'] });
    expect(words(result.text)).toMatch(/fox/);
    expect(words(result.text)).toMatch(/lazy/);
    expect(words(result.text)).toMatch(/dog/);
    expect(result.segments.length).toBeGreaterThan(0);
    expect(result.usage.prompt_audio_seconds).toBeGreaterThan(0);
  });

  test('transcribeStream yields language, deltas, done in order; result is the done payload', async () => {
    const stream = client.transcription.transcribeStream(foxBlob(), { language: 'en', filename: 'fox.wav' });
    const { events, error } = await collect<TranscriptionStreamEvent>(stream);
    expect(error).toBeNull();
    expect(events[0]!.type).toBe('transcription.language');
    expect(events.at(-1)!.type).toBe('transcription.done');
    const deltas = events.filter((e) => e.type === 'transcription.text.delta').map((e) => (e as { text: string }).text).join('');
    const result = await stream.result;
    expect(words(result.text)).toMatch(/fox.*lazy.*dog/);
    expect(deltas.trim()).toBe(result.text.trim());
  });

  test('error answers become PlatformErrors with the status and message', async () => {
    const bad = await client.transcription.transcribe(foxBlob(), { model: 'no-such-model' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PlatformError);
    expect((bad as PlatformError).status).toBe(400);
    expect((bad as PlatformError).message).toMatch(/no-such-model/);

    const text = await client.transcription.transcribe(new Blob(['not audio at all'], { type: 'text/plain' })).catch((e: unknown) => e);
    expect(text).toBeInstanceOf(PlatformError);
    expect((text as PlatformError).status).toBeGreaterThanOrEqual(400);
    expect((text as PlatformError).status).toBeLessThan(500);

    const stream = client.transcription.transcribeStream(foxBlob(), { model: 'no-such-model' });
    const { events, error } = await collect(stream);
    expect(events).toEqual([]);
    expect((error as PlatformError).status).toBe(400);
    await expect(stream.result).rejects.toBeInstanceOf(PlatformError);
  });

  test('abort: a stream ends quietly and its result rejects; an aborted transcribe rejects with AbortError', async () => {
    const stream = client.transcription.transcribeStream(foxBlob());
    stream.abort();
    const { events, error } = await collect(stream);
    expect(events).toEqual([]);
    expect(error).toBeNull();
    await expect(stream.result).rejects.toMatchObject({ name: 'AbortError' });

    const controller = new AbortController();
    const pending = client.transcription.transcribe(foxBlob(), { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('client.transcription.realtime', () => {
  test('streams the fox sentence as s16 PCM through the relay to the platform and gets the words back', async () => {
    const { sampleRate, samples } = wavS16(fox);
    expect(sampleRate).toBe(16000);
    const session = await client.transcription.realtime();
    expect(session.info.audio_format).toEqual({ encoding: 'pcm_s16le', sample_rate: 16000 });
    const events: RealtimeServerEvent[] = [];
    const reading = (async () => { for await (const e of session) events.push(e); })();
    for (let i = 0; i < samples.length; i += 1600) session.append(samples.subarray(i, i + 1600));
    // Half a second of silence, so the engine's voice activity detection ends the utterance.
    session.append(new Int16Array(8000));
    const done = await session.end();
    await reading;
    expect(words(done.text)).toMatch(/fox/);
    expect(words(done.text)).toMatch(/lazy/);
    expect(words(done.text)).toMatch(/dog/);
    expect(events.map((e) => e.type)).toContain('transcription.text.delta');
    expect(events.at(-1)!.type).toBe('transcription.done');
    expect(session.closed).toBe(true);
  });

  test('asks for another sample rate with session.update and waits for session.updated', async () => {
    const upstream = await fakeRealtimeUpstream();
    try {
      const scripted = await relayClient({ upstream: { baseUrl: platformServer.url, apiKey: KEY, webSocketBaseUrl: upstream.url } });
      const session = await scripted.transcription.realtime({ sampleRate: 24000 });
      expect(session.info.audio_format.sample_rate).toBe(24000);
      session.append(new Int16Array(2400));
      session.append(new Int16Array(600).subarray(100, 400));
      expect((await session.end()).text).toBe(`heard ${2400 * 2 + 300 * 2} bytes`);
      expect(upstream.connections[0]!.received[0]).toEqual({ type: 'session.update', session: { audio_format: { encoding: 'pcm_s16le', sample_rate: 24000 } } });
    } finally {
      await upstream.close();
    }
  });

  test('an error event is yielded, then the iteration and end() fail with a PlatformError', async () => {
    const upstream = await fakeRealtimeUpstream();
    try {
      const idle = await relayClient({ upstream: { baseUrl: platformServer.url, apiKey: KEY, webSocketBaseUrl: upstream.url }, realtime: { idleTimeoutMs: 200 } });
      const session = await idle.transcription.realtime();
      const { events, error } = await collect(session);
      expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 408 } });
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).code).toBe('408');
      await expect(session.end()).rejects.toBeInstanceOf(PlatformError);
    } finally {
      await upstream.close();
    }
  });

  test('a refused handshake, a refused ticket and an abort reject realtime()', async () => {
    class ElsewhereSocket extends NodeWebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { origin: 'https://evil.example' });
      }
    }
    const hijacked = await relayClient({}, ElsewhereSocket);
    const refused = await hijacked.transcription.realtime().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformError);
    expect((refused as PlatformError).type).toBe('network_error');

    const oneModel = await relayClient({ policy: { ...OPEN_POLICY, models: ['voxtral-mini-latest'], limits: { requestsPerMinute: 1000, burst: 1000, concurrentStreams: 4 } } });
    const forbidden = await oneModel.transcription.realtime().catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ status: 403, code: 'model_not_allowed' });

    const controller = new AbortController();
    controller.abort();
    await expect(client.transcription.realtime({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
