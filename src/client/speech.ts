/**
 * Text to speech on the client: `POST /v1/audio/speech` as one JSON answer, or streamed as
 * server-sent `speech.audio.delta` events whose base64 fragments are decoded here into bytes of the
 * requested format (concatenated, they are the file). Same transport, errors, retries before the
 * first byte and abort as conversations. Isomorphic: no DOM, no Node built-ins.
 */
import type { SpeechAudioStream, SpeechFormat, SpeechRequest, SpeechUsage, SynthesizedSpeech } from './contracts.js';
import { PlatformError } from './errors.js';
import type { StreamTransport } from './conversation-stream.js';
import { SseRequestStream } from './sse-request-stream.js';

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
export class SpeechEventStream extends SseRequestStream<Uint8Array> implements SpeechAudioStream {
  readonly format: SpeechFormat;
  /** The `speech.audio.done` usage; null when the stream ends any other way. */
  readonly usage: Promise<SpeechUsage | null>;
  protected readonly incompleteMessage = 'The stream ended before the audio finished';
  protected override readonly lostMessage = 'The connection was lost before the audio finished';
  protected override readonly unreadableMessage = 'Unreadable event in the audio stream';
  #resolveUsage!: (usage: SpeechUsage | null) => void;

  constructor(url: string, request: SpeechRequest, transport: StreamTransport, signal?: AbortSignal) {
    super();
    this.format = request.response_format ?? DEFAULT_SPEECH_FORMAT;
    this.usage = new Promise((resolve) => {
      this.#resolveUsage = resolve;
    });
    // The SDK sends the event-stream Accept too; the platform picks streaming from the body's `stream`.
    const body = JSON.stringify({ ...request, stream: true });
    this.start(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, transport, signal);
  }

  protected onEvent(type: string | undefined, data: Record<string, unknown>): void {
    if (type === 'speech.audio.delta') {
      if (typeof data.audio_data !== 'string') return this.finish(PlatformError.stream('An audio delta without audio_data'));
      try {
        const bytes = decodeBase64(data.audio_data);
        if (bytes.length) this.queue.push(bytes);
      } catch (error) {
        this.finish(PlatformError.from(error));
      }
    } else if (type === 'speech.audio.done') {
      this.#resolveUsage((data.usage as SpeechUsage | undefined) ?? null);
      this.finish(null);
    } else if (type === 'error' || type?.endsWith('.error')) {
      this.finish(new PlatformError({
        status: 0, type: 'server_error', code: data.code == null ? null : String(data.code), retryAfter: null,
        message: typeof data.message === 'string' && data.message ? data.message : 'Speech synthesis failed',
      }));
    }
    // Other event kinds are newer than this client: skipped, not fatal.
  }

  /** A server that answered the whole file as JSON: one fragment. */
  protected onWhole(body: unknown): void {
    this.queue.push(synthesizedSpeech(body, this.format).bytes);
    this.finish(null);
  }

  protected onEnd(): void {
    this.#resolveUsage(null); // no-op after `speech.audio.done` resolved it
  }
}
