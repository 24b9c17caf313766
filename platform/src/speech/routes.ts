/**
 * `POST /v1/audio/speech` of the local platform (voices: voices/routes.ts).
 *
 * - JSON or event stream is chosen by the body's `stream` field, never by `Accept` (the official SDK sends
 *   `Accept: application/json;q=1, text/event-stream;q=0` even when streaming).
 * - JSON → `{audio_data}` = base64 of the whole file. Stream → `speech.audio.delta` events
 *   (`{type, audio_data}` = base64 of the next bytes of the file) then one `speech.audio.done` with integer
 *   usage; the stream ends by closing. Every event has an `event:` line and `type` in its data.
 * - Formats (default `mp3`): see engines/speech/encoders.ts. All are produced chunk by chunk, so streamed
 *   compressed formats stream too. Streamed `wav` carries 0xFFFFFFFF ("unknown") RIFF/data sizes and streamed
 *   `flac` a STREAMINFO with 0 ("unknown") total samples and MD5; JSON answers carry the exact values.
 * - Validation (422, FastAPI `detail`): `input` must be a string with non-whitespace text, at most
 *   {@link MAX_INPUT_CHARS} characters; unknown `response_format` (the message lists the supported ones);
 *   unknown `voice_id` (preset or the workspace's custom voice, id or slug); `ref_audio` (zero-shot cloning) is not supported.
 *   A custom voice speaks with the espeak-ng variant closest to its sample's pitch (voices/binding.ts).
 *   An unknown or non-TTS `model` → 400 `invalid_model` (code 1500, param `model`), the same answer as
 *   conversations give. No `model` → `parley-espeak`; no `voice_id` → the engine's first voice (`en-us-male`).
 * - Engine missing (optional dependency not installed) → 503 naming `npm install @echogarden/espeak-ng-emscripten`;
 *   engine queue full → 503 with `Retry-After: 1`.
 * - usage: `prompt_tokens` = words and punctuation marks of the input, `completion_tokens` = output samples
 *   at 24 kHz (the real service's example usage matches its audio length in samples), `total_tokens` = sum.
 * - The client disconnecting (request signal) or cancelling the stream stops synthesis and frees the engine.
 * - Moderation (the real service answers 403 for rejected text) is left for later.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { isoNow } from '../http/ids.js';
import { sseEvent, sseResponse } from '../http/sse.js';
import { callerClosedRequest, invalidField, invalidModel } from '../http/errors.js';
import { readJson } from '../http/validation.js';
import { nullable } from '../http/schemas.js';
import { createEncoder } from '../engines/speech/encoders.js';
import { resolveSpeechVoice } from '../voices/binding.js';
import { SPEECH_FORMATS, type SpeechFormat } from '../engines/speech/types.js';
import { speechEngineError } from './engine-error.js';

/** Longest `input` accepted, in characters (about 4–5 minutes of speech). */
export const MAX_INPUT_CHARS = 4096;


const SpeechRequestSchema = z.looseObject({
  input: z
    .string()
    .min(1, { abort: true })
    .max(MAX_INPUT_CHARS, { abort: true })
    .refine((s) => /\S/.test(s), { message: 'Input should contain text to speak, not only whitespace' }),
  model: nullable(z.string()),
  voice_id: nullable(z.string()),
  ref_audio: nullable(z.string()),
  response_format: z.enum(SPEECH_FORMATS).optional(),
  stream: z.boolean().optional(),
  prompt_cache_key: nullable(z.string()),
  metadata: nullable(z.record(z.string(), z.unknown())),
});



function usageFor(input: string, samples: number) {
  const prompt = (input.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;
  return { prompt_tokens: prompt, completion_tokens: samples, total_tokens: prompt + samples };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export function speechRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.post('/', async (c) => {
    const body = await readJson(c, SpeechRequestSchema, ctx.limits.maxJsonBytes);
    const resolved = ctx.speech.resolveModel(body.model);
    if (!resolved) throw invalidModel(body.model ?? '(none)', { kind: 'a text-to-speech model', capability: 'audio_speech' });
    if (body.ref_audio != null) {
      throw invalidField(['body', 'ref_audio'], 'Zero-shot voice cloning (ref_audio) is not supported by the local platform; use voice_id with a preset voice', 'value_error');
    }
    const voice = await resolveSpeechVoice(ctx.db, ctx.speech, callerOf(c).workspaceId, resolved.engine, body.voice_id);
    if (!voice) {
      throw invalidField(['body', 'voice_id'], `Voice '${body.voice_id}' not found; GET /v1/audio/voices lists the voices (id or slug)`, 'value_error', body.voice_id);
    }
    const format: SpeechFormat = body.response_format ?? 'mp3';
    const text = body.input;

    const local = new AbortController();
    const signal = AbortSignal.any([c.req.raw.signal, local.signal]);
    const audio = resolved.engine.synthesize({ text, voice, signal })[Symbol.asyncIterator]();
    let first: IteratorResult<Float32Array>;
    try {
      await resolved.engine.ready();
      first = await audio.next(); // errors before any audio still get a proper status
    } catch (err) {
      throw speechEngineError(err);
    }
    const enc = await createEncoder(format);
    await ctx.usage.record({ userId: callerOf(c).userId, workspaceId: callerOf(c).workspaceId, model: resolved.card.id, endpoint: 'audio.speech', promptTokens: 0, completionTokens: 0, unit: 'characters', quantity: [...text].length, at: isoNow() });
    let samples = 0;
    const encode = (chunk: Float32Array) => { samples += chunk.length; return enc.push(chunk); };

    if (!body.stream) {
      const parts: Uint8Array[] = [];
      try {
        for (let r = first; !r.done; r = await audio.next()) parts.push(encode(r.value));
      } finally {
        await audio.return?.();
      }
      if (signal.aborted) return callerClosedRequest();
      parts.push(enc.end());
      const file = enc.finalize(Buffer.concat(parts));
      return c.json({ audio_data: b64(file) });
    }

    let pending: IteratorResult<Float32Array> | undefined = first;
    let finished = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          for (;;) {
            const r = pending ?? (await audio.next());
            pending = undefined;
            if (r.done) {
              if (finished) return;
              finished = true;
              const tail = enc.end();
              if (tail.length) controller.enqueue(sseEvent('speech.audio.delta', { audio_data: b64(tail) }));
              if (!signal.aborted) controller.enqueue(sseEvent('speech.audio.done', { usage: usageFor(text, samples) }));
              controller.close();
              return;
            }
            const bytes = encode(r.value);
            if (bytes.length) {
              controller.enqueue(sseEvent('speech.audio.delta', { audio_data: b64(bytes) }));
              return;
            }
          }
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        local.abort();
        await audio.return?.();
      },
    });
    return sseResponse(stream);
  });

  return app;
}

