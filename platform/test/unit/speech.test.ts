import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import type { Worker } from 'node:worker_threads';
import { createEspeakSpeechEngine } from '../../src/engines/speech/espeak.js';
import type { SpeechEngine } from '../../src/engines/speech/types.js';
import { API_KEY, BASE, call, parseSse, startPlatform } from './helpers.js';
import { drain, sdkFor } from './sdk.js';
import { decodeFlac, decodeMp3, decodeOpus, parsePcm, parseWav, peak, rms, type Decoded } from './speech-audio.js';

const TEXT = 'The quick brown fox jumps over the lazy dog. Local speech synthesis works offline.';
const LONG = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1} of a long text that the engine reads aloud.`).join(' ');
const FORMATS = ['pcm', 'wav', 'mp3', 'opus', 'flac'] as const;
type Format = (typeof FORMATS)[number];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let platform: Platform;

beforeAll(async () => {
  platform = await startPlatform();
  // Warm the engine (worker start, wasm init).
  expect((await call(platform, '/v1/audio/speech', { body: { input: 'Warm up.', response_format: 'pcm' } })).status).toBe(200);
});
afterAll(async () => { await platform?.close(); });

const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

async function speak(body: Record<string, unknown>, on: Platform = platform) {
  const res = await call(on, '/v1/audio/speech', { body });
  return { ...res, bytes: res.status === 200 ? fromB64(res.json.audio_data) : new Uint8Array(0) };
}

async function speakStream(body: Record<string, unknown>) {
  const res = await call(platform, '/v1/audio/speech', { body: { ...body, stream: true } });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = parseSse(res.text);
  // Every event: an `event:` line equal to data.type.
  for (const e of events) expect(e.event).toBe(e.data.type);
  const deltas = events.slice(0, -1);
  expect(deltas.length).toBeGreaterThan(0);
  for (const d of deltas) {
    expect(d.event).toBe('speech.audio.delta');
    expect(Object.keys(d.data).sort()).toEqual(['audio_data', 'type']);
  }
  const done = events.at(-1)!;
  expect(done.event).toBe('speech.audio.done');
  const { usage } = done.data;
  for (const k of ['prompt_tokens', 'completion_tokens', 'total_tokens']) expect(Number.isInteger(usage[k])).toBe(true);
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  const bytes = Buffer.concat(deltas.map((d) => fromB64(d.data.audio_data)));
  return { events, usage, bytes: new Uint8Array(bytes) };
}

async function decode(format: Format, bytes: Uint8Array, streamed: boolean): Promise<Decoded> {
  switch (format) {
    case 'pcm': return parsePcm(bytes);
    case 'wav': return parseWav(bytes, { streamed });
    case 'mp3': return decodeMp3(bytes);
    case 'opus': return decodeOpus(bytes);
    case 'flac': return decodeFlac(bytes);
  }
}

/** ~2.5–8 s is plausible for TEXT (14 words) at espeak's 175 wpm. */
function checkSpeech(format: Format, d: Decoded) {
  expect(d.sampleRate).toBe(format === 'opus' ? 48000 : 24000);
  if (format === 'opus') expect(d.header?.inputSampleRate).toBe(24000);
  const seconds = d.samples.length / d.sampleRate;
  expect(seconds).toBeGreaterThan(2.5);
  expect(seconds).toBeLessThan(8);
  expect(peak(d.samples)).toBeLessThanOrEqual(1);
  expect(rms(d.samples)).toBeGreaterThan(0.02);
  return seconds;
}

describe('POST /v1/audio/speech: formats', () => {
  const durations: Record<string, number> = {};

  for (const format of FORMATS) {
    it(`${format}: JSON gives a whole, valid file`, async () => {
      const res = await speak({ input: TEXT, response_format: format });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(res.json)).toEqual(['audio_data']);
      const d = await decode(format, res.bytes, false);
      durations[format] = checkSpeech(format, d);
      if (format === 'wav') expect(d.header).toMatchObject({ format: 1, channels: 1, sampleRate: 24000, bits: 16 });
      if (format === 'pcm') for (const x of d.samples) if (!(x >= -1 && x <= 1)) throw new Error(`pcm sample ${x} outside [-1, 1]`);
    });

    it(`${format}: streamed deltas concatenate into a valid file`, async () => {
      const json = await speak({ input: TEXT, response_format: format });
      const s = await speakStream({ input: TEXT, response_format: format });
      const d = await decode(format, s.bytes, true);
      const seconds = checkSpeech(format, d);
      const whole = await decode(format, json.bytes, false);
      expect(Math.abs(seconds - whole.samples.length / whole.sampleRate)).toBeLessThan(0.05);
      // (espeak-ng adds a little random jitter, so two syntheses are not byte-identical.)
      if (format === 'flac') {
        // STREAMINFO total samples (36 bits at byte 21.5): 0 = unknown when streamed, exact in JSON.
        const total = (b: Uint8Array) => (b[21] & 0x0f) * 2 ** 32 + new DataView(b.buffer, b.byteOffset).getUint32(22);
        expect(total(s.bytes)).toBe(0);
        expect(total(json.bytes)).toBe(whole.samples.length);
      }
      // usage: completion tokens are the 24 kHz samples produced.
      const pcmSamples = format === 'pcm' ? s.bytes.length / 4 : undefined;
      if (pcmSamples !== undefined) expect(s.usage.completion_tokens).toBe(pcmSamples);
      expect(s.usage.prompt_tokens).toBeGreaterThan(10);
      if (format !== 'wav') expect(s.events.length).toBeGreaterThan(2); // it streams, not one blob
    });
  }

  it('mp3 is the default format', async () => {
    const res = await speak({ input: TEXT });
    expect(res.status).toBe(200);
    expect(res.bytes[0]).toBe(0xff);
    expect(res.bytes[1] & 0xe0).toBe(0xe0); // MPEG frame sync
    checkSpeech('mp3', await decodeMp3(res.bytes));
  });

  it('chooses JSON or stream from the body, not from Accept', async () => {
    const streamed = await call(platform, '/v1/audio/speech', { body: { input: 'Hi.', response_format: 'pcm', stream: true }, headers: { accept: 'application/json;q=1, text/event-stream;q=0' } });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const json = await call(platform, '/v1/audio/speech', { body: { input: 'Hi.', response_format: 'pcm', stream: false }, headers: { accept: 'text/event-stream' } });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('voice_id accepts a preset id or slug; voices differ; extra properties are allowed', async () => {
    const list = (await call(platform, '/v1/audio/voices?limit=100')).json;
    const female = list.items.find((v: any) => v.slug === 'en-us-female');
    const bySlug = await speak({ input: 'Hello there.', voice_id: 'en-us-female', response_format: 'pcm', prompt_cache_key: null, metadata: { a: 1 }, something_new: true });
    const byId = await speak({ input: 'Hello there.', voice_id: female.id, response_format: 'pcm' });
    const male = await speak({ input: 'Hello there.', voice_id: 'en-us-male', response_format: 'pcm' });
    expect(bySlug.status).toBe(200);
    // Same voice by id or slug: same length within jitter; the male voice is pitched lower (fewer zero crossings).
    const crossings = (b: Uint8Array) => { const x = parsePcm(b).samples; let n = 0; for (let i = 1; i < x.length; i++) if (x[i - 1] < 0 && x[i] >= 0) n++; return n / x.length; };
    expect(Math.abs(byId.bytes.length - bySlug.bytes.length)).toBeLessThan(4 * 2400);
    expect(crossings(male.bytes)).toBeLessThan(crossings(bySlug.bytes));
    for (const slug of ['fr-fr-male', 'de-de-male', 'es-419-female']) expect((await speak({ input: 'Bonjour, hallo, hola.', voice_id: slug, response_format: 'pcm' })).status).toBe(200);
  });
});

/** What the espeak engine's worker posts (chunk, done…), watched on the real worker: synthesis itself is untouched. */
function watchWorker(engine: SpeechEngine) {
  const worker = (engine as unknown as { worker?: Worker }).worker;
  if (!worker) throw new Error('the espeak engine has no worker: ready() first (or its private `worker` field was renamed)');
  const messages: Array<{ type: string; id?: number; aborted?: boolean }> = [];
  const held: unknown[][] = [];
  let holding = false;
  const emit = worker.emit;
  worker.emit = function (this: Worker, event: string | symbol, ...args: unknown[]) {
    if (event === 'message') {
      const { type, id, aborted } = args[0] as { type: string; id?: number; aborted?: boolean };
      messages.push({ type, id, aborted });
      if (holding && (type === 'done' || type === 'error')) { held.push(args); return true; }
    }
    return emit.call(this, event, ...args);
  } as Worker['emit'];
  return {
    messages,
    get holding() { return holding; },
    /** From now on the end of a synthesis ('done', 'error') is held back from the engine until `release()`. */
    holdEnds() { holding = true; },
    release() { holding = false; for (const args of held.splice(0)) emit.call(worker, 'message', ...args); },
    restore() { this.release(); worker.emit = emit; },
  };
}

describe('POST /v1/audio/speech: streaming behaviour', () => {
  // A platform of its own, so the test can watch its engine's worker.
  let own: Platform;
  let engine: SpeechEngine;
  let worker: ReturnType<typeof watchWorker>;
  beforeAll(async () => {
    engine = createEspeakSpeechEngine();
    own = await startPlatform({ speechEngines: [engine] });
    await engine.ready();
    worker = watchWorker(engine);
  });
  afterAll(async () => { worker?.restore(); await own?.close(); });

  it('the first delta leaves before a long synthesis ends', async () => {
    // The worker's "done" for this synthesis is held back from the engine until the test has read a delta: a
    // delta only arrives if the engine and the route pass audio on while synthesis is still under way. If either
    // waited for the end, the safety net releases it and the test fails.
    worker.holdEnds();
    const safetyNet = setTimeout(() => worker.release(), 30_000);
    let endHeldAtFirstDelta: boolean | undefined;
    let text = '';
    try {
      const res = await own.fetch(new Request(`${BASE}/v1/audio/speech`, {
        method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: LONG, response_format: 'pcm', stream: true }),
      }));
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (endHeldAtFirstDelta === undefined && text.includes('speech.audio.delta')) {
          endHeldAtFirstDelta = worker.holding;
          worker.release();
        }
      }
    } finally { clearTimeout(safetyNet); worker.release(); }
    expect(endHeldAtFirstDelta, 'a delta came out while the end of synthesis was held back').toBe(true);
    const events = parseSse(text);
    expect(events.at(-1)!.event).toBe('speech.audio.done');
    const seconds = Buffer.concat(events.slice(0, -1).map((e) => fromB64(e.data.audio_data))).length / 4 / 24000;
    expect(seconds).toBeGreaterThan(60);
  }, 60_000);

  it('aborting mid-stream stops synthesis and frees the engine', async () => {
    const from = worker.messages.length;
    const ac = new AbortController();
    const res = await own.fetch(new Request(`${BASE}/v1/audio/speech`, {
      method: 'POST', signal: ac.signal, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: LONG.repeat(2).slice(0, 4096), response_format: 'mp3', stream: true }),
    }));
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await reader.cancel().catch(() => {});
    const next = await speak({ input: 'Still here.', response_format: 'pcm' }, own);
    expect(next.status).toBe(200);
    // The worker reports whether espeak was stopped by the abort flag before the end of the text: a synthesis
    // that ran to its end (abort not passed on) says aborted: false.
    const ends = worker.messages.slice(from).filter((m) => m.type === 'done');
    expect(ends.map((m) => m.aborted), 'the long synthesis was cut short, then the next one ran').toEqual([true, false]);
  });

  it('serves concurrent requests one after another through the warm engine', async () => {
    const all = await Promise.all(['One.', 'Two.', 'Three.', 'Four.'].map((input) => speak({ input, response_format: 'wav' })));
    for (const r of all) expect(parseWav(r.bytes).samples.length).toBeGreaterThan(2400);
  });
});

describe('POST /v1/audio/speech: validation', () => {
  const detail = async (body: unknown) => {
    const res = await call(platform, '/v1/audio/speech', { body });
    expect(res.status, res.text).toBe(422);
    expect(Array.isArray(res.json.detail)).toBe(true);
    return res.json.detail[0];
  };

  it('input: missing, empty, whitespace, too long, not a string', async () => {
    expect(await detail({})).toMatchObject({ loc: ['body', 'input'], type: 'missing' });
    expect(await detail({ input: '' })).toMatchObject({ loc: ['body', 'input'], type: 'string_too_short' });
    expect(await detail({ input: '  \n ' })).toMatchObject({ loc: ['body', 'input'], type: 'value_error' });
    expect(await detail({ input: 'a'.repeat(4097) })).toMatchObject({ loc: ['body', 'input'], type: 'string_too_long', ctx: { max_length: 4096 } });
    expect(await detail({ input: 42 })).toMatchObject({ loc: ['body', 'input'], type: 'string_type' });
    expect(await detail({ input: ['a'] })).toMatchObject({ loc: ['body', 'input'], type: 'string_type' });
    expect((await speak({ input: 'a'.repeat(4096).replace(/a{8}/g, 'banana. ') , response_format: 'pcm' })).status).toBe(200);
  });

  it('response_format: an unsupported one names the supported ones', async () => {
    const d = await detail({ input: 'Hi.', response_format: 'aac' });
    expect(d).toMatchObject({ loc: ['body', 'response_format'], type: 'enum' });
    for (const f of FORMATS) expect(d.msg).toContain(`'${f}'`);
  });

  it('voice_id unknown, ref_audio unsupported, stream not a boolean', async () => {
    expect(await detail({ input: 'Hi.', voice_id: 'nope' })).toMatchObject({ loc: ['body', 'voice_id'], type: 'value_error', input: 'nope' });
    expect(await detail({ input: 'Hi.', ref_audio: 'UklGRg==' })).toMatchObject({ loc: ['body', 'ref_audio'] });
    expect(await detail({ input: 'Hi.', stream: 'yes' })).toMatchObject({ loc: ['body', 'stream'], type: 'bool_type' });
    expect(await detail({ input: 'Hi.', metadata: 'x' })).toMatchObject({ loc: ['body', 'metadata'] });
  });

  it('model: aliases work; unknown or chat models → 400 invalid_model', async () => {
    for (const model of ['parley-espeak', 'voxtral-mini-tts-latest', 'voxtral-mini-tts-2603', null]) {
      expect((await speak({ input: 'Hi.', model, response_format: 'pcm' })).status).toBe(200);
    }
    for (const model of ['nope', 'parley-local']) {
      const res = await speak({ input: 'Hi.', model });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model', code: '1500' });
    }
  });

  it('bad JSON → 422; no key → 401', async () => {
    const res = await call(platform, '/v1/audio/speech', { method: 'POST', rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect((await call(platform, '/v1/audio/speech', { body: { input: 'Hi.' }, key: null })).status).toBe(401);
  });
});

describe('engine missing', () => {
  it('answers 503 naming the npm install command', async () => {
    const p = await startPlatform({ speechEngines: [createEspeakSpeechEngine({ moduleSpecifier: '@echogarden/not-installed-here' })] });
    try {
      for (const stream of [false, true]) {
        const res = await call(p, '/v1/audio/speech', { body: { input: 'Hi.', stream } });
        expect(res.status).toBe(503);
        expect(res.json).toMatchObject({ object: 'error', type: 'server_error', code: 'engine_unavailable' });
        expect(res.json.message).toContain('npm install @echogarden/espeak-ng-emscripten');
      }
      expect((await call(p, '/v1/audio/voices')).status).toBe(200); // listing needs no engine
    } finally {
      await p.close();
    }
  });
});

describe('GET /v1/audio/voices', () => {
  it('lists preset voices in the real shape with stable uuids', async () => {
    const res = await call(platform, '/v1/audio/voices');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ total: 10, page: 1, page_size: 10, total_pages: 1 });
    const slugs = res.json.items.map((v: any) => v.slug);
    expect(slugs).toEqual(expect.arrayContaining(['en-us-male', 'en-us-female', 'en-gb-male', 'fr-fr-male', 'de-de-male', 'es-es-male']));
    for (const v of res.json.items) {
      expect(v).toMatchObject({ user_id: null, created_at: expect.stringMatching(/Z$/), retention_notice: 30 });
      expect(v.id).toMatch(UUID);
      expect(v.languages.length).toBeGreaterThan(0);
      expect(['male', 'female']).toContain(v.gender);
      expect(v).not.toHaveProperty('engineVoice');
    }
    const other = await startPlatform();
    try {
      expect((await call(other, '/v1/audio/voices')).json.items.map((v: any) => v.id)).toEqual(res.json.items.map((v: any) => v.id));
    } finally { await other.close(); }
  });

  it('pages and filters', async () => {
    const p2 = (await call(platform, '/v1/audio/voices?limit=3&offset=3')).json;
    expect(p2).toMatchObject({ total: 10, page: 2, page_size: 3, total_pages: 4 });
    expect(p2.items).toHaveLength(3);
    expect((await call(platform, '/v1/audio/voices?limit=3&offset=9')).json.items).toHaveLength(1);
    expect((await call(platform, '/v1/audio/voices?type=custom')).json).toMatchObject({ items: [], total: 0, total_pages: 0 });
    expect((await call(platform, '/v1/audio/voices?type=preset')).json.total).toBe(10);
    const bad = await call(platform, '/v1/audio/voices?limit=0');
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['query', 'limit']);
    expect((await call(platform, '/v1/audio/voices?limit=101')).status).toBe(422);
    expect((await call(platform, '/v1/audio/voices?type=mine')).status).toBe(422);
  });

  it('GET one voice by id or slug; unknown → 404', async () => {
    const v = (await call(platform, '/v1/audio/voices/de-de-male')).json;
    expect((await call(platform, `/v1/audio/voices/${v.id}`)).json).toEqual(v);
    expect((await call(platform, '/v1/audio/voices/nope')).status).toBe(404);
  });
});

describe('models', () => {
  it('/v1/models lists the TTS card with audio_speech only; conversations refuse it', async () => {
    const list = (await call(platform, '/v1/models')).json.data;
    const card = list.find((m: any) => m.id === 'parley-espeak');
    expect(card).toMatchObject({ type: 'base', object: 'model', aliases: ['voxtral-mini-tts-latest', 'voxtral-mini-tts-2603'] });
    expect(Object.entries(card.capabilities).filter(([, v]) => v).map(([k]) => k)).toEqual(['audio_speech']);
    expect(card.description).toMatch(/eSpeak NG/);
    expect(card.description).toMatch(/GPL/);
    expect(list.some((m: any) => m.capabilities.completion_chat)).toBe(true);
    expect((await call(platform, '/v1/models/voxtral-mini-tts-latest')).json.id).toBe('parley-espeak');
    expect((await call(platform, '/v1/models?model=voxtral-mini-tts-2603')).json.data).toHaveLength(1);
    const conv = await call(platform, '/v1/conversations', { body: { model: 'parley-espeak', inputs: 'hello' } });
    expect(conv.status).toBe(400);
    expect(conv.json).toMatchObject({ type: 'invalid_model' });
  });
});

describe('official SDK', () => {
  it('speech.complete JSON, stream and voices.list parse', async () => {
    const sdk = sdkFor(platform);
    const json = await sdk.audio.speech.complete({ input: TEXT, model: 'voxtral-mini-tts-latest', voiceId: 'en-gb-male', responseFormat: 'wav' });
    checkSpeech('wav', parseWav(fromB64((json as { audioData: string }).audioData)));

    const stream = await sdk.audio.speech.complete({ input: TEXT, model: 'voxtral-mini-tts-latest', voiceId: 'en-us-female', responseFormat: 'pcm', stream: true });
    const events = await drain(stream as AsyncIterable<{ event: string; data: any }>);
    expect(events.at(-1)!.data).toMatchObject({ type: 'speech.audio.done', usage: { promptTokens: expect.any(Number), totalTokens: expect.any(Number) } });
    const pcm = Buffer.concat(events.slice(0, -1).map((e) => fromB64(e.data.audioData)));
    checkSpeech('pcm', parsePcm(new Uint8Array(pcm)));

    const voices = await sdk.audio.voices.list({ limit: 4, offset: 0, type: 'preset' });
    expect(voices).toMatchObject({ total: 10, pageSize: 4, totalPages: 3 });
    expect(voices.items[0].createdAt).toBeInstanceOf(Date);

    const models = await sdk.models.list();
    const card = models.data?.find((m: any) => m.id === 'parley-espeak') as any;
    expect(card?.capabilities?.audioSpeech).toBe(true);
  });

  it('422 surfaces as HTTPValidationError', async () => {
    const sdk = sdkFor(platform);
    await expect(sdk.audio.speech.complete({ input: '', responseFormat: 'mp3' })).rejects.toMatchObject({ statusCode: 422 });
  });
});
