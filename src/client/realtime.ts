/**
 * Realtime transcription on the client: a short-lived secret from `POST {base}/v1/client/sessions`,
 * then the WebSocket `{base}/v1/audio/transcriptions/realtime?model=…` opened with subprotocols
 * `['realtime', secret]` (the only place a browser can put a credential on a WebSocket). The session
 * is ready after `session.created` (and `session.updated` when the audio format had to change);
 * server events are then an async iterable. Works with the browser's WebSocket or any class with
 * the same interface (the `ws` package under Node). Loaded on first use; isomorphic.
 */
import { encodeBase64 } from './base64.js';
import type { RealtimeTranscriptionOptions, RealtimeTranscriptionSession } from './contracts.js';
import { EventQueue } from './event-queue.js';
import { PlatformError, STREAM_ERROR } from './errors.js';
import { abortError } from './retry.js';
import type { ClientSessionResponse, RealtimeClientMessage, RealtimeErrorEvent, RealtimeServerEvent, RealtimeSessionInfo, TranscriptionResponse } from './types.js';

/** The realtime model the client asks for when none is named. */
export const DEFAULT_REALTIME_MODEL = 'voxtral-mini-transcribe-realtime-2602';
/** Rate of the PCM the client appends when none is named. */
export const DEFAULT_REALTIME_SAMPLE_RATE = 16000;

/** What {@link openRealtimeTranscription} needs from the client. */
export interface RealtimeConnector {
  /** The client's base URL (may be relative in a page: resolved against `location`). */
  baseUrl: string;
  /** WebSocket class (the global one when undefined). */
  webSocket: typeof WebSocket | undefined;
  /** `POST {base}/v1/client/sessions` with the client's auth. */
  createSecret(model: string, signal?: AbortSignal): Promise<ClientSessionResponse>;
}

/** `ws(s)://…/v1/audio/transcriptions/realtime?model=…` from an http(s) base URL, relative ones against the page. */
export function realtimeUrl(baseUrl: string, model: string): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/v1/audio/transcriptions/realtime`, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : url.protocol === 'http:' ? 'ws:' : url.protocol;
  url.searchParams.set('model', model);
  return url.href;
}

/** Opens a realtime session; resolves once it is ready for audio. Every failure is a PlatformError (or an AbortError). */
export async function openRealtimeTranscription(connector: RealtimeConnector, options: RealtimeTranscriptionOptions = {}): Promise<RealtimeTranscriptionSession> {
  const model = options.model ?? DEFAULT_REALTIME_MODEL;
  const Socket = connector.webSocket ?? (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!Socket) {
    throw new PlatformError({ status: 0, type: 'unsupported', code: null, retryAfter: null, message: 'No WebSocket here: pass a WebSocket class in the client options' });
  }
  if (options.signal?.aborted) throw abortError(options.signal);
  const answer = await connector.createSecret(model, options.signal);
  const secret = answer?.client_secret?.value;
  if (typeof secret !== 'string' || !secret) {
    throw new PlatformError({ status: 201, type: 'invalid_response', code: null, retryAfter: null, message: 'The client session answer has no client_secret' });
  }
  let socket: WebSocket;
  try {
    socket = new Socket(realtimeUrl(connector.baseUrl, model), ['realtime', secret]);
  } catch (error) {
    throw PlatformError.network(error);
  }
  return new RealtimeSession(socket, options).ready;
}

type Phase = 'connecting' | 'updating' | 'open' | 'closed';

/** One realtime WebSocket session; see {@link RealtimeTranscriptionSession}. */
class RealtimeSession implements RealtimeTranscriptionSession {
  readonly ready: Promise<RealtimeSession>;
  readonly #socket: WebSocket;
  readonly #queue = new EventQueue<RealtimeServerEvent>();
  readonly #sampleRate: number;
  readonly #delayMs: number | undefined;
  #phase: Phase = 'connecting';
  #info: RealtimeSessionInfo | null = null;
  #lastError: PlatformError | null = null;
  #settleReady!: { resolve: (s: RealtimeSession) => void; reject: (e: unknown) => void };
  #ending: { promise: Promise<TranscriptionResponse>; resolve: (r: TranscriptionResponse) => void; reject: (e: unknown) => void } | null = null;
  #unlink: () => void = () => {};

  constructor(socket: WebSocket, options: RealtimeTranscriptionOptions) {
    this.#socket = socket;
    this.#sampleRate = options.sampleRate ?? DEFAULT_REALTIME_SAMPLE_RATE;
    this.#delayMs = options.targetStreamingDelayMs;
    this.ready = new Promise((resolve, reject) => {
      this.#settleReady = { resolve, reject };
    });
    socket.onmessage = (event) => this.#onMessage(event.data);
    socket.onclose = (event) => this.#onClose(event.code, event.reason);
    socket.onerror = () => {}; // a close event always follows, with what is known
    const signal = options.signal;
    if (signal) {
      const onAbort = () => {
        if (this.#phase !== 'open') this.#settleReady.reject(abortError(signal));
        this.close();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#unlink = () => signal.removeEventListener('abort', onAbort);
    }
  }

  get info(): RealtimeSessionInfo {
    return this.#info!;
  }

  get closed(): boolean {
    return this.#phase === 'closed';
  }

  append(pcm: Int16Array): void {
    this.#send({ type: 'input_audio.append', audio: encodeBase64(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)) });
  }

  flush(): void {
    this.#send({ type: 'input_audio.flush' });
  }

  end(): Promise<TranscriptionResponse> {
    if (this.#ending) return this.#ending.promise;
    let settle!: { resolve: (r: TranscriptionResponse) => void; reject: (e: unknown) => void };
    const promise = new Promise<TranscriptionResponse>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.#ending = { promise, ...settle };
    try {
      this.#send({ type: 'input_audio.end' });
    } catch (error) {
      settle.reject(error);
    }
    return promise;
  }

  close(): void {
    if (this.#phase === 'closed') return;
    this.#fail(PlatformError.stream('The realtime session was closed before the transcription finished'), true);
  }

  [Symbol.asyncIterator](): AsyncIterator<RealtimeServerEvent> {
    return {
      next: () => this.#queue.next(),
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }

  #send(message: RealtimeClientMessage): void {
    if (this.#phase !== 'open' && !(this.#phase === 'connecting' && message.type === 'session.update')) {
      throw PlatformError.stream(this.#phase === 'closed' ? 'The realtime session is closed' : 'The realtime session is not ready');
    }
    this.#socket.send(JSON.stringify(message));
  }

  #onMessage(data: unknown): void {
    if (this.#phase === 'closed' || typeof data !== 'string') return;
    let event: RealtimeServerEvent;
    try {
      event = JSON.parse(data);
    } catch (error) {
      return this.#fail(PlatformError.stream('Unreadable message from the realtime session', error));
    }
    if (!event || typeof event !== 'object' || typeof event.type !== 'string') return this.#fail(PlatformError.stream('Unreadable message from the realtime session'));
    if (event.type === 'error') {
      const error = errorOf(event);
      if (this.#phase !== 'open') return this.#fail(error);
      this.#lastError = error;
      this.#queue.push(event);
      this.#ending?.reject(error);
      return;
    }
    if (this.#phase === 'connecting' && event.type === 'session.created') {
      this.#info = event.session;
      const rate = event.session.audio_format?.sample_rate;
      if (rate === this.#sampleRate && this.#delayMs === undefined) return this.#open();
      this.#send({
        type: 'session.update',
        session: {
          audio_format: { encoding: 'pcm_s16le', sample_rate: this.#sampleRate },
          ...(this.#delayMs === undefined ? {} : { target_streaming_delay_ms: this.#delayMs }),
        },
      });
      this.#phase = 'updating';
      return;
    }
    if (event.type === 'session.updated' || event.type === 'session.created') {
      this.#info = event.session;
      if (this.#phase === 'updating') return this.#open();
    }
    if (this.#phase !== 'open') return;
    this.#queue.push(event);
    if (event.type === 'transcription.done') {
      const { type: _type, ...result } = event;
      this.#ending?.resolve(result);
    }
  }

  #open(): void {
    this.#phase = 'open';
    this.#settleReady.resolve(this);
  }

  #onClose(code: number, reason: string): void {
    if (this.#phase === 'closed') return;
    const normal = code === 1000;
    const error = this.#lastError ?? new PlatformError({
      status: 0, type: this.#phase === 'open' ? STREAM_ERROR : 'network_error', code: String(code), retryAfter: null,
      message: this.#phase === 'open'
        ? `The realtime session closed${reason ? `: ${reason}` : ` (code ${code})`}`
        : `The realtime session could not be opened (the server refused or dropped the connection, code ${code})`,
    });
    this.#closeWith(normal && this.#phase === 'open' ? null : error, false);
  }

  /** Fails the session before or after it opened (or ends it for the caller), and closes the socket. */
  #fail(error: PlatformError, byCaller = false): void {
    this.#closeWith(error, byCaller);
    try {
      this.#socket.close(1000);
    } catch {
      // already closing
    }
  }

  /** Settles everything once: `error` null is a normal end (after `transcription.done` or a 1000 close). */
  #closeWith(error: PlatformError | null, byCaller: boolean): void {
    const wasOpen = this.#phase === 'open';
    this.#phase = 'closed';
    this.#unlink();
    this.#settleReady.reject(error ?? PlatformError.stream('The realtime session closed before it was ready'));
    this.#ending?.reject(error ?? PlatformError.stream('The realtime session closed before the transcription finished'));
    if (error && wasOpen && !byCaller) this.#queue.fail(error);
    else this.#queue.end();
  }
}

function errorOf(event: RealtimeErrorEvent): PlatformError {
  const raw = event.error?.message;
  const message = typeof raw === 'string' ? raw : raw ? JSON.stringify(raw) : 'The realtime transcription failed';
  const code = event.error?.code;
  return new PlatformError({ status: 0, type: 'server_error', code: code == null ? null : String(code), retryAfter: null, message });
}
