/**
 * `POST /v1/audio/transcriptions` against Debian's pocketsphinx (no skip: without
 * `apt-get install pocketsphinx pocketsphinx-en-us` these tests fail with the platform's 503).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { createPocketsphinxEngine } from '../../src/engines/transcription/pocketsphinx.js';
import type { TranscriptionEngine } from '../../src/engines/transcription/types.js';
import { PocketsphinxOutputParser } from '../../src/engines/transcription/pocketsphinx.js';
import { API_KEY, BASE, call, parseSse, startPlatform } from './helpers.js';
import { drain, sdkFor } from './sdk.js';
import { SENTENCES, concat, encodeWith, webmFromOggOpus, fixtureSamples, fixtureWav, resample, wer, writeWav } from './transcription-audio.js';

const PATH = '/v1/audio/transcriptions';
type Field = string | { bytes: Uint8Array; name: string; type?: string };

function form(fields: Record<string, Field | Field[]>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item === 'string') f.append(k, item);
      else f.append(k, new Blob([item.bytes as Uint8Array<ArrayBuffer>], { type: item.type ?? 'application/octet-stream' }), item.name);
    }
  }
  return f;
}

const post = (platform: Platform, fields: Record<string, Field | Field[]>) => call(platform, PATH, { method: 'POST', rawBody: form(fields) });
const wavFile = (name: keyof typeof SENTENCES) => ({ bytes: fixtureWav(name), name: `${name}.wav`, type: 'audio/wav' });

/** fox, 1 s silence, call, 1 s silence, weather: three utterances. */
function threeSentences(): Uint8Array {
  const silence = new Float32Array(16000);
  return writeWav(concat(fixtureSamples('fox').samples, silence, fixtureSamples('call').samples, silence, fixtureSamples('weather').samples), 16000);
}

/**
 * The real pocketsphinx engine fed through a gate: every chunk of audio but the last goes straight to it; the
 * last is held until `open()` (or, as a safety net against a hang, until `deadlineMs` passes). A delta that
 * arrives while the gate is shut was cut before the engine had all the audio.
 */
function gatedPocketsphinx(deadlineMs: number) {
  const inner = createPocketsphinxEngine();
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  const state = { fed: 0, lastFed: false, gaveUp: false };
  async function* gate(audio: AsyncIterable<Int16Array> | Iterable<Int16Array>): AsyncGenerator<Int16Array> {
    let previous: Int16Array | undefined;
    for await (const chunk of audio) {
      if (previous) { state.fed++; yield previous; }
      previous = chunk;
    }
    if (!previous) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([opened, new Promise<void>((r) => { timer = setTimeout(() => { state.gaveUp = true; r(); }, deadlineMs); })]);
    clearTimeout(timer);
    state.fed++;
    state.lastFed = true;
    yield previous;
  }
  const engine: TranscriptionEngine = { ...inner, transcribe: (job) => inner.transcribe({ ...job, audio: gate(job.audio) }) };
  return { engine, state, open };
}

let platform: Platform;
let fileServer: Server;
let fileHost = '';

beforeAll(async () => {
  fileServer = createServer((req, res) => {
    if (req.url === '/fox.wav') { res.writeHead(200, { 'content-type': 'audio/wav' }); res.end(fixtureWav('fox')); return; }
    if (req.url === '/redirect') { res.writeHead(302, { location: 'http://example.com/x.wav' }); res.end(); return; }
    res.writeHead(404); res.end();
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  fileHost = `127.0.0.1:${(fileServer.address() as AddressInfo).port}`;
  platform = await startPlatform({ transcriptionUrlAllowlist: [fileHost], maxAudioBytes: 2 * 1024 * 1024 });
});

afterAll(async () => {
  await platform.close();
  await new Promise((r) => fileServer.close(r));
});

describe('transcription round trip (Flite slt → pocketsphinx)', () => {
  it('transcribes a WAV upload as JSON with word error rate under 25%', async () => {
    const res = await post(platform, { model: 'voxtral-mini-latest', file: wavFile('fox') });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['language', 'model', 'segments', 'text', 'usage']);
    expect(res.json.model).toBe('voxtral-mini-latest');
    expect(res.json.language).toBe('en');
    expect(res.json.segments).toEqual([]);
    expect(wer(SENTENCES.fox, res.json.text)).toBeLessThan(0.25);
    const u = res.json.usage;
    for (const k of ['prompt_tokens', 'completion_tokens', 'total_tokens', 'prompt_audio_seconds']) expect(Number.isInteger(u[k]), k).toBe(true);
    expect(u.prompt_audio_seconds).toBe(3);
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
  });

  it('segments three utterances with increasing times and WER under 25% overall', async () => {
    const res = await post(platform, { model: 'parley-pocketsphinx', file: { bytes: threeSentences(), name: 'three.wav' }, timestamp_granularities: 'segment', diarize: 'true' });
    expect(res.status, res.text).toBe(200);
    const reference = `${SENTENCES.fox} ${SENTENCES.call} ${SENTENCES.weather}`;
    expect(wer(reference, res.json.text)).toBeLessThan(0.25);
    const segs = res.json.segments;
    expect(segs.length).toBeGreaterThanOrEqual(3);
    let last = -1;
    for (const s of segs) {
      expect(Object.keys(s).sort()).toEqual(['end', 'score', 'speaker_id', 'start', 'text', 'type']);
      expect(s.type).toBe('transcription_segment');
      expect(s.speaker_id).toBe('speaker_1');
      expect(s.start).toBeGreaterThanOrEqual(last);
      expect(s.end).toBeGreaterThan(s.start);
      last = s.end;
    }
    expect(segs.map((s: any) => s.text).join(' ')).toBe(res.json.text);
    expect(last).toBeLessThanOrEqual(11);
  });

  it('gives word segments for timestamp_granularities=word', async () => {
    const res = await post(platform, { model: 'voxtral-mini-2507', file: wavFile('weather'), timestamp_granularities: ['word'] });
    expect(res.status, res.text).toBe(200);
    const segs = res.json.segments;
    expect(segs.map((s: any) => s.text).join(' ')).toBe(res.json.text);
    expect(wer(SENTENCES.weather, res.json.text)).toBeLessThan(0.25);
    for (let i = 1; i < segs.length; i++) expect(segs[i].start).toBeGreaterThanOrEqual(segs[i - 1].end);
    for (const s of segs) { expect(s.speaker_id).toBeNull(); expect(s.score === null || (s.score >= 0 && s.score <= 1)).toBe(true); }
  });

  it('streams language, deltas, segments and done; the first delta comes before the engine has the last of the audio', async () => {
    // Incremental delivery, shown by order rather than by clock: the engine's last chunk of audio is held back
    // until the test has read a delta, so a delta only arrives if pocketsphinx cut an utterance (and the route sent
    // it) while still being fed. If either waited for the end of the audio, the gate's safety net opens it instead.
    const gated = gatedPocketsphinx(30_000);
    const p2 = await startPlatform({ transcriptionEngines: [gated.engine] });
    const chunks: string[] = [];
    let lastFedAtFirstDelta: boolean | undefined;
    let chunksFedAtFirstDelta = 0;
    try {
      const response = await p2.fetch(new Request(BASE + PATH, {
        method: 'POST', headers: { authorization: `Bearer ${API_KEY}` },
        body: form({ model: 'voxtral-mini-latest', file: { bytes: threeSentences(), name: 'three.wav' }, stream: 'true', timestamp_granularities: 'segment' }),
      }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        chunks.push(decoder.decode(r.value, { stream: true }));
        if (lastFedAtFirstDelta === undefined && chunks.join('').includes('transcription.text.delta')) {
          lastFedAtFirstDelta = gated.state.lastFed;
          chunksFedAtFirstDelta = gated.state.fed;
          gated.open();
        }
      }
    } finally { gated.open(); await p2.close(); }
    expect(gated.state.gaveUp, 'no delta came while the last audio chunk was held back').toBe(false);
    expect(lastFedAtFirstDelta, 'the first delta came before the engine was given the last audio chunk').toBe(false);
    expect(chunksFedAtFirstDelta).toBeGreaterThan(0);
    expect(gated.state.lastFed, 'the whole audio reached the engine in the end').toBe(true);
    const events = parseSse(chunks.join(''));
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events[0]).toEqual({ event: 'transcription.language', data: { type: 'transcription.language', audio_language: 'en' } });
    const done = events[events.length - 1];
    expect(done.event).toBe('transcription.done');
    expect(events.filter((e) => e.event === 'transcription.done')).toHaveLength(1);
    const deltas = events.filter((e) => e.event === 'transcription.text.delta');
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.map((d) => d.data.text).join('')).toBe(done.data.text);
    const segs = events.filter((e) => e.event === 'transcription.segment').map((e) => e.data);
    expect(segs.length).toBe(done.data.segments.length);
    for (const s of segs) expect(Object.keys(s).sort()).toEqual(['end', 'speaker_id', 'start', 'text', 'type']);
    expect(Object.keys(done.data).sort()).toEqual(['language', 'model', 'segments', 'text', 'type', 'usage']);
    expect(wer(`${SENTENCES.fox} ${SENTENCES.call} ${SENTENCES.weather}`, done.data.text)).toBeLessThan(0.25);
  }, 60_000);

  it('decodes MP3 and Ogg Opus made by the platform’s own speech encoders', async () => {
    const call16 = fixtureSamples('call').samples;
    const mp3 = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: await encodeWith('mp3', call16), name: 'call.mp3', type: 'audio/mpeg' } });
    expect(mp3.status, mp3.text).toBe(200);
    expect(wer(SENTENCES.call, mp3.json.text)).toBeLessThan(0.25);
    const ogg = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: await encodeWith('opus', fixtureSamples('weather').samples), name: 'weather.ogg', type: 'audio/ogg' } });
    expect(ogg.status, ogg.text).toBe(200);
    expect(wer(SENTENCES.weather, ogg.json.text)).toBeLessThan(0.25);
  });

  it('decodes WebM Opus as MediaRecorder makes it', async () => {
    const webm = webmFromOggOpus(await encodeWith('opus', fixtureSamples('call').samples));
    const res = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: webm, name: 'rec.webm', type: 'audio/webm;codecs=opus' } });
    expect(res.status, res.text).toBe(200);
    expect(wer(SENTENCES.call, res.json.text)).toBeLessThan(0.25);
  });

  it('resamples WAV at other rates, bit depths and channel counts (22050 Hz stereo 24-bit, 44.1 kHz float)', async () => {
    const fox = fixtureSamples('fox').samples;
    const a = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: writeWav(resample(fox, 16000, 22050), 22050, { channels: 2, bits: 24 }), name: 'fox22.wav' } });
    expect(a.status, a.text).toBe(200);
    expect(wer(SENTENCES.fox, a.json.text)).toBeLessThan(0.25);
    const w = fixtureSamples('weather').samples;
    const b = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: writeWav(resample(w, 16000, 44100), 44100, { bits: 32, float: true }), name: 'w44.wav' } });
    expect(b.status, b.text).toBe(200);
    expect(wer(SENTENCES.weather, b.json.text)).toBeLessThan(0.25);
  });

  it('transcribes a file of the files API by file_id', async () => {
    const up = await call(platform, '/v1/files', { method: 'POST', rawBody: form({ purpose: 'ocr', file: wavFile('fox') }) });
    expect(up.status, up.text).toBe(200);
    const res = await post(platform, { model: 'voxtral-mini-latest', file_id: up.json.id });
    expect(res.status, res.text).toBe(200);
    expect(wer(SENTENCES.fox, res.json.text)).toBeLessThan(0.25);
    expect(res.json.usage.prompt_audio_seconds).toBe(3);
  });

  it('fetches file_url from an allowlisted host (no redirects)', async () => {
    const ok = await post(platform, { model: 'voxtral-mini-latest', file_url: `http://${fileHost}/fox.wav` });
    expect(ok.status, ok.text).toBe(200);
    expect(wer(SENTENCES.fox, ok.json.text)).toBeLessThan(0.25);
    const missing = await post(platform, { model: 'voxtral-mini-latest', file_url: `http://${fileHost}/nope.wav` });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].msg).toMatch(/HTTP 404/);
    const redirect = await post(platform, { model: 'voxtral-mini-latest', file_url: `http://${fileHost}/redirect` });
    expect(redirect.status).toBe(422);
  });
});

describe('transcription through the official SDK', () => {
  it('audio.transcriptions.complete parses', async () => {
    const sdk = sdkFor(platform);
    const r = await sdk.audio.transcriptions.complete({ model: 'voxtral-mini-latest', file: { fileName: 'weather.wav', content: fixtureWav('weather') }, timestampGranularities: ['segment'] });
    expect(wer(SENTENCES.weather, r.text)).toBeLessThan(0.25);
    expect(r.language).toBe('en');
    expect(r.segments?.length).toBeGreaterThanOrEqual(1);
    expect(r.usage.promptAudioSeconds).toBe(2);
  });

  it('files.upload then audio.transcriptions.complete with fileId', async () => {
    const sdk = sdkFor(platform);
    const up = await sdk.files.upload({ file: { fileName: 'weather.wav', content: fixtureWav('weather') }, purpose: 'ocr' });
    const r = await sdk.audio.transcriptions.complete({ model: 'voxtral-mini-latest', fileId: up.id });
    expect(wer(SENTENCES.weather, r.text)).toBeLessThan(0.25);
  });

  it('audio.transcriptions.stream parses with no unknown events', async () => {
    const sdk = sdkFor(platform);
    const stream = await sdk.audio.transcriptions.stream({ model: 'voxtral-mini-latest', file: { fileName: 'weather.wav', content: fixtureWav('weather') }, timestampGranularities: ['segment'] });
    const events = await drain(stream as any);
    expect(events.map((e) => e.event)).toEqual(['transcription.language', 'transcription.text.delta', 'transcription.segment', 'transcription.done']);
    const done = events[3].data;
    expect(wer(SENTENCES.weather, done.text)).toBeLessThan(0.25);
  });
});

describe('transcription errors', () => {
  const fox = () => wavFile('fox');

  it('requires model, and a transcription model', async () => {
    const missing = await post(platform, { file: fox() });
    expect(missing.status).toBe(422);
    expect(missing.json.detail).toEqual([{ loc: ['body', 'model'], msg: 'Field required', type: 'missing' }]);
    const tts = await post(platform, { model: 'voxtral-mini-tts-latest', file: fox() });
    expect(tts.status).toBe(400);
    expect(tts.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
  });

  it('requires file or file_url', async () => {
    const res = await post(platform, { model: 'voxtral-mini-latest' });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'file']);
    const text = await post(platform, { model: 'voxtral-mini-latest', file: 'hello' });
    expect(text.status).toBe(422);
    const empty = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: new Uint8Array(0), name: 'e.wav' } });
    expect(empty.status).toBe(422);
  });

  it('rejects what is not audio (422) and unsupported containers (415) naming the supported ones', async () => {
    const notAudio = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: new TextEncoder().encode('hello, this is not audio at all'), name: 'x.txt', type: 'text/plain' } });
    expect(notAudio.status).toBe(422);
    expect(notAudio.json.detail[0].msg).toMatch(/WAV.*MP3.*Ogg Opus/);
    const vorbis = webmFromOggOpus(await encodeWith('opus', new Float32Array(1600)), 'A_VORBIS');
    const webm = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: vorbis, name: 'rec.webm', type: 'audio/webm' } });
    expect(webm.status, webm.text).toBe(415);
    expect(webm.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'unsupported_audio_format' });
    expect(webm.json.message).toMatch(/A_VORBIS.*WAV.*MP3.*Ogg Opus.*WebM Opus/);
    const junkWebm = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0, 0, 0]), name: 'rec.webm' } });
    expect(junkWebm.status).toBe(422);
    const flac = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: new TextEncoder().encode('fLaC\0\0\0\x22xxxxxxxx'), name: 'a.flac' } });
    expect(flac.status).toBe(415);
    const broken = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: new TextEncoder().encode('RIFF\0\0\0\0WAVEjunk'), name: 'a.wav' } });
    expect(broken.status).toBe(422);
  });

  it('413 for audio above the cap', async () => {
    const huge = writeWav(new Float32Array(1_200_000), 16000); // 2.4 MB > 2 MB cap of this platform
    const res = await post(platform, { model: 'voxtral-mini-latest', file: { bytes: huge, name: 'big.wav' } });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ object: 'error', code: 'request_too_large' });
  });

  it('415 for a JSON body (multipart only)', async () => {
    const res = await call(platform, PATH, { body: { model: 'voxtral-mini-latest', file_url: 'http://x/y.wav' } });
    expect(res.status).toBe(415);
    expect(res.json.message).toMatch(/multipart\/form-data/);
  });

  it('file_url only from allowlisted hosts (none by default)', async () => {
    const other = await post(platform, { model: 'voxtral-mini-latest', file_url: 'http://example.com/a.wav' });
    expect(other.status).toBe(422);
    expect(other.json.detail[0]).toMatchObject({ loc: ['body', 'file_url'] });
    expect(other.json.detail[0].msg).toMatch(/allowlist/);
    const p2 = await startPlatform();
    try {
      const res = await post(p2, { model: 'voxtral-mini-latest', file_url: 'http://example.com/a.wav' });
      expect(res.status).toBe(422);
      expect(res.json.detail[0].msg).toMatch(/disabled.*transcriptionUrlAllowlist/);
      const bad = await post(p2, { model: 'voxtral-mini-latest', file_url: 'ftp://example.com/a.wav' });
      expect(bad.status).toBe(422);
    } finally { await p2.close(); }
  });

  it('validates language, booleans and granularities', async () => {
    const fr = await post(platform, { model: 'voxtral-mini-latest', file: fox(), language: 'fr' });
    expect(fr.status).toBe(422);
    expect(fr.json.detail[0].loc).toEqual(['body', 'language']);
    const both = await post(platform, { model: 'voxtral-mini-latest', file: fox(), language: 'en', timestamp_granularities: 'word' });
    expect(both.status).toBe(422);
    const bad = await post(platform, { model: 'voxtral-mini-latest', file: fox(), stream: 'yes', timestamp_granularities: 'sentence', temperature: 'hot' });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.')).sort()).toEqual(['body.stream', 'body.temperature', 'body.timestamp_granularities.0']);
  });

  it('file_id: unknown or another user\'s private file → 404, stored audio over the cap → 413, not audio → 422, one source only', async () => {
    const unknown = await post(platform, { model: 'voxtral-mini-latest', file_id: 'abc' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'not_found', message: "File 'abc' not found" });
    const upload = (file: Field, fields: Record<string, string> = {}, p = platform, key?: string) =>
      call(p, '/v1/files', { method: 'POST', rawBody: form({ purpose: 'ocr', file, ...fields }), key });
    const big = await upload({ bytes: writeWav(new Float32Array(1_200_000), 16000), name: 'big.wav' }); // 2.4 MB > 2 MB cap
    const tooLarge = await post(platform, { model: 'voxtral-mini-latest', file_id: big.json.id });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json).toMatchObject({ object: 'error', code: 'request_too_large', param: 'file_id' });
    expect(tooLarge.json.message).toMatch(/^Audio file is larger than the limit/);
    const text = await upload({ bytes: new TextEncoder().encode('not audio at all'), name: 'x.txt' });
    const notAudio = await post(platform, { model: 'voxtral-mini-latest', file_id: text.json.id });
    expect(notAudio.status).toBe(422);
    expect(notAudio.json.detail[0].loc).toEqual(['body', 'file_id']);
    const both = await post(platform, { model: 'voxtral-mini-latest', file: fox(), file_id: text.json.id });
    expect(both.status).toBe(422);
    expect(both.json.detail[0]).toMatchObject({ loc: ['body', 'file_id'], msg: 'Give only one of file, file_id and file_url, not file and file_id' });

    const p2 = await startPlatform({ members: [{ apiKey: 'member-key', email: 'member@example.com' }] });
    try {
      const mine = await upload(fox(), { visibility: 'user' }, p2, 'member-key');
      expect(mine.status).toBe(200);
      const hidden = await call(p2, PATH, { method: 'POST', rawBody: form({ model: 'voxtral-mini-latest', file_id: mine.json.id }) });
      expect(hidden.status).toBe(404);
    } finally { await p2.close(); }
  });

  it('503 naming the apt-get line when pocketsphinx is missing', async () => {
    const p2 = await startPlatform({ transcriptionEngines: [createPocketsphinxEngine({ binary: 'pocketsphinx-not-installed-here' })] });
    try {
      const res = await post(p2, { model: 'voxtral-mini-latest', file: fox() });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ object: 'error', type: 'server_error', code: 'engine_unavailable' });
      expect(res.json.message).toContain('apt-get install -y --no-install-recommends pocketsphinx pocketsphinx-en-us');
    } finally { await p2.close(); }
  });
});

describe('transcription model card and output parser', () => {
  it('lists parley-pocketsphinx with its aliases and the audio_transcription capability', async () => {
    const res = await call(platform, '/v1/models');
    const card = res.json.data.find((m: any) => m.id === 'parley-pocketsphinx');
    expect(card).toMatchObject({ type: 'base', aliases: ['voxtral-mini-latest', 'voxtral-mini-2507'] });
    expect(card.capabilities.audio_transcription).toBe(true);
    expect(card.capabilities.completion_chat).toBe(false);
    expect((await call(platform, '/v1/models/voxtral-mini-latest')).json.id).toBe('parley-pocketsphinx');
  });

  it('parses -time yes output', () => {
    const p = new PocketsphinxOutputParser();
    const out = ['hello world', '<s> 0.000 0.100 0.99', 'hello 0.110 0.400 0.9', '<sil> 0.4 0.5 1.0', 'world(2) 0.500 0.900 0.8', '</s> 0.9 1.0 1.0', 'again', 'again 2.0 2.5 0.7']
      .map((l) => p.line(l)).filter(Boolean);
    out.push(p.end());
    expect(out).toEqual([
      { text: 'hello world', start: 0.11, end: 0.9, words: [{ word: 'hello', start: 0.11, end: 0.4, confidence: 0.9 }, { word: 'world', start: 0.5, end: 0.9, confidence: 0.8 }] },
      { text: 'again', start: 2, end: 2.5, words: [{ word: 'again', start: 2, end: 2.5, confidence: 0.7 }] },
    ]);
  });
});
