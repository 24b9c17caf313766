/**
 * `POST /v1/audio/transcriptions` of the local platform (speech-to-text), multipart/form-data only.
 *
 * - Form fields: `model` (required; id or alias, e.g. `voxtral-mini-latest`), one of `file` (upload), `file_id`
 *   (a file of the files API) or `file_url`, then `language`, `temperature`, `diarize`, `context_bias` (repeated),
 *   `timestamp_granularities` (repeated `segment`/`word`), `stream`. Booleans are `"true"`/`"false"`.
 * - JSON → `{model, text, language, segments, usage}`; stream (`stream=true`, chosen by the field, not by
 *   `Accept`) → `transcription.language`, then per utterance as the engine cuts it one `transcription.text.delta`
 *   (followed by its `transcription.segment`s when timestamps are asked), then `transcription.done` (same
 *   payload as the JSON answer) and the stream closes. Every event has an `event:` line and `type` in its data.
 * - Segments: none unless `timestamp_granularities` is given; `segment` → one per utterance (score = mean word
 *   confidence), `word` → one per word. `diarize=true` sets `speaker_id: "speaker_1"` (one speaker; no real diarization).
 * - `language`: only English (`en`, `en-US`…) is recognised; other languages → 422. As documented for the real
 *   service, `language` together with `timestamp_granularities` → 422. `context_bias` (≤100) and `temperature`
 *   are validated and ignored.
 * - Input: see engines/transcription/decode.ts (WAV, MP3, Ogg Opus, WebM Opus; resampled to 16 kHz mono). Recognised
 *   but unsupported containers or codecs (FLAC, M4A, Ogg Vorbis, WebM Vorbis…) → 415; not audio → 422; larger than `maxAudioBytes`
 *   → 413. `file_id` names a file of the caller's workspace (files/store.ts; the files API's purposes are the SDK's
 *   fine-tune, batch and ocr, so audio goes up as `ocr`, the purpose that takes any bytes); unknown → 404.
 *   `file_url` is fetched only when its host (`host` or `host:port`) is on the `transcriptionUrlAllowlist` option
 *   (default empty → 422); redirects are not followed.
 * - Unknown or non-transcription model (also the realtime-only model) → 400 `invalid_model`. Engine missing → 503 naming the apt-get line;
 *   busy → 503 with `Retry-After: 1`.
 * - Text joining, segments and usage: see engines/transcription/transcript.ts (shared with the realtime WebSocket).
 */
import { Hono } from 'hono';
import type { ValidationIssue } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { isoNow } from '../http/ids.js';
import { sseEvent, sseResponse } from '../http/sse.js';
import { callerClosedRequest, engineBusy, engineUnavailable, genericError, invalidField, invalidModel, notFound, validationError } from '../http/errors.js';
import { BodyTooLargeError } from 'parley-kit/server';
import { checkFilePart, fileTooLarge, readMultipart } from '../http/multipart.js';
import { readFileBytes } from '../files/store.js';
import { FetchFailedError, checkAllowlistedUrl, fetchCapped } from '../http/fetch-allowlisted.js';
import { InvalidAudioError, SUPPORTED_AUDIO, UnsupportedAudioError, decodeAudio, toEnginePcm, type DecodedAudio } from '../engines/transcription/decode.js';
import { TranscriptionEngineBusyError, TranscriptionEngineUnavailableError, type Utterance } from '../engines/transcription/types.js';
import { Transcript, type Granularity } from '../engines/transcription/transcript.js';

/** Default cap on an audio file (upload or fetched), in bytes. */
export const DEFAULT_MAX_AUDIO_BYTES = 25 * 1024 * 1024;
const MAX_CONTEXT_BIAS = 100;

interface TranscriptionForm {
  model: string;
  file?: Uint8Array;
  fileId?: string;
  fileUrl?: URL;
  language: string | null;
  diarize: boolean;
  granularities: Granularity[];
  stream: boolean;
}

const loc = (field: string) => ['body', field];

function parseBool(value: FormDataEntryValue | null, field: string, issues: ValidationIssue[]): boolean | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string' && /^(true|false|1|0)$/i.test(value.trim())) return /^(true|1)$/i.test(value.trim());
  issues.push({ loc: loc(field), msg: 'Input should be a valid boolean ("true" or "false")', type: 'bool_parsing', input: typeof value === 'string' ? value : '(file)' });
  return undefined;
}

const audioTooLarge = (limit: number, field = 'file') => fileTooLarge(limit, field, 'Audio file');

async function parseForm(form: FormData, maxAudioBytes: number, allowlist: readonly string[]): Promise<TranscriptionForm> {
  const issues: ValidationIssue[] = [];
  const str = (field: string): string | null => {
    const v = form.get(field);
    if (v === null) return null;
    if (typeof v !== 'string') { issues.push({ loc: loc(field), msg: 'Input should be a valid string', type: 'string_type', input: '(file)' }); return null; }
    return v;
  };
  const model = str('model');
  if (model === null || !model.trim()) issues.push({ loc: loc('model'), msg: 'Field required', type: 'missing' });
  let language = str('language');
  if (language !== null && !language.trim()) language = null;
  const temperature = str('temperature');
  if (temperature !== null && temperature.trim() !== '' && !Number.isFinite(Number(temperature))) {
    issues.push({ loc: loc('temperature'), msg: 'Input should be a valid number', type: 'float_parsing', input: temperature });
  }
  const diarize = parseBool(form.get('diarize'), 'diarize', issues) ?? false;
  const stream = parseBool(form.get('stream'), 'stream', issues) ?? false;
  const bias = form.getAll('context_bias');
  if (bias.length > MAX_CONTEXT_BIAS) issues.push({ loc: loc('context_bias'), msg: `List should have at most ${MAX_CONTEXT_BIAS} items`, type: 'too_long' });
  bias.forEach((b, i) => { if (typeof b !== 'string') issues.push({ loc: [...loc('context_bias'), i], msg: 'Input should be a valid string', type: 'string_type' }); });
  const granularities: Granularity[] = [];
  form.getAll('timestamp_granularities').forEach((g, i) => {
    if (g === 'segment' || g === 'word') granularities.push(g);
    else issues.push({ loc: [...loc('timestamp_granularities'), i], msg: "Input should be 'segment' or 'word'", type: 'enum', input: typeof g === 'string' ? g : '(file)' });
  });
  if (language !== null && granularities.length) {
    issues.push({ loc: loc('language'), msg: 'language is not compatible with timestamp_granularities; omit one of them', type: 'value_error', input: language });
  } else if (language !== null && !/^en([-_][a-z]{2,4})?$/i.test(language.trim())) {
    issues.push({ loc: loc('language'), msg: `Language '${language}' is not supported by the local platform; only English ('en') is recognised`, type: 'value_error', input: language });
  }

  const fileEntry = form.get('file');
  const fileId = str('file_id')?.trim() || null;
  const fileUrlRaw = str('file_url');
  let file: Uint8Array | undefined;
  let fileUrl: URL | undefined;
  const sources = [fileEntry !== null && 'file', fileId !== null && 'file_id', fileUrlRaw !== null && 'file_url'].filter((f) => f !== false);
  if (sources.length > 1) {
    issues.push({ loc: loc(sources[1]), msg: `Give only one of file, file_id and file_url, not ${sources.join(' and ')}`, type: 'value_error' });
  } else if (fileEntry !== null) {
    const checked = checkFilePart(fileEntry, maxAudioBytes, 'file', 'Audio file');
    if ('loc' in checked) issues.push(checked);
    else file = new Uint8Array(await checked.arrayBuffer());
  } else if (fileUrlRaw !== null) {
    const url = checkAllowlistedUrl(fileUrlRaw, allowlist, 'transcriptionUrlAllowlist');
    if (url instanceof URL) fileUrl = url;
    else issues.push({ loc: loc('file_url'), msg: url.type === 'value_error' ? `${url.msg}; upload the audio as file instead` : url.msg, type: url.type, input: fileUrlRaw });
  } else if (fileId === null) {
    issues.push({ loc: loc('file'), msg: 'Field required: give the audio as file (upload), file_id or file_url', type: 'missing' });
  }
  if (issues.length) throw validationError(issues);
  return { model: model!.trim(), file, fileId: fileId ?? undefined, fileUrl, language: language?.trim() ?? null, diarize, granularities, stream };
}

async function fetchAudio(url: URL, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  try {
    return await fetchCapped(url, maxBytes, signal);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw audioTooLarge(maxBytes);
    if (err instanceof FetchFailedError) throw invalidField(loc('file_url'), `Could not fetch file_url: ${err.message}`, 'value_error', url.href);
    throw err;
  }
}

/** The bytes of a file of the files API: unknown (or not visible to the caller) → 404, over the cap → 413. */
async function storedAudio(ctx: PlatformContext, caller: { workspaceId: string; userId: string }, id: string, maxBytes: number): Promise<Uint8Array> {
  const stored = await readFileBytes(ctx.db, caller.workspaceId, id, caller.userId);
  if (!stored) throw notFound(`File '${id}' not found`);
  if (stored.bytes.byteLength > maxBytes) throw audioTooLarge(maxBytes, 'file_id');
  return stored.bytes;
}

function engineError(err: unknown): unknown {
  if (err instanceof TranscriptionEngineUnavailableError) return engineUnavailable(err.message);
  if (err instanceof TranscriptionEngineBusyError) return engineBusy(err.message);
  return err;
}

export function transcriptionRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const { maxAudioBytes, urlAllowlist } = ctx.audioInput;

  app.post('/', async (c) => {
    const raw = await readMultipart(c.req.raw, {
      maxFileBytes: maxAudioBytes, route: 'POST /v1/audio/transcriptions (fields model, file, file_id or file_url, …)', fileField: 'file', fileKind: 'Audio file',
    });
    const form = await parseForm(raw, maxAudioBytes, urlAllowlist);
    const resolved = ctx.transcription.resolve(form.model);
    if (!resolved?.card.capabilities.audio_transcription) throw invalidModel(form.model, { kind: 'a speech-to-text model', capability: 'audio_transcription' });
    const local = new AbortController();
    const signal = AbortSignal.any([c.req.raw.signal, local.signal]);
    const bytes = form.file
      ?? (form.fileId !== undefined ? await storedAudio(ctx, callerOf(c), form.fileId, maxAudioBytes) : await fetchAudio(form.fileUrl!, maxAudioBytes, signal));
    let audio: DecodedAudio;
    try {
      audio = await decodeAudio(bytes);
    } catch (err) {
      if (err instanceof UnsupportedAudioError) throw genericError(415, err.message, 'invalid_request_error', 'unsupported_audio_format', 'file');
      if (err instanceof InvalidAudioError) throw invalidField(loc(form.file ? 'file' : form.fileId !== undefined ? 'file_id' : 'file_url'), `${err.message} (supported: ${SUPPORTED_AUDIO})`, 'value_error');
      throw err;
    }
    const model = form.model;
    const language = form.language ?? 'en';
    const utterances = resolved.engine.transcribe({ audio: toEnginePcm(audio), signal })[Symbol.asyncIterator]();
    let first: IteratorResult<Utterance>;
    try {
      await resolved.engine.ready();
      first = await utterances.next();
    } catch (err) {
      await utterances.return?.();
      throw engineError(err);
    }
    await ctx.usage.record({ userId: callerOf(c).userId, workspaceId: callerOf(c).workspaceId, model: resolved.card.id, endpoint: 'audio.transcriptions', promptTokens: 0, completionTokens: 0, unit: 'seconds', quantity: audio.samples.length / audio.sampleRate, at: isoNow() });

    const transcript = new Transcript({ granularities: form.granularities, diarize: form.diarize });
    const done = () => transcript.result(model, language, audio.samples.length / audio.sampleRate);

    if (!form.stream) {
      try {
        for (let r = first; !r.done; r = await utterances.next()) {
          transcript.add(r.value);
        }
      } finally {
        await utterances.return?.();
      }
      if (signal.aborted) return callerClosedRequest();
      return c.json(done());
    }

    let pending: IteratorResult<Utterance> | undefined = first;
    let started = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            controller.enqueue(sseEvent('transcription.language', { audio_language: language }));
            return;
          }
          const r = pending ?? (await utterances.next());
          pending = undefined;
          if (r.done) {
            if (!signal.aborted) controller.enqueue(sseEvent('transcription.done', { ...done() }));
            controller.close();
            return;
          }
          const added = transcript.add(r.value);
          controller.enqueue(sseEvent('transcription.text.delta', { text: added.delta }));
          for (const s of added.segments) {
            controller.enqueue(sseEvent('transcription.segment', { text: s.text, start: s.start, end: s.end, speaker_id: s.speaker_id ?? null }));
          }
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        local.abort();
        await utterances.return?.();
      },
    });
    return sseResponse(stream);
  });

  return app;
}
