/**
 * Text to speech on the client: `POST /v1/audio/speech` as one JSON answer, or streamed as
 * server-sent `speech.audio.delta` events whose base64 fragments are decoded here into bytes of the
 * requested format (concatenated, they are the file). Same transport, errors, retries before the
 * first byte and abort as conversations. Isomorphic: no DOM, no Node built-ins.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { SpeechAudioStream, SpeechFormat, SpeechRequest, SpeechUsage, SynthesizedSpeech } from './contracts.js';
import { EventQueue } from './event-queue.js';
import { PlatformError, isAbortError } from './errors.js';
import type { StreamTransport } from './conversation-stream.js';

/** The platform's default format when a request names none. */
export const DEFAULT_SPEECH_FORMAT: SpeechFormat = 'mp3';

/** Decodes standard (or URL-safe) base64; throws a `stream_error` PlatformError on anything else. */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/[\s=]+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (/[^A-Za-z0-9+/]/.test(clean) || clean.length % 4 === 1) throw PlatformError.stream('The server sent audio that is not base64');
  const padded = clean + '==='.slice((clean.length + 3) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Reads the JSON answer of a non-streamed synthesis. */
export function synthesizedSpeech(body: unknown, format: SpeechFormat): SynthesizedSpeech {
  const audio = (body as { audio_data?: unknown } | null)?.audio_data;
  if (typeof audio !== 'string') {
    throw new PlatformError({ status: 200, type: 'invalid_response', code: null, retryAfter: null, message: 'The speech answer has no audio_data' });
  }
  return { audio_data: audio, bytes: decodeBase64(audio), format };
}

/**
 * One streamed synthesis. The request starts at once; decoded fragments are buffered until read.
 *
 * - Iteration yields the bytes of each `speech.audio.delta` in order and ends after `speech.audio.done`.
 * - An error answer (after retries before any answer) or no answer at all throws a PlatformError first.
 * - An error event, a broken connection or a close before `speech.audio.done` throws after what arrived.
 * - `abort()`, the signal, or leaving a `for await` loop cancel the request and end the iteration quietly.
 */
export class SpeechEventStream implements SpeechAudioStream {
  readonly format: SpeechFormat;
  readonly usage: Promise<SpeechUsage | null>;
  readonly #queue = new EventQueue<Uint8Array>();
  readonly #controller = new AbortController();
  #resolveUsage!: (usage: SpeechUsage | null) => void;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #finished = false;
  #unlink: () => void = () => {};

  constructor(url: string, request: SpeechRequest, transport: StreamTransport, signal?: AbortSignal) {
    this.format = request.response_format ?? DEFAULT_SPEECH_FORMAT;
    this.usage = new Promise((resolve) => {
      this.#resolveUsage = resolve;
    });
    if (signal?.aborted) {
      this.abort();
      return;
    }
    const onAbort = () => this.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', onAbort);
    void this.#run(url, JSON.stringify({ ...request, stream: true }), transport);
  }

  /** Whether the request was aborted (by `abort()`, the signal, or leaving the loop). */
  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Cancels the request; the iteration ends quietly. */
  abort(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort();
    this.#reader?.cancel().catch(() => {});
    if (this.#finished) return;
    this.#finished = true;
    this.#unlink();
    this.#queue.discard();
    this.#resolveUsage(null);
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => this.#queue.next(),
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }

  async #run(url: string, body: string, transport: StreamTransport): Promise<void> {
    const signal = this.#controller.signal;
    let res: Response;
    try {
      // The SDK sends this Accept too; the platform picks streaming from the body's `stream`.
      res = await transport(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body, signal });
    } catch (error) {
      return this.#fail(error);
    }
    if (this.#finished) {
      await res.body?.cancel().catch(() => {});
      return;
    }
    if (!res.ok) return this.#fail(await PlatformError.fromResponse(res));
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('application/json')) return this.#readWhole(res);
    if (!type.startsWith('text/event-stream') || !res.body) {
      await res.body?.cancel().catch(() => {});
      return this.#fail(PlatformError.stream(`Expected an event stream, got ${type || 'no content type'}`));
    }
    const reader = res.body.getReader();
    this.#reader = reader;
    if (signal.aborted) return void reader.cancel().catch(() => {});
    const decoder = new TextDecoder();
    const parser = createParser({ onEvent: (message) => this.#onMessage(message) });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        if (this.#finished) return;
      }
    } catch (error) {
      if (signal.aborted || isAbortError(error)) return this.abort();
      return this.#finish(PlatformError.stream('The connection was lost before the audio finished', error));
    }
    if (!this.#finished) this.#finish(PlatformError.stream('The stream ended before the audio finished'));
  }

  /** A server that answered the whole file as JSON: one fragment. */
  async #readWhole(res: Response): Promise<void> {
    try {
      const speech = synthesizedSpeech(await res.json(), this.format);
      this.#queue.push(speech.bytes);
      this.#finish(null, null);
    } catch (error) {
      this.#fail(error);
    }
  }

  #onMessage(message: EventSourceMessage): void {
    if (this.#finished || !message.data) return;
    let event: { type?: unknown; audio_data?: unknown; usage?: unknown; message?: unknown; code?: unknown };
    try {
      event = JSON.parse(message.data);
    } catch (error) {
      return this.#finish(PlatformError.stream('Unreadable event in the audio stream', error));
    }
    const type = typeof event?.type === 'string' ? event.type : message.event;
    if (type === 'speech.audio.delta') {
      if (typeof event.audio_data !== 'string') return this.#finish(PlatformError.stream('An audio delta without audio_data'));
      try {
        const bytes = decodeBase64(event.audio_data);
        if (bytes.length) this.#queue.push(bytes);
      } catch (error) {
        this.#finish(PlatformError.from(error));
      }
    } else if (type === 'speech.audio.done') {
      this.#finish(null, (event.usage as SpeechUsage | undefined) ?? null);
    } else if (type === 'error' || (typeof type === 'string' && type.endsWith('.error'))) {
      this.#finish(new PlatformError({
        status: 0, type: 'server_error', code: event.code == null ? null : String(event.code), retryAfter: null,
        message: typeof event.message === 'string' && event.message ? event.message : 'Speech synthesis failed',
      }));
    }
    // Other event kinds are newer than this client: skipped, not fatal.
  }

  #fail(error: unknown): void {
    if (this.#finished) return;
    if (this.#controller.signal.aborted || isAbortError(error)) return this.abort();
    this.#finish(PlatformError.from(error));
  }

  #finish(error: PlatformError | null, usage: SpeechUsage | null = null): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#unlink();
    this.#reader?.cancel().catch(() => {});
    this.#resolveUsage(usage);
    if (error) this.#queue.fail(error);
    else this.#queue.end();
  }
}

