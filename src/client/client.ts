/**
 * The typed client of the platform HTTP API (through the relay, or straight to a platform):
 * JSON calls, streamed turns as async iterables, one error type, retries before any answer,
 * and a bearer token from a relay session or the site's own function.
 */
import type {
  ConversationStream, FeedbackRequest, OcrOptions, ParleyClientApi, RealtimeTranscriptionOptions, RequestOptions, SpeechAudioStream, SpeechRequest, SpeechVoiceList,
  TranscribeOptions, TranscriptionEventStream,
} from './contracts.js';
import type {
  Agent, AgentConversation, AppendConversationRequest, ClientSessionRequest, ClientSessionResponse, ConversationHistory, ConversationMessages,
  ModelConversation, ModelList, RestartConversationRequest, StartConversationRequest, TranscriptionResponse, TranscriptionStreamEvent,
} from './types.js';
import { ConversationEventStream } from './conversation-stream.js';
import { PlatformError } from './errors.js';
import { DeferredSpeechStream } from './deferred-speech-stream.js';
import { DeferredStream } from './deferred-stream.js';
import { fetchWithRetry, retryPolicy, type RetryOptions, type RetryPolicy } from './retry.js';
import type { TokenSource } from './session.js';

export interface ParleyClientOptions {
  /** The relay's (or a platform's) base URL; API paths are `{baseUrl}/v1/…`. */
  baseUrl: string;
  /** fetch to use (default: the global fetch, looked up at call time). */
  fetch?: typeof fetch;
  /** The site's own token function (e.g. minted by its backend); called before each request, so it should cache. */
  getToken?: () => Promise<string>;
  /** A token source such as a {@link RelaySession}; takes precedence over `getToken`. */
  session?: TokenSource;
  /** Retries before any answer arrived (429/503, network errors). */
  retry?: RetryOptions;
  /**
   * WebSocket class for realtime transcription (default: the global `WebSocket`, looked up at call
   * time). Node 20 has none: pass the `ws` package's class (`import { WebSocket } from 'ws'`).
   */
  webSocket?: typeof WebSocket;
  /**
   * Resuming a relayed stream whose connection broke (issue 16): attempts in a row (default 6), first delay
   * (default 250 ms), and the silence after which a connection is taken for dead (default 45 s).
   */
  resume?: { attempts?: number; baseDelayMs?: number; idleTimeoutMs?: number };
}

type Query = Record<string, string | number | undefined>;

/**
 * Implements {@link ParleyClientApi}. Without `session` or `getToken`, requests carry no
 * Authorization header (a same-origin proxy that authenticates by itself).
 *
 * Every failure is a {@link PlatformError}; a 401 makes a `session` drop its token and the request
 * is sent once more with a new one.
 */
export class ParleyClient implements ParleyClientApi {
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #tokens: TokenSource | null;
  readonly #retry: RetryPolicy;
  readonly #webSocket: typeof WebSocket | undefined;
  readonly #resume: { attempts?: number; baseDelayMs?: number; idleTimeoutMs?: number };

  constructor(options: ParleyClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const custom = options.fetch;
    this.#fetch = custom ?? ((input, init) => globalThis.fetch(input, init));
    this.#tokens = options.session ?? (options.getToken ? { getToken: options.getToken } : null);
    this.#retry = retryPolicy(options.retry);
    this.#webSocket = options.webSocket;
    this.#resume = { ...options.resume };
  }

  readonly conversations: ParleyClientApi['conversations'] = {
    start: (request: Omit<StartConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream =>
      this.#stream('/v1/conversations', request, options),
    append: (conversationId: string, request: Omit<AppendConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream =>
      this.#stream(`/v1/conversations/${enc(conversationId)}`, request, options),
    restart: (conversationId: string, request: Omit<RestartConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream =>
      this.#stream(`/v1/conversations/${enc(conversationId)}/restart`, request, options),
    resume: (from: { streamId: string; lastEventId: string | null; conversationId: string }, options?: RequestOptions): ConversationStream =>
      new ConversationEventStream('', null, (url, init) => this.#send(url, init), options?.signal, { ...this.#resume, resumeBase: this.baseUrl, from }),
    get: (conversationId: string, options?: RequestOptions) =>
      this.#json<ModelConversation | AgentConversation>('GET', `/v1/conversations/${enc(conversationId)}`, { signal: options?.signal }),
    list: (query?: { page?: number; pageSize?: number }, options?: RequestOptions) =>
      this.#json<Array<ModelConversation | AgentConversation>>('GET', '/v1/conversations', {
        query: { page: query?.page, page_size: query?.pageSize }, signal: options?.signal,
      }),
    delete: async (conversationId: string, options?: RequestOptions) => {
      await this.#json<void>('DELETE', `/v1/conversations/${enc(conversationId)}`, { signal: options?.signal });
    },
    history: (conversationId: string, options?: RequestOptions) =>
      this.#json<ConversationHistory>('GET', `/v1/conversations/${enc(conversationId)}/history`, { signal: options?.signal }),
    messages: (conversationId: string, options?: RequestOptions) =>
      this.#json<ConversationMessages>('GET', `/v1/conversations/${enc(conversationId)}/messages`, { signal: options?.signal }),
  };

  readonly agents: ParleyClientApi['agents'] = {
    get: (agentId: string, query?: { agentVersion?: string | number }, options?: RequestOptions) =>
      this.#json<Agent>('GET', `/v1/agents/${enc(agentId)}`, { query: { agent_version: query?.agentVersion }, signal: options?.signal }),
  };

  readonly models: ParleyClientApi['models'] = {
    list: (options?: RequestOptions) => this.#json<ModelList>('GET', '/v1/models', { signal: options?.signal }),
  };

  readonly speech: ParleyClientApi['speech'] = {
    // The speech code is loaded on first use: pages that only chat do not carry it.
    synthesize: async (request: SpeechRequest, options?: RequestOptions) => {
      const body = await this.#json<unknown>('POST', '/v1/audio/speech', { body: { ...request, stream: false }, signal: options?.signal });
      const { synthesizedSpeech } = await import('./speech.js');
      return synthesizedSpeech(body, request.response_format ?? 'mp3');
    },
    stream: (request: SpeechRequest, options?: RequestOptions): SpeechAudioStream => new DeferredSpeechStream(
      import('./speech.js').then(({ SpeechEventStream }) =>
        new SpeechEventStream(this.baseUrl + '/v1/audio/speech', request, (url, init) => this.#send(url, init), options?.signal)),
      request.response_format ?? 'mp3',
    ),
    voices: (query?: { limit?: number; offset?: number; type?: 'all' | 'custom' | 'preset' }, options?: RequestOptions) =>
      this.#json<SpeechVoiceList>('GET', '/v1/audio/voices', { query: { limit: query?.limit, offset: query?.offset, type: query?.type }, signal: options?.signal }),
  };

  // The transcription code is loaded on first use too.
  readonly transcription: ParleyClientApi['transcription'] = {
    transcribe: async (file: Blob, options: TranscribeOptions = {}) => {
      const { transcriptionForm, transcriptionResult } = await import('./transcription.js');
      const body = await this.#json<unknown>('POST', '/v1/audio/transcriptions', { form: transcriptionForm(file, options, false), signal: options.signal });
      return transcriptionResult(body);
    },
    transcribeStream: (file: Blob, options: TranscribeOptions = {}): TranscriptionEventStream => new DeferredTranscriptionStream(
      import('./transcription.js').then(({ TranscriptionSseStream }) =>
        new TranscriptionSseStream(this.baseUrl + '/v1/audio/transcriptions', file, options, (url, init) => this.#send(url, init))),
    ),
    realtime: async (options: RealtimeTranscriptionOptions = {}) => {
      const { openRealtimeTranscription } = await import('./realtime.js');
      return openRealtimeTranscription({
        baseUrl: this.baseUrl,
        webSocket: this.#webSocket,
        createSecret: (model, signal) => {
          const body: ClientSessionRequest = { purpose: 'realtime', model };
          return this.#json<ClientSessionResponse>('POST', '/v1/client/sessions', { body, signal });
        },
      }, options);
    },
  };

  // And the OCR code: batches of pages, merged in order.
  readonly ocr: ParleyClientApi['ocr'] = {
    process: async (document: Blob | string, options: OcrOptions = {}) => {
      const { processOcr } = await import('./ocr.js');
      return processOcr((body, signal) => this.#json<unknown>('POST', '/v1/ocr', { body, signal }), document, options);
    },
  };

  readonly feedback: NonNullable<ParleyClientApi['feedback']> = {
    available: async () => {
      if (!this.#tokens?.features) return false;
      await this.#tokens.getToken();
      return this.#tokens.features.includes('feedback');
    },
    send: async (conversationId: string, feedback: FeedbackRequest, options?: RequestOptions) => {
      await this.#json<unknown>('POST', `/v1/conversations/${enc(conversationId)}/feedback`, { body: feedback, signal: options?.signal });
    },
  };

  #stream(path: string, request: object, options?: RequestOptions): ConversationStream {
    return new ConversationEventStream(this.baseUrl + path, { ...request, stream: true }, (url, init) => this.#send(url, init), options?.signal, {
      ...this.#resume, resumeBase: this.baseUrl,
    });
  }

  /** A call answered with JSON; `body` is sent as JSON, `form` as multipart (fetch writes its boundary). */
  async #json<T>(method: string, path: string, options: { query?: Query; body?: unknown; form?: FormData; signal?: AbortSignal }): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | FormData | undefined = options.form;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const res = await this.#send(this.baseUrl + path + queryString(options.query), { method, headers, body, signal: options.signal });
    if (!res.ok) throw await PlatformError.fromResponse(res);
    if (res.status === 204) return undefined as T;
    const text = await readText(res, options.signal);
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new PlatformError({ status: res.status, type: 'invalid_response', code: null, retryAfter: null, message: 'The server answered with something that is not JSON' }, { cause: error });
    }
  }

  /** One request: bearer token, retries before any answer, and one more try with a new token after a 401. */
  async #send(url: string, init: RequestInit): Promise<Response> {
    const signal = init.signal ?? undefined;
    const attempt = async (token: string | null) => fetchWithRetry(
      (attemptSignal) => this.#fetch(url, { ...init, headers: withAuth(init.headers, token), signal: attemptSignal }),
      this.#retry,
      signal,
    );
    const res = await attempt(await this.#token());
    if (res.status === 401 && this.#tokens?.invalidate) {
      await res.body?.cancel().catch(() => {});
      this.#tokens.invalidate();
      return attempt(await this.#token());
    }
    return res;
  }

  async #token(): Promise<string | null> {
    if (!this.#tokens) return null;
    try {
      return await this.#tokens.getToken();
    } catch (error) {
      if (error instanceof PlatformError) throw error;
      throw new PlatformError(
        { status: 0, type: 'token_error', code: null, retryAfter: null, message: `Could not get an access token${error instanceof Error && error.message ? `: ${error.message}` : ''}` },
        { cause: error },
      );
    }
  }
}

/** A streamed transcription whose code is still loading; `result` follows the loaded stream's. */
class DeferredTranscriptionStream extends DeferredStream<TranscriptionStreamEvent, TranscriptionEventStream> implements TranscriptionEventStream {
  readonly result: Promise<TranscriptionResponse>;

  constructor(stream: Promise<TranscriptionEventStream>) {
    super(stream);
    this.result = this.loading.then((s) => s.result);
    this.result.catch(() => {}); // reading `result` is optional
  }
}

function enc(id: string): string {
  return encodeURIComponent(id);
}

function queryString(query?: Query): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function withAuth(headers: HeadersInit | undefined, token: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => {
    out[key] = value;
  });
  if (token) out.authorization = `Bearer ${token}`;
  return out;
}

/** Reads a body; a read that fails mid-way is a network error (the answer had started, so no retry). */
async function readText(res: Response, signal?: AbortSignal): Promise<string> {
  try {
    return await res.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    throw PlatformError.network(error);
  }
}
