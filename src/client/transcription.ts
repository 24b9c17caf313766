/**
 * Speech to text on the client, from files: `POST /v1/audio/transcriptions` as a multipart form
 * (fields as the official SDK writes them: arrays as repeated fields, booleans as "true"/"false"),
 * answered as one JSON result or streamed as server-sent events. Loaded on first use (the client
 * imports it lazily), like the speech code. Isomorphic: no DOM, no Node built-ins.
 */
import type { TranscribeOptions, TranscriptionEventStream } from './contracts.js';
import type { StreamTransport } from './conversation-stream.js';
import { PlatformError } from './errors.js';
import { abortError } from './retry.js';
import { SseRequestStream } from './sse-request-stream.js';
import type { TranscriptionResponse, TranscriptionStreamEvent } from './types.js';

/** The platform's file transcription model the client asks for when none is named. */
export const DEFAULT_TRANSCRIPTION_MODEL = 'voxtral-mini-latest';

const EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3',
  'audio/ogg': 'ogg', 'audio/webm': 'webm', 'audio/flac': 'flac', 'audio/mp4': 'm4a', 'audio/aac': 'aac',
};

/** The form of a transcription request (`stream` decides between the JSON and the SSE answer). */
export function transcriptionForm(file: Blob, options: TranscribeOptions, stream: boolean): FormData {
  const form = new FormData();
  form.append('model', options.model ?? DEFAULT_TRANSCRIPTION_MODEL);
  form.append('file', file, fileName(file, options.filename));
  if (options.language !== undefined) form.append('language', options.language);
  if (options.temperature !== undefined) form.append('temperature', String(options.temperature));
  if (options.diarize !== undefined) form.append('diarize', options.diarize ? 'true' : 'false');
  for (const phrase of options.contextBias ?? []) form.append('context_bias', phrase);
  for (const granularity of options.timestampGranularities ?? []) form.append('timestamp_granularities', granularity);
  form.append('stream', stream ? 'true' : 'false');
  return form;
}

/** The name sent with the file part: the option, the File's own name, else `audio.<ext>` from its type. */
function fileName(file: Blob, name: string | undefined): string {
  if (name) return name;
  const own = (file as { name?: unknown }).name;
  if (typeof own === 'string' && own) return own;
  const type = file.type.split(';')[0]!.trim().toLowerCase();
  return `audio.${EXTENSIONS[type] ?? 'bin'}`;
}

/** Checks the JSON answer of a transcription: an object with a text. */
export function transcriptionResult(body: unknown): TranscriptionResponse {
  if (!body || typeof body !== 'object' || typeof (body as { text?: unknown }).text !== 'string') {
    throw new PlatformError({ status: 200, type: 'invalid_response', code: null, retryAfter: null, message: 'The transcription answer has no text' });
  }
  return body as TranscriptionResponse;
}

const EVENT_TYPES = new Set(['transcription.language', 'transcription.text.delta', 'transcription.segment', 'transcription.done']);

/**
 * One streamed file transcription (`stream=true`): the platform's four event types in order, the
 * last being `transcription.done`, whose payload is also {@link result}.
 */
export class TranscriptionSseStream extends SseRequestStream<TranscriptionStreamEvent> implements TranscriptionEventStream {
  readonly result: Promise<TranscriptionResponse>;
  protected readonly incompleteMessage = 'The stream ended before the transcription finished';
  #settle!: { resolve: (r: TranscriptionResponse) => void; reject: (e: unknown) => void };

  constructor(url: string, file: Blob, options: TranscribeOptions, transport: StreamTransport) {
    super();
    this.result = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.result.catch(() => {}); // reading `result` is optional
    this.start(url, { method: 'POST', body: transcriptionForm(file, options, true) }, transport, options.signal);
  }

  protected onEvent(type: string | undefined, data: Record<string, unknown>): void {
    if (type === 'transcription.done') {
      const done = { ...data, type } as TranscriptionStreamEvent & TranscriptionResponse;
      this.queue.push(done);
      this.#settle.resolve(done);
      this.finish(null);
    } else if (type && EVENT_TYPES.has(type)) {
      this.queue.push({ ...data, type } as TranscriptionStreamEvent);
    } else if (type === 'error' || type?.endsWith('.error')) {
      const message = typeof data.message === 'string' && data.message ? data.message : 'The transcription failed';
      this.finish(new PlatformError({ status: 0, type: 'server_error', code: data.code == null ? null : String(data.code), retryAfter: null, message }));
    }
    // Other event kinds are newer than this client: skipped, not fatal.
  }

  protected onWhole(body: unknown): void {
    const result = transcriptionResult(body);
    this.queue.push({ ...result, type: 'transcription.done' });
    this.#settle.resolve(result);
    this.finish(null);
  }

  protected onEnd(error: PlatformError | null, aborted: boolean): void {
    if (error) this.#settle.reject(error);
    else if (aborted) this.#settle.reject(abortError());
  }
}
