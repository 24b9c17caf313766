import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../src/app.js';
import { estimatePitch } from '../../src/voices/pitch.js';
import { bindCustomVoice, closestVariant } from '../../src/voices/binding.js';
import { createEspeakSpeechEngine } from '../../src/engines/speech/espeak.js';
import { getVoice, insertVoice, listVoices } from '../../src/voices/store.js';
import { API_KEY, ISO_Z, call, openPlatformDb, startPlatform } from './helpers.js';
import { parsePcm, parseWav } from './speech-audio.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/transcription');
/** Flite's `slt` voice, a female voice around 170 Hz. */
const FOX = readFileSync(join(FIXTURES, 'fox.wav'));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A WAV (16-bit mono) of a tone, for pitch tests with a known answer. */
function toneWav(hz: number, seconds: number, rate = 16000): Buffer {
  const n = Math.round(seconds * rate);
  const out = Buffer.alloc(44 + n * 2);
  out.write('RIFF', 0); out.writeUInt32LE(36 + n * 2, 4); out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16); out.writeUInt16LE(1, 20); out.writeUInt16LE(1, 22); out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28); out.writeUInt16LE(2, 32); out.writeUInt16LE(16, 34); out.write('data', 36); out.writeUInt32LE(n * 2, 40);
  // a buzz with harmonics, like a voiced vowel
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const s = 0.5 * Math.sin(2 * Math.PI * hz * t) + 0.25 * Math.sin(4 * Math.PI * hz * t) + 0.12 * Math.sin(6 * Math.PI * hz * t);
    out.writeInt16LE(Math.round(s * 20000), 44 + i * 2);
  }
  return out;
}

const medianOf = (samples: Float32Array, rate: number) => estimatePitch(samples, rate).medianHz!;

describe('pitch estimation', () => {
  it('finds the pitch of voiced tones and of recorded speech', () => {
    for (const hz of [90, 140, 220]) {
      const { samples, sampleRate } = parseWav(new Uint8Array(toneWav(hz, 1)));
      expect(Math.abs(medianOf(samples, sampleRate) - hz)).toBeLessThan(hz * 0.03);
    }
    const fox = parseWav(new Uint8Array(FOX));
    const f0 = medianOf(fox.samples, fox.sampleRate);
    expect(f0).toBeGreaterThan(140);
    expect(f0).toBeLessThan(220);
  });

  it('answers null for silence', () => {
    expect(estimatePitch(new Float32Array(16000), 16000)).toEqual({ medianHz: null, voicedFrames: 0 });
  });
});

describe('binding a custom voice to the engine', () => {
  const engine = createEspeakSpeechEngine();
  const voice = { id: 'v', name: 'v', created_at: '2026-01-01T00:00:00.000000Z', user_id: null };
  it('uses the voice’s language and the variant closest in pitch', () => {
    expect(bindCustomVoice(engine, { ...voice, languages: ['fr-FR'] }, 92).engineVoice).toBe('fr+m1');
    expect(bindCustomVoice(engine, { ...voice, languages: ['es'] }, 205).engineVoice).toBe('es+f3');
    expect(bindCustomVoice(engine, { ...voice, languages: ['en-GB'] }, 172).engineVoice).toBe('en+f4');
    expect(bindCustomVoice(engine, { ...voice, languages: ['ja-JP'] }, 100).engineVoice).toMatch(/^en-us\+m/); // no such language: the default voice
  });
});

describe('custom voices over HTTP', () => {
  let platform: Platform;
  beforeAll(async () => { platform = await startPlatform(); });
  afterAll(async () => { await platform.close(); });

  const create = (body: Record<string, unknown>) => call(platform, '/v1/audio/voices', { body: { name: 'Fox', sample_audio: FOX.toString('base64'), ...body } });

  it('creates a voice from a sample and says how it will speak', async () => {
    const res = await create({ name: 'Narrator', slug: 'narrator', languages: ['en-US'], gender: 'female', tags: ['warm'], sample_filename: 'fox.wav' });
    expect(res.status).toBe(200);
    const v = res.json;
    expect(v).toMatchObject({ name: 'Narrator', slug: 'narrator', languages: ['en-US'], gender: 'female', age: null, tags: ['warm'], color: null, retention_notice: 30 });
    expect(v.id).toMatch(UUID);
    expect(v.created_at).toMatch(ISO_Z);
    expect(typeof v.user_id).toBe('string');
    expect(v.trimmed_seconds).toBeGreaterThan(1);
    expect(v.description).toMatch(/cannot clone voices.*espeak-ng variant f\d/);
    expect((await call(platform, `/v1/audio/voices/${v.id}`)).json).toEqual(v);
    expect((await call(platform, '/v1/audio/voices/narrator')).json).toEqual(v);
    const custom = (await call(platform, '/v1/audio/voices?type=custom')).json;
    expect(custom).toMatchObject({ total: 1, page: 1, total_pages: 1 });
    expect(custom.items).toEqual([v]);
    const all = (await call(platform, '/v1/audio/voices?limit=100')).json;
    expect(all.total).toBe(11);
    expect(all.items.at(-1)).toEqual(v);
    expect((await call(platform, '/v1/audio/voices?type=preset&limit=100')).json.items.map((x: any) => x.id)).not.toContain(v.id);
  });

  it('keeps the creator’s description and returns the sample as WAV', async () => {
    const v = (await create({ description: 'Reads bedtime stories', sample_audio: `data:audio/wav;base64,${toneWav(120, 2).toString('base64')}` })).json;
    expect(v.description).toBe('Reads bedtime stories');
    const res = await platform.fetch(new Request(`http://platform.test/v1/audio/voices/${v.id}/sample`, { headers: { authorization: `Bearer ${API_KEY}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const wav = parseWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav.sampleRate).toBe(24000);
    expect(wav.samples.length / 24000).toBeCloseTo(2, 1);
    expect(Math.abs(medianOf(wav.samples, 24000) - 120)).toBeLessThan(4);
  });

  it('updates and deletes custom voices; preset voices are read-only', async () => {
    const v = (await create({ name: 'Temp' })).json;
    const up = await call(platform, `/v1/audio/voices/${v.id}`, { method: 'PATCH', body: { name: 'Renamed', tags: ['x'], age: 40, description: null } });
    expect(up.status).toBe(200);
    expect(up.json).toEqual({ ...v, name: 'Renamed', tags: ['x'], age: 40, description: null });
    expect((await call(platform, `/v1/audio/voices/${v.id}`)).json.name).toBe('Renamed');
    const del = await call(platform, `/v1/audio/voices/${v.id}`, { method: 'DELETE' });
    expect(del.json).toEqual(up.json);
    for (const method of ['GET', 'DELETE']) expect((await call(platform, `/v1/audio/voices/${v.id}`, { method })).status).toBe(404);
    expect((await call(platform, `/v1/audio/voices/${v.id}`, { method: 'PATCH', body: { name: 'x' } })).status).toBe(404);
    expect((await call(platform, `/v1/audio/voices/${v.id}/sample`)).status).toBe(404);

    const preset = (await call(platform, '/v1/audio/voices/en-us-male')).json;
    for (const [method, body] of [['PATCH', { name: 'Mine' }], ['DELETE', undefined]] as const) {
      const res = await call(platform, `/v1/audio/voices/${preset.id}`, { method, body });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ object: 'error', code: 'forbidden' });
      expect(res.json.message).toMatch(/preset voice/);
    }
  });

  it('rejects bad samples and fields with 422', async () => {
    const missing = await call(platform, '/v1/audio/voices', { body: { name: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'sample_audio'], type: 'missing' });
    const notB64 = await create({ sample_audio: 'this is not base64!' });
    expect(notB64.json.detail[0]).toMatchObject({ loc: ['body', 'sample_audio'] });
    const notAudio = await create({ sample_audio: Buffer.from('just some text, not audio').toString('base64') });
    expect(notAudio.status).toBe(422);
    expect(notAudio.json.detail[0].msg).toMatch(/not audio/);
    const silent = await create({ sample_audio: toneWav(0, 1).toString('base64') });
    expect(silent.json.detail[0].msg).toMatch(/no voiced speech/);
    expect((await create({ slug: 'en-us-male' })).json.detail[0].loc).toEqual(['body', 'slug']);
    expect((await create({ slug: 'Bad Slug' })).status).toBe(422);
    expect((await create({ name: '' })).status).toBe(422);
    await create({ slug: 'taken' });
    const dup = await create({ slug: 'taken' });
    expect(dup.status).toBe(422);
    expect(dup.json.detail[0].msg).toMatch(/already used/);
    expect((await call(platform, '/v1/audio/voices/taken', { method: 'PATCH', body: { age: -1 } })).status).toBe(422);
  });

  it('speaks with a custom voice at a pitch near its sample’s', { timeout: 60_000 }, async () => {
    const sampleHz = medianOf(parseWav(new Uint8Array(FOX)).samples, 16000);
    const v = (await create({ name: 'High' })).json;
    const speak = async (voice_id?: string) => {
      const res = await call(platform, '/v1/audio/speech', { body: { input: 'The quick brown fox jumps over the lazy dog.', voice_id, response_format: 'pcm' } });
      expect(res.status).toBe(200);
      return medianOf(parsePcm(new Uint8Array(Buffer.from(res.json.audio_data, 'base64'))).samples, 24000);
    };
    const withDefault = await speak();
    const withCustom = await speak(v.id);
    expect(Math.abs(withCustom - sampleHz)).toBeLessThan(Math.abs(withDefault - sampleHz) / 3);
    expect(Math.abs(withCustom - closestVariant(sampleHz).hz)).toBeLessThan(20); // the binding table matches the engine
    const unknown = await call(platform, '/v1/audio/speech', { body: { input: 'hi', voice_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.status).toBe(422);
  });

  it('serves a preset voice’s sample spoken by the engine', { timeout: 60_000 }, async () => {
    const res = await platform.fetch(new Request('http://platform.test/v1/audio/voices/en-us-female/sample', { headers: { authorization: `Bearer ${API_KEY}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const wav = parseWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav.samples.length / 24000).toBeGreaterThan(1);
  });
});

describe('custom voices store', () => {
  it('scopes voices to their workspace', async () => {
    const db = await openPlatformDb();
    try {
      const voice = { id: 'c2a1f1de-0000-4000-8000-000000000001', name: 'Mine', slug: 'mine', created_at: '2026-01-01T00:00:00.000000Z', user_id: 'u1', retention_notice: 30 };
      expect(await insertVoice(db, 'ws-1', voice, 150, new Uint8Array([1, 2]))).toBe(true);
      expect(await insertVoice(db, 'ws-2', { ...voice, id: 'c2a1f1de-0000-4000-8000-000000000002' }, 150, new Uint8Array([1]))).toBe(true); // slugs are per workspace
      expect((await getVoice(db, 'ws-1', 'mine'))?.voice.id).toBe(voice.id);
      expect(await getVoice(db, 'ws-3', voice.id)).toBeUndefined();
      expect(await listVoices(db, 'ws-3')).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe('custom voices durability', () => {
  it('keeps voices and samples across a reopen', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-voices-'));
    try {
      let p = createPlatform({ apiKey: API_KEY, dataDir, onError: (e) => { throw e; } });
      const v = (await call(p, '/v1/audio/voices', { body: { name: 'Kept', sample_audio: FOX.toString('base64') } })).json;
      const sample = (await p.fetch(new Request(`http://platform.test/v1/audio/voices/${v.id}/sample`, { headers: { authorization: `Bearer ${API_KEY}` } })));
      const before = new Uint8Array(await sample.arrayBuffer());
      await p.close();
      p = createPlatform({ apiKey: API_KEY, dataDir, onError: (e) => { throw e; } });
      try {
        expect((await call(p, `/v1/audio/voices/${v.id}`)).json).toEqual(v);
        const after = await p.fetch(new Request(`http://platform.test/v1/audio/voices/${v.id}/sample`, { headers: { authorization: `Bearer ${API_KEY}` } }));
        expect(Buffer.compare(new Uint8Array(await after.arrayBuffer()), before)).toBe(0);
      } finally {
        await p.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
