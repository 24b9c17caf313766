/**
 * The realtime transcription WebSocket (`/v1/audio/transcriptions/realtime`) over real loopback, against Debian's
 * pocketsphinx (no skip: without it these fail with the platform's 503 error event), with a raw `ws` client and
 * the official SDK's RealtimeTranscription, unmodified.
 */
import { RealtimeTranscription } from '@mistralai/mistralai/extra/realtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { Platform } from '../../src/app.js';
import { createPocketsphinxEngine, POCKETSPHINX_INSTALL, POCKETSPHINX_REALTIME_CARD } from '../../src/engines/transcription/pocketsphinx.js';
import type { TranscriptionEngine } from '../../src/engines/transcription/types.js';
import { serveFetch, type ServedFetch } from 'parley-kit/server';
import { API_KEY, call, startPlatform } from './helpers.js';
import { concat, fixtureSamples, resample } from './transcription-audio.js';

const MODEL = 'voxtral-mini-transcribe-realtime-2602';
const PATH = '/v1/audio/transcriptions/realtime';
const MAX_MESSAGE = 256 * 1024;

/** A pocketsphinx engine serving its realtime card under another id (secrets are scoped to one model; a missing binary). */
function realtimeModel(id: string, options: Parameters<typeof createPocketsphinxEngine>[0] = {}): TranscriptionEngine {
  const engine = createPocketsphinxEngine(options);
  return { ...engine, id, models: () => [{ ...POCKETSPHINX_REALTIME_CARD, id, aliases: [] }] };
}

interface Served { platform: Platform; server: ServedFetch; ws: string }

async function serve(options: Parameters<typeof startPlatform>[0] = {}): Promise<Served> {
  const platform = await startPlatform(options);
  const server = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
  return { platform, server, ws: server.url.replace(/^http/, 'ws') + PATH };
}

async function stop(s: Served) {
  await s.platform.close();
  await s.server.close();
}

/** A raw client that records every server event. */
interface Client {
  ws: WebSocket;
  events: any[];
  /** The first event (already received or not) matching `type`, after index `from`. */
  next(type: string, from?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

function connect(url: string, { key = API_KEY as string | null, protocols, model = MODEL as string | null } = {}): Promise<Client> {
  const target = model === null ? url : `${url}?model=${encodeURIComponent(model)}`;
  const ws = new WebSocket(target, protocols, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  const events: any[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => { events.push(JSON.parse(String(data))); waiters.splice(0).forEach((w) => w()); });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => { waiters.splice(0).forEach((w) => w()); resolve({ code, reason: String(reason) }); }));
  const next = (type: string, from = 0) => new Promise<any>((resolve, reject) => {
    const check = () => {
      const found = events.slice(from).find((e) => e.type === type);
      if (found) return resolve(found);
      if (ws.readyState === WebSocket.CLOSED) return reject(new Error(`closed without ${type}; got ${JSON.stringify(events)}`));
      waiters.push(check);
    };
    check();
  });
  const client = { ws, events, next, closed, send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body) })));
    });
    ws.once('error', reject);
  });
}

const pcm16 = (samples: Float32Array) => {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i] * 32767)));
  return new Uint8Array(out.buffer);
};
const f32le = (samples: Float32Array) => new Uint8Array(samples.slice().buffer);
const silence = (seconds: number) => new Float32Array(Math.round(seconds * 16000));

/** Sends bytes as `input_audio.append` in chunks of `chunkSeconds` of audio, every `everyMs` (faster than real time). */
async function sendAudio(client: Client, bytes: Uint8Array, bytesPerSecond: number, { chunkSeconds = 0.1, everyMs = 10 } = {}) {
  const step = Math.round(bytesPerSecond * chunkSeconds);
  for (let i = 0; i < bytes.length; i += step) {
    client.send({ type: 'input_audio.append', audio: Buffer.from(bytes.subarray(i, i + step)).toString('base64') });
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const words = (text: string) => text.toLowerCase().split(/[^a-z']+/);
const expectFox = (text: string) => expect(words(text)).toEqual(expect.arrayContaining(['fox', 'lazy', 'dog']));

let main: Served;

beforeAll(async () => {
  main = await serve({ transcriptionEngines: [createPocketsphinxEngine({ maxConcurrent: 4 }), realtimeModel('other-realtime'), realtimeModel('missing-realtime', { binary: 'pocketsphinx-not-installed' })], realtimeMaxMessageBytes: MAX_MESSAGE });
});
afterAll(async () => {
  await stop(main);
});

describe('realtime transcription session', () => {
  it('streams language, text deltas and segments per utterance, then done and a 1000 close', async () => {
    const c = await connect(main.ws);
    const created = await c.next('session.created');
    expect(created.session).toMatchObject({ model: MODEL, audio_format: { encoding: 'pcm_s16le', sample_rate: 16000 }, target_streaming_delay_ms: expect.any(Number) });
    expect(created.session.request_id).toMatch(/^[0-9a-f]{32}$/);
    const fox = fixtureSamples('fox').samples;
    const audio = concat(fox, silence(1), fixtureSamples('call').samples, silence(0.5));
    await sendAudio(c, pcm16(audio), 32000);
    c.send({ type: 'input_audio.end' });
    const done = await c.next('transcription.done');
    expect((await c.closed).code).toBe(1000);

    const types = c.events.map((e) => e.type);
    expect(types[0]).toBe('session.created');
    expect(types.filter((t) => t === 'transcription.language')).toHaveLength(1);
    expect(types.indexOf('transcription.language')).toBeLessThan(types.indexOf('transcription.text.delta'));
    expect(types.at(-1)).toBe('transcription.done');
    expect(c.events.find((e) => e.type === 'transcription.language').audio_language).toBe('en');
    const deltas = c.events.filter((e) => e.type === 'transcription.text.delta').map((e) => e.text);
    const segments = c.events.filter((e) => e.type === 'transcription.segment');
    expect(deltas).toHaveLength(2);
    expect(deltas[1].startsWith(' ')).toBe(true);
    expect(deltas.join('')).toBe(done.text);
    expectFox(deltas[0]);
    expect(words(deltas[1])).toEqual(expect.arrayContaining(['call', 'back']));
    expect(segments.map((s) => s.text)).toEqual(deltas.map((d) => d.trim()));
    expect(segments.every((s) => s.speaker_id === null)).toBe(true);
    expect(segments[0].end).toBeLessThanOrEqual(fox.length / 16000 + 0.05);
    expect(segments[1].start).toBeGreaterThan(fox.length / 16000 + 0.9);
    expect(done).toMatchObject({ model: MODEL, language: 'en', usage: { prompt_audio_seconds: Math.ceil(audio.length / 16000) } });
    expect(done.segments.map((s: any) => [s.type, s.text, s.start, s.end])).toEqual(segments.map((s) => ['transcription_segment', s.text, s.start, s.end]));
  });

  it('takes 48 kHz float32 audio after session.update and transcribes it resampled', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    c.send({ type: 'session.update', session: { audio_format: { encoding: 'pcm_f32le', sample_rate: 48000 }, target_streaming_delay_ms: 800 } });
    const updated = await c.next('session.updated');
    expect(updated.session).toMatchObject({ model: MODEL, audio_format: { encoding: 'pcm_f32le', sample_rate: 48000 }, target_streaming_delay_ms: 800 });
    const fox48k = resample(concat(fixtureSamples('fox').samples, silence(0.3)), 16000, 48000);
    await sendAudio(c, f32le(fox48k), 48000 * 4);
    c.send({ type: 'input_audio.end' });
    const done = await c.next('transcription.done');
    expectFox(done.text);
    expect(done.usage.prompt_audio_seconds).toBe(Math.ceil(fox48k.length / 48000));
  });

  it('input_audio.flush ends the utterance at once; later times leave out the silence it inserted', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    const fox = fixtureSamples('fox').samples;
    await sendAudio(c, pcm16(fox), 32000);
    c.send({ type: 'input_audio.flush' });
    const first = await c.next('transcription.text.delta');
    expectFox(first.text);
    expect(c.events.some((e) => e.type === 'transcription.done')).toBe(false);
    const from = c.events.length;
    await sendAudio(c, pcm16(fixtureSamples('weather').samples), 32000);
    c.send({ type: 'input_audio.flush' });
    const second = await c.next('transcription.segment', from);
    expect(words(second.text)).toEqual(expect.arrayContaining(['weather']));
    // The second sentence starts right after the first in the audio sent (the flush's 1 s of silence is not counted).
    expect(second.start).toBeGreaterThan(fox.length / 16000 - 0.1);
    expect(second.start).toBeLessThan(fox.length / 16000 + 0.6);
    c.send({ type: 'input_audio.end' });
    const done = await c.next('transcription.done');
    expect(done.text).toBe(`${first.text} ${second.text}`);
  });

  it('answers bad messages with error events and keeps the session usable', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    const errorAfter = async (message: unknown, binary = false) => {
      const from = c.events.length;
      if (binary) c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      else c.send(message);
      return (await c.next('error', from)).error;
    };
    expect(await errorAfter('{not json')).toMatchObject({ code: 400, message: expect.stringMatching(/JSON/) });
    expect(await errorAfter(null, true)).toMatchObject({ code: 400, message: expect.stringMatching(/Binary frames/) });
    expect(await errorAfter('[1,2]')).toMatchObject({ code: 422 });
    expect(await errorAfter({ type: 'input_audio.commit' })).toMatchObject({ code: 400, message: expect.stringMatching(/Unknown message type 'input_audio.commit'/) });
    expect(await errorAfter({ type: 'input_audio.append', audio: 'not base64!' })).toMatchObject({ code: 422, message: expect.stringMatching(/^audio: .*base64/) });
    expect(await errorAfter({ type: 'input_audio.append' })).toMatchObject({ code: 422, message: 'audio: Field required' });
    expect(await errorAfter({ type: 'session.update', session: { audio_format: { encoding: 'pcm_s24le', sample_rate: 16000 } } }))
      .toMatchObject({ code: 422, message: expect.stringMatching(/^session\.audio_format\.encoding: Input should be one of 'pcm_s16le'/) });
    expect(await errorAfter({ type: 'session.update', session: { audio_format: { encoding: 'pcm_s16le', sample_rate: 11025 } } }))
      .toMatchObject({ code: 422, message: expect.stringMatching(/^session\.audio_format\.sample_rate/) });
    expect(await errorAfter({ type: 'session.update' })).toMatchObject({ code: 422, message: 'session: Field required' });
    expect(await errorAfter({ type: 'input_audio.append', audio: 'A'.repeat(MAX_MESSAGE + 4) })).toMatchObject({ code: 413 });
    // None of that changed the session: audio still works, and the format is now fixed.
    await sendAudio(c, pcm16(concat(fixtureSamples('fox').samples, silence(0.3))), 32000);
    expect(await errorAfter({ type: 'session.update', session: { audio_format: { encoding: 'pcm_s16le', sample_rate: 48000 } } }))
      .toMatchObject({ code: 400, message: expect.stringMatching(/only accepted before the first input_audio.append/) });
    c.send({ type: 'input_audio.end' });
    expect(await errorAfter({ type: 'input_audio.flush' })).toMatchObject({ code: 400, message: expect.stringMatching(/after input_audio.end/) });
    expectFox((await c.next('transcription.done')).text);
    expect((await c.closed).code).toBe(1000);
    expect(c.events.filter((e) => e.type === 'session.updated')).toHaveLength(0);
  });

  it('closes the socket with 1009 on a frame over 4× the message limit (not even read)', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    c.send({ type: 'input_audio.append', audio: 'A'.repeat(4 * MAX_MESSAGE + 4) });
    expect((await c.closed).code).toBe(1009);
  });

  it('refuses a model without realtime transcription with error 400 and close 1008', async () => {
    for (const model of ['no-such-model', 'voxtral-mini-latest', 'parley-local', null]) {
      const c = await connect(main.ws, { model });
      const closed = await c.closed;
      expect(c.events).toEqual([{ type: 'error', error: { code: 400, message: expect.stringMatching(model ? /^Invalid model/ : /^Missing model/) } }]);
      expect(closed.code).toBe(1008);
    }
  });
});

describe('realtime transcription auth', () => {
  const mint = async (model: string, ttl_seconds?: number) =>
    (await call(main.platform, '/v1/client/sessions', { body: { purpose: 'realtime', model, ttl_seconds } })).json.client_secret.value as string;

  it('refuses a missing or wrong key with HTTP 401 and the platform error body, before the upgrade', async () => {
    for (const key of [null, 'wrong-key']) {
      const err: any = await connect(main.ws, { key }).catch((e) => e);
      expect(err.status).toBe(401);
      expect(err.body).toMatchObject({ object: 'error', type: 'authentication_error', code: 'unauthorized', message: expect.stringMatching(/rt_/) });
    }
    const err: any = await connect(main.ws, { key: null, protocols: ['realtime', 'rt_unknown'] }).catch((e) => e);
    expect(err.status).toBe(401);
  });

  it('accepts a client secret in the subprotocols, answering with the realtime subprotocol, reusable until it expires', async () => {
    const secret = await mint('voxtral-mini-transcribe-realtime-latest');
    expect(secret).toMatch(/^rt_[A-Za-z0-9_-]{20,}$/);
    for (let i = 0; i < 2; i++) {
      const c = await connect(main.ws, { key: null, protocols: ['realtime', secret] });
      expect(c.ws.protocol).toBe('realtime');
      expect((await c.next('session.created')).session.model).toBe(MODEL);
      c.ws.close();
      await c.closed;
    }
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 901_000);
      const err: any = await connect(main.ws, { key: null, protocols: ['realtime', secret] }).catch((e) => e);
      expect(err.status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a client secret minted for another model with error 403 and close 1008', async () => {
    const secret = await mint('other-realtime');
    const c = await connect(main.ws, { key: null, protocols: ['realtime', secret] });
    const closed = await c.closed;
    expect(c.events).toEqual([{ type: 'error', error: { code: 403, message: expect.stringMatching(/for model other-realtime/) } }]);
    expect(closed.code).toBe(1008);
  });
});

describe('realtime transcription limits', () => {
  it('closes an idle session and one that lasts too long with error 408 and close 1008; platform.close() closes the rest (1001)', async () => {
    const s = await serve({ realtimeIdleTimeoutMs: 800, realtimeMaxSessionMs: 2000 });
    const idle = await connect(s.ws);
    const long = await connect(s.ws);
    await long.next('session.created');
    const clients = [long];
    const ticking = setInterval(() => {
      for (const c of clients) c.send({ type: 'input_audio.append', audio: Buffer.from(pcm16(silence(0.1))).toString('base64') });
    }, 100);
    let open: Client | undefined;
    try {
      expect((await idle.closed).code).toBe(1008);
      expect(idle.events).toEqual([expect.objectContaining({ type: 'session.created' }), { type: 'error', error: { code: 408, message: expect.stringMatching(/no message for/) } }]);
      open = await connect(s.ws);
      clients.push(open);
      expect((await long.closed).code).toBe(1008);
      expect(long.events.at(-1)).toEqual({ type: 'error', error: { code: 408, message: expect.stringMatching(/maximum length/) } });
    } finally {
      clearInterval(ticking);
    }
    await stop(s);
    // `open` connected about 0.8 s after `long`, so it was still open when the platform closed.
    expect((await open!.closed).code).toBe(1001);
  });

  it('names the install command with error 503 when pocketsphinx is missing', async () => {
    const c = await connect(main.ws, { model: 'missing-realtime' });
    expect((await c.closed).code).toBe(1011);
    expect(c.events).toEqual([{ type: 'error', error: { code: 503, message: expect.stringContaining(POCKETSPHINX_INSTALL) } }]);
  });

  it('leaves other upgrade paths to the next handler (404 from the adapter)', async () => {
    const err: any = await new Promise((resolve) => {
      const ws = new WebSocket(main.ws.replace(PATH, '/v1/other'), { headers: { authorization: `Bearer ${API_KEY}` } });
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
      ws.once('error', resolve);
    });
    expect(err.status).toBe(404);
  });
});

describe('realtime transcription with the official SDK', () => {
  it('RealtimeTranscription.transcribeStream parses every event (no unknown events)', async () => {
    const client = new RealtimeTranscription({ apiKey: API_KEY, serverURL: main.server.url });
    const bytes = pcm16(concat(fixtureSamples('fox').samples, silence(0.3)));
    async function* audio() {
      for (let i = 0; i < bytes.length; i += 3200) {
        yield bytes.subarray(i, i + 3200);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    const events: any[] = [];
    for await (const event of client.transcribeStream(audio(), MODEL, { audioFormat: { encoding: 'pcm_s16le', sampleRate: 16000 } })) events.push(event);
    expect(events.filter((e) => 'raw' in e)).toEqual([]);
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['session.created', 'session.updated', 'transcription.language', 'transcription.text.delta', 'transcription.segment', 'transcription.done']));
    const done = events.at(-1);
    expect(done.type).toBe('transcription.done');
    expectFox(done.text);
    expect(done.usage.promptAudioSeconds).toBe(Math.ceil(bytes.length / 32000));
  });

  it('connect() rejects with the error event of an unknown model', async () => {
    const client = new RealtimeTranscription({ apiKey: API_KEY, serverURL: main.server.url });
    await expect(client.connect('no-such-model')).rejects.toThrow(/Invalid model: no-such-model/);
  });
});

describe('realtime transcription under a flood', () => {
  it('answers refused messages one by one up to 20, then closes with 1008 and reads no more', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    for (let i = 0; i < 1000; i++) c.ws.send('x');
    expect(await c.closed).toEqual({ code: 1008, reason: 'Session closed: too many invalid messages (more than 20)' });
    const errors = c.events.filter((e) => e.type === 'error').map((e) => e.error);
    expect(errors).toHaveLength(21);
    expect(errors.slice(0, 20).every((e) => e.code === 400 && e.message.startsWith('Message is not valid JSON'))).toBe(true);
    expect(errors[20]).toEqual({ code: 400, message: 'Session closed: too many invalid messages (more than 20)' });
  });

  it('closes a client sending more than its burst above the message rate with 429 and 1008', async () => {
    const c = await connect(main.ws);
    await c.next('session.created');
    for (let i = 0; i < 1000; i++) c.send({ type: 'session.update', session: {} });
    expect((await c.closed).code).toBe(1008);
    // The burst and what the rate refilled meanwhile were answered; the rest was not read.
    expect(c.events.filter((e) => e.type === 'session.updated').length).toBeLessThan(1000);
    expect(c.events.filter((e) => e.type === 'error').map((e) => e.error)).toEqual([
      { code: 429, message: 'Session closed: too many messages (at most 100 a second, 400 at once)' },
    ]);
  });

  it('stops reading a client that does not read its replies, and closes it after the stall timeout', async () => {
    const s = await serve({ realtimeFlood: { maxBufferedBytes: 1024, stallTimeoutMs: 300, messagesPerSecond: 1_000_000, messageBurst: 1_000_000 } });
    try {
      const c = await connect(s.ws);
      await c.next('session.created');
      c.ws.pause();
      let open = true;
      void c.closed.then(() => { open = false; });
      // Session updates as fast as they are taken, each answered: the answers pile up unread.
      const update = JSON.stringify({ type: 'session.update', session: {} });
      while (open && c.ws.readyState === WebSocket.OPEN) {
        for (let i = 0; i < 50 && c.ws.bufferedAmount < 1024 * 1024; i++) c.ws.send(update);
        await new Promise((r) => setTimeout(r, 5));
        if (c.ws.bufferedAmount >= 1024 * 1024) break;
      }
      c.ws.resume();
      // 1008 when the close frame got through before the platform cut the socket, 1006 when it did not.
      expect([1008, 1006]).toContain((await c.closed).code);
    } finally {
      await stop(s);
    }
  });
});
