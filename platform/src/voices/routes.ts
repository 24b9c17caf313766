/**
 * Voices: the engines' preset voices and the workspace's custom voices (durable, voices/store.ts).
 *
 * - `GET /v1/audio/voices?limit(=10, 1..100)&offset(=0)&type=all|custom|preset` → `{items, total, page,
 *   page_size, total_pages}`: presets first, then custom voices oldest first.
 * - `GET /v1/audio/voices/{id}` (id or slug) → the voice; unknown → 404.
 * - `POST /v1/audio/voices` (JSON: `name`*, `sample_audio`* base64 or a `data:` URL of WAV/MP3/Ogg Opus/WebM
 *   Opus, `sample_filename`, `slug`, `languages`, `gender`, `age`, `tags`, `color`, `description`,
 *   `retention_notice` (=30)) → the voice. The sample is kept (its first {@link MAX_SAMPLE_SECONDS} s, as
 *   24 kHz WAV; `trimmed_seconds` = its length) and its median pitch measured: the local engine cannot clone
 *   a voice, so speech with it uses the espeak-ng variant closest in pitch (voices/binding.ts; said in
 *   `description` when none is given). Audio that cannot be decoded or has no voiced speech → 422;
 *   a slug already used (by a preset or another custom voice) → 422.
 * - `PATCH /v1/audio/voices/{id}` (`name`, `languages`, `gender`, `age`, `tags`, `description`) → the voice;
 *   `DELETE` → the deleted voice. Preset voices cannot be changed or deleted → 403.
 * - `GET /v1/audio/voices/{id}/sample` → the sample as `audio/wav`; for a preset voice, a sentence spoken
 *   with it (synthesised on demand).
 * Custom voices belong to the caller's workspace: another workspace's voice is 404.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Voice } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { isoNow } from '../http/ids.js';
import { forbidden, invalidField, notFound } from '../http/errors.js';
import { readJson, validate } from '../http/validation.js';
import { nullable } from '../http/schemas.js';
import { createEncoder } from '../engines/speech/encoders.js';
import { Resampler } from '../engines/speech/resample.js';
import { voiceResponse } from '../engines/speech/voices.js';
import { SPEECH_SAMPLE_RATE, type PresetVoice, type VoiceListResponse } from '../engines/speech/types.js';
import { speechEngineError } from '../speech/engine-error.js';
import { InvalidAudioError, UnsupportedAudioError, decodeAudio } from '../engines/transcription/decode.js';
import { estimatePitch } from './pitch.js';
import { bindingNote } from './binding.js';
import { deleteVoice, getVoice, insertVoice, listVoices, updateVoice, voiceSample } from './store.js';

/** Longest sample kept, in seconds (longer samples are trimmed). */
export const MAX_SAMPLE_SECONDS = 30;
/** What a preset voice's sample says. */
const PRESET_SAMPLE_TEXT = 'Hello! This is how I sound when I read your text aloud.';


const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  type: z.enum(['all', 'custom', 'preset']).default('all'),
});

const editable = {
  languages: z.array(z.string().min(1)),
  gender: nullable(z.string()),
  age: nullable(z.number().int().min(0).max(150)),
  tags: nullable(z.array(z.string())),
  description: nullable(z.string().max(2000)),
};

const CreateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  slug: nullable(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, 'Slug should be lowercase letters, digits, - and _ (at most 100)')),
  ...editable,
  languages: editable.languages.optional(),
  color: nullable(z.string().max(50)),
  retention_notice: z.number().int().min(0).default(30),
  sample_audio: z.string().min(1),
  sample_filename: nullable(z.string()),
});

const UpdateSchema = z.object({
  name: nullable(z.string().trim().min(1).max(200)),
  ...editable,
  languages: nullable(editable.languages),
});

/** The bytes of a base64 string or `data:` URL, or undefined when it is neither. */
function decodeBase64(value: string): Uint8Array | undefined {
  const b64 = value.replace(/^data:[^,;]*(;[^,;]*)*;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) return undefined;
  return new Uint8Array(Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64'));
}

/** Mono float audio as a 24 kHz 16-bit WAV file. */
async function toWav(samples: Float32Array, sampleRate: number): Promise<Uint8Array> {
  const resampler = new Resampler(sampleRate, SPEECH_SAMPLE_RATE);
  const wav = await createEncoder('wav');
  const parts = [wav.push(resampler.push(samples)), wav.push(resampler.flush()), wav.end()];
  return wav.finalize(Buffer.concat(parts));
}

/** Decodes, trims and measures a sample; every problem is a 422 on `sample_audio`. */
async function readSample(base64: string) {
  const loc = ['body', 'sample_audio'];
  const bytes = decodeBase64(base64);
  if (!bytes?.length) throw invalidField(loc, 'sample_audio should be base64-encoded audio (or a data: URL)', 'value_error');
  let decoded;
  try {
    decoded = await decodeAudio(bytes);
  } catch (err) {
    if (err instanceof InvalidAudioError || err instanceof UnsupportedAudioError) throw invalidField(loc, err.message, 'value_error');
    throw err;
  }
  const samples = decoded.samples.subarray(0, Math.round(decoded.sampleRate * MAX_SAMPLE_SECONDS));
  const { medianHz } = estimatePitch(samples, decoded.sampleRate);
  if (medianHz === null) throw invalidField(loc, 'The sample has no voiced speech to learn a pitch from; record a few seconds of someone speaking', 'value_error');
  return { wav: await toWav(samples, decoded.sampleRate), pitchHz: medianHz, seconds: Math.round((samples.length / decoded.sampleRate) * 100) / 100 };
}

export function voiceRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const presetById = (id: string) => ctx.speech.voices().find((v) => v.id === id || v.slug === id);
  const noVoice = (id: string) => notFound(`Voice '${id}' not found`);
  const presetIsReadOnly = (id: string, what: string) => forbidden(`Voice '${id}' is a preset voice; preset voices cannot be ${what} (only custom voices can)`);

  app.get('/', async (c) => {
    const q = validate(ListQuerySchema, c.req.query(), ['query']);
    const presets = q.type === 'custom' ? [] : ctx.speech.voices().map(voiceResponse);
    const custom = q.type === 'preset' ? [] : await listVoices(ctx.db, callerOf(c).workspaceId);
    const all: Voice[] = [...presets, ...custom];
    const body: VoiceListResponse = {
      items: all.slice(q.offset, q.offset + q.limit),
      total: all.length,
      page: Math.floor(q.offset / q.limit) + 1,
      page_size: q.limit,
      total_pages: Math.ceil(all.length / q.limit),
    };
    return c.json(body);
  });

  app.get('/:voice_id', async (c) => {
    const id = c.req.param('voice_id');
    const preset = presetById(id);
    if (preset) return c.json(voiceResponse(preset));
    const custom = await getVoice(ctx.db, callerOf(c).workspaceId, id);
    if (!custom) throw noVoice(id);
    return c.json(custom.voice);
  });

  app.post('/', async (c) => {
    const body = await readJson(c, CreateSchema, ctx.limits.maxJsonBytes);
    if (body.slug && presetById(body.slug)) throw invalidField(['body', 'slug'], `Slug '${body.slug}' is a preset voice's`, 'value_error', body.slug);
    const sample = await readSample(body.sample_audio);
    const caller = callerOf(c);
    const voice: Voice = {
      id: randomUUID(),
      name: body.name,
      slug: body.slug ?? null,
      languages: body.languages ?? [],
      gender: body.gender ?? null,
      age: body.age ?? null,
      tags: body.tags ?? null,
      color: body.color ?? null,
      description: body.description ?? bindingNote(sample.pitchHz),
      retention_notice: body.retention_notice,
      created_at: isoNow(),
      user_id: caller.userId,
      trimmed_seconds: sample.seconds,
    };
    if (!(await insertVoice(ctx.db, caller.workspaceId, voice, sample.pitchHz, sample.wav))) {
      throw invalidField(['body', 'slug'], `Slug '${body.slug}' is already used by another voice of this workspace`, 'value_error', body.slug);
    }
    return c.json(voice);
  });

  app.patch('/:voice_id', async (c) => {
    const id = c.req.param('voice_id');
    if (presetById(id)) throw presetIsReadOnly(id, 'updated');
    const body = await readJson(c, UpdateSchema, ctx.limits.maxJsonBytes);
    const { name, languages, ...rest } = body;
    const updated = await updateVoice(ctx.db, callerOf(c).workspaceId, id, { ...rest, name: name ?? undefined, languages: languages ?? undefined });
    if (!updated) throw noVoice(id);
    return c.json(updated);
  });

  app.delete('/:voice_id', async (c) => {
    const id = c.req.param('voice_id');
    if (presetById(id)) throw presetIsReadOnly(id, 'deleted');
    const deleted = await deleteVoice(ctx.db, callerOf(c).workspaceId, id);
    if (!deleted) throw noVoice(id);
    return c.json(deleted);
  });

  app.get('/:voice_id/sample', async (c) => {
    const id = c.req.param('voice_id');
    const preset = presetById(id);
    const wav = preset ? await presetSample(ctx, preset) : await voiceSample(ctx.db, callerOf(c).workspaceId, id);
    if (!wav) throw noVoice(id);
    return c.body(wav as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'audio/wav' });
  });

  return app;
}

/** A preset voice's sample: a sentence synthesised with it, as WAV. */
async function presetSample(ctx: PlatformContext, voice: PresetVoice): Promise<Uint8Array> {
  const engine = ctx.speech.engineOfVoice(voice);
  const wav = await createEncoder('wav');
  const parts: Uint8Array[] = [];
  try {
    await engine.ready();
    for await (const chunk of engine.synthesize({ text: PRESET_SAMPLE_TEXT, voice })) parts.push(wav.push(chunk));
  } catch (err) {
    throw speechEngineError(err);
  }
  parts.push(wav.end());
  return wav.finalize(Buffer.concat(parts));
}
