/**
 * A streamed conversation turn: server-sent events from `fetchEventSource`, as an async iterable
 * of typed {@link ConversationEvent}s, resumed through the relay when the connection drops.
 *
 * Why the end of the stream is handled here and not by the library: `fetchEventSource` ends every
 * request with `dispose()`, which calls `document.removeEventListener` and `window.clearTimeout`
 * (and retries with `window.setTimeout`). Those globals do not exist under Node or server-side
 * rendering. So the library is used for what it is good at (the request, `onopen`, SSE parsing),
 * and never reaches its ending: the transport below never rejects into it, and the body it reads
 * is a pass-through that reports the real body's end or failure to this class and then stays
 * pending. Nothing holds that pending read once the stream is dropped, so it is garbage collected.
 * Retries are ours too (before the stream opens only), so the library's own retry is never used.
 *
 * Resuming (issue 16): a relay names every relayed stream (`Parley-Stream-Id`) and gives every
 * event an id `<streamId>:<seq>`. When the connection breaks before the final event, this class
 * asks `GET {resumeBase}/streams/{id}` with `Last-Event-ID` (backoff 250 ms doubling, with jitter,
 * at most 6 attempts in a row; while the browser says it is offline it waits for `online` instead) and carries on with the events after the last one it had: the
 * consumer sees one sequence. Events at or below the last seq are skipped (never twice). Without a
 * stream id (the platform itself, no relay) a broken connection fails as before.
 */
import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import type { ConversationStream, ResumePoint } from './contracts.js';
import type { ConversationEvent, ConversationEventType } from './types.js';
import { EventQueue } from './event-queue.js';
import { NETWORK_ERROR, PlatformError, isAbortError } from './errors.js';
import { abortError, backoffDelay, retryPolicy, type RetryPolicy } from './retry.js';
import { endlessBody, never } from './event-stream-reader.js';
import { LatestRun, type RunToken } from './latest-run.js';

/** Sends the request (with auth and retries before any answer); rejects with PlatformError or AbortError. */
export type StreamTransport = (url: string, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;

/** The error code of a stream the relay can no longer resume (410). */
export const STREAM_GONE = 'stream_gone';

/** How a stream resumes after a broken connection. */
export interface StreamResumeOptions {
  /** The relay's base URL (`{resumeBase}/streams/{id}`); without it nothing is resumed. */
  resumeBase?: string;
  /** Resume this stream instead of sending a request (a reload, another tab taking over). */
  from?: { streamId: string; lastEventId: string | null; conversationId: string };
  /** Reconnections in a row before giving up (default 6). */
  attempts?: number;
  /** First delay before a reconnection; doubles each time, with jitter 50–100 % (default 250 ms). */
  baseDelayMs?: number;
  /**
   * A relayed stream silent this long (the relay pings every 15 s) is taken for a dead connection and
   * resumed (default 45 000 ms; 0: never). Streams the relay did not name are never timed out.
   */
  idleTimeoutMs?: number;
}

const EVENT_TYPES: ReadonlySet<ConversationEventType> = new Set<ConversationEventType>([
  'conversation.response.started', 'message.output.delta',
  'tool.execution.started', 'tool.execution.delta', 'tool.execution.done',
  'function.call.delta', 'agent.handoff.started', 'agent.handoff.done',
  'conversation.response.done', 'conversation.response.error',
]);


interface Queued { event: ConversationEvent; id: string | null }

/**
 * One streamed turn. The request starts at once; events are buffered until read.
 *
 * - Iteration yields every event in order and ends after `conversation.response.done`.
 * - After `conversation.response.error` it yields that event, then throws a PlatformError with its message.
 * - A stream that breaks (network, or a close before a final event) is resumed when the relay named it
 *   (see the file comment); otherwise, or when resuming fails, it throws a `stream_error` after what arrived
 *   (a relay that can no longer resume it: a PlatformError with code `stream_gone`).
 * - An error answer (4xx/5xx after retries) or no answer at all throws before any event.
 * - `abort()`, the request's `signal`, or leaving a `for await` loop cancel the request and end the iteration
 *   quietly; a stream the relay named is also cancelled there (`DELETE {resumeBase}/streams/{id}`): a stop is never resumed.
 * - `detach()` stops reading without cancelling the reply on the relay (it can be resumed later).
 */
export class ConversationEventStream implements ConversationStream {
  readonly conversationId: Promise<string>;
  readonly #queue = new EventQueue<Queued>();
  readonly #controller = new AbortController();
  readonly #transport: StreamTransport;
  readonly #resumeBase: string | null;
  /** Reconnections in a row (`retries`) and their backoff. */
  readonly #backoff: RetryPolicy;
  readonly #idleTimeout: number;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #resolveId!: (id: string) => void;
  #rejectId!: (error: unknown) => void;
  #upstream: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #finished = false;
  #ended = false;
  #unlink: () => void = () => {};
  #streamId: string | null = null;
  #lastSeq = 0;
  #lastEventId: string | null = null;
  #yielded: ResumePoint | null = null;
  /** Which connection is current: callbacks of an earlier one are ignored. */
  readonly #connections = new LatestRun();
  #failures = 0;
  /** Whether the current connection is a resume (`GET …/streams/{id}`). */
  #resuming = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Stops waiting for the browser's `online` event. */
  #signalOff: () => void = () => {};

  constructor(url: string, body: unknown, transport: StreamTransport, signal?: AbortSignal, options: StreamResumeOptions = {}) {
    this.#transport = transport;
    this.#resumeBase = options.resumeBase ? options.resumeBase.replace(/\/+$/, '') : null;
    this.#backoff = retryPolicy({ retries: options.attempts ?? 6, baseDelayMs: options.baseDelayMs ?? 250, maxDelayMs: Infinity });
    this.#idleTimeout = Math.max(0, options.idleTimeoutMs ?? 45_000);
    this.conversationId = new Promise<string>((resolve, reject) => {
      this.#resolveId = resolve;
      this.#rejectId = reject;
    });
    // Callers that never ask for the id must not see an unhandled rejection.
    this.conversationId.catch(() => {});
    const from = options.from;
    if (from) {
      this.#streamId = from.streamId;
      this.#lastEventId = from.lastEventId;
      this.#lastSeq = seqOf(from.lastEventId, from.streamId) ?? 0;
      this.#yielded = { streamId: from.streamId, lastEventId: from.lastEventId };
      this.#resolveId(from.conversationId);
    }
    if (signal?.aborted) {
      this.abort();
      return;
    }
    // A caller's signal may outlive many streams: let go of it when this one ends.
    const onAbort = () => this.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', onAbort);
    if (from) this.#resume();
    else this.#open(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  /** The relay's id of this stream (from its header or first event id); null when not resumable. */
  get streamId(): string | null {
    return this.#streamId;
  }

  /** Where a resume would start from: the stream and the id of the last event iteration yielded. */
  get resumePoint(): ResumePoint | null {
    return this.#yielded;
  }

  /** Cancels the request (and the reply on the relay when it named the stream); the iteration ends quietly. */
  abort(): void {
    const cancel = !this.#finished && this.#streamId && this.#resumeBase ? this.#streamId : null;
    this.#stop();
    if (cancel) {
      // Best effort: a relay that misses it ends the reply when its upstream does.
      void this.#transport(`${this.#resumeBase}/streams/${encodeURIComponent(cancel)}`, { method: 'DELETE', signal: new AbortController().signal })
        .then((res) => res.body?.cancel())
        .catch(() => {});
    }
  }

  /** Stops reading, leaving the reply on the relay to be resumed later (another page, a reload); ends quietly. */
  detach(): void {
    this.#stop();
  }

  [Symbol.asyncIterator](): AsyncIterator<ConversationEvent> {
    return {
      next: async () => {
        const result = await this.#queue.next();
        if (result.done) return { value: undefined, done: true };
        if (result.value.id && this.#streamId) this.#yielded = { streamId: this.#streamId, lastEventId: result.value.id };
        return { value: result.value.event, done: false };
      },
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }

  #stop(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort();
    clearTimeout(this.#timer);
    clearTimeout(this.#idleTimer);
    this.#signalOff();
    this.#upstream?.cancel().catch(() => {});
    if (this.#finished) return;
    this.#finished = true;
    this.#unlink();
    this.#queue.discard();
    this.#rejectId(abortError(this.#controller.signal));
  }

  #open(url: string, init: { method: string; headers: Record<string, string>; body?: string }): void {
    const signal = this.#controller.signal;
    const connection = this.#connections.next();
    const current = () => connection.current() && !this.#finished;
    void fetchEventSource(url, {
      ...init,
      headers: { ...init.headers, accept: 'text/event-stream' },
      openWhenHidden: true,
      fetch: async (input, requestInit) => {
        try {
          const res = await this.#transport(String(input), { ...requestInit, signal });
          if (!res.ok || !isEventStream(res) || !res.body) return res; // onopen reports it
          const header = res.headers.get('parley-stream-id');
          if (header && !this.#streamId) this.#streamId = header;
          return new Response(this.#watch(res.body, connection), { status: res.status, statusText: res.statusText, headers: res.headers });
        } catch (error) {
          if (current()) this.#onConnectFailure(error);
          return never<Response>();
        }
      },
      onopen: async (res) => {
        if (!current()) return never<void>();
        if (!res.ok) {
          const error = await PlatformError.fromResponse(res);
          if (this.#resuming && (res.status >= 500 || res.status === 429)) {
            // A relay restarting or busy (after the transport's own retries): another attempt, later.
            this.#retryLater(error);
          } else if (res.status === 410 && this.#resuming) {
            this.#fail(new PlatformError({ ...error.toJSON(), code: STREAM_GONE }));
          } else {
            this.#fail(error);
          }
          return never<void>();
        }
        if (!isEventStream(res) || !res.body) {
          await res.body?.cancel().catch(() => {});
          this.#fail(PlatformError.stream(`Expected an event stream, got ${res.headers.get('content-type') ?? 'no content type'}`));
          return never<void>();
        }
      },
      onmessage: (message) => {
        if (current()) this.#onMessage(message);
      },
      // Unreachable by construction (see the file comment); throwing stops any library retry.
      onerror: (error) => {
        throw error;
      },
    }).catch(() => {});
  }

  /** The body the library reads: forwards chunks one read at a time, reports the real end here. */
  #watch(upstream: ReadableStream<Uint8Array>, connection: RunToken): ReadableStream<Uint8Array> {
    const reader = upstream.getReader();
    this.#upstream = reader;
    if (this.#controller.signal.aborted) reader.cancel().catch(() => {});
    // A connection that went silent (no event, no ping) is dropped: the read then ends and the stream resumes.
    const watchdog = () => {
      clearTimeout(this.#idleTimer);
      if (!this.#idleTimeout || !this.#resumable() || !connection.current() || this.#finished) return;
      this.#idleTimer = setTimeout(() => void reader.cancel().catch(() => {}), this.#idleTimeout);
    };
    return endlessBody(reader, (error) => {
      if (connection.current()) this.#onBodyEnd(error);
    }, watchdog);
  }

  #onMessage(message: EventSourceMessage): void {
    if (this.#finished || !message.data) return;
    const id = message.id || null;
    if (id) {
      const streamId = this.#streamId ?? streamIdOf(id);
      if (streamId && !this.#streamId) this.#streamId = streamId;
      const seq = streamId ? seqOf(id, streamId) : null;
      if (seq != null) {
        if (seq <= this.#lastSeq) return; // already had it (a resume that overlaps)
        this.#lastSeq = seq;
        this.#lastEventId = id;
      }
    }
    this.#failures = 0; // a connection that delivers is a good one
    let event: ConversationEvent;
    try {
      event = JSON.parse(message.data) as ConversationEvent;
    } catch (error) {
      this.#fail(PlatformError.stream(`Unreadable event${message.event ? ` '${message.event}'` : ''} in the stream`, error));
      return;
    }
    if (!event || typeof event !== 'object') return;
    if (typeof event.type !== 'string' && message.event) (event as { type: string }).type = message.event;
    if (!EVENT_TYPES.has(event.type)) return; // newer event kinds are skipped, not fatal
    this.#queue.push({ event, id });
    switch (event.type) {
      case 'conversation.response.started':
        this.#resolveId(event.conversation_id);
        break;
      case 'conversation.response.done':
        this.#ended = true;
        this.#finish(null);
        break;
      case 'conversation.response.error':
        this.#ended = true;
        this.#finish(PlatformError.fromEvent(event));
        break;
    }
  }

  #onBodyEnd(error: unknown): void {
    if (this.#finished) return;
    if (this.#controller.signal.aborted) return this.abort();
    if (this.#ended) return;
    const lost = error
      ? PlatformError.stream('The connection was lost before the reply finished', error)
      : PlatformError.stream('The stream ended before the reply finished');
    if (this.#resumable()) this.#retryLater(lost);
    else this.#finish(lost);
  }

  /** The request (first or a resume) got no answer. */
  #onConnectFailure(error: unknown): void {
    if (this.#controller.signal.aborted || isAbortError(error)) return this.abort();
    const failure = PlatformError.from(error);
    if (this.#resuming && failure.type === NETWORK_ERROR && this.#resumable()) this.#retryLater(failure);
    else this.#fail(failure);
  }

  #resumable(): boolean {
    return !!this.#streamId && !!this.#resumeBase;
  }

  /** Waits (backoff with jitter) and resumes; after too many failures in a row, ends with `failure`. */
  #retryLater(failure: PlatformError): void {
    if (this.#finished) return;
    this.#connections.cancel(); // whatever the old connection still reports is ignored
    clearTimeout(this.#idleTimer);
    this.#upstream?.cancel().catch(() => {});
    this.#upstream = null;
    if (isOffline()) {
      // The browser knows it is offline: wait for it to be back rather than spend the attempts.
      const target = globalThis as unknown as EventTarget;
      const onOnline = () => {
        this.#signalOff();
        if (!this.#finished) this.#retryLater(failure);
      };
      target.addEventListener('online', onOnline, { once: true });
      this.#signalOff = () => target.removeEventListener('online', onOnline);
      return;
    }
    if (this.#failures >= this.#backoff.retries) return this.#finish(failure);
    const delay = backoffDelay(this.#backoff, this.#failures, null)!;
    this.#failures += 1;
    this.#timer = setTimeout(() => {
      if (!this.#finished) this.#resume();
    }, delay);
  }

  #resume(): void {
    this.#resuming = true;
    const headers: Record<string, string> = {};
    if (this.#lastEventId) headers['last-event-id'] = this.#lastEventId;
    this.#open(`${this.#resumeBase}/streams/${encodeURIComponent(this.#streamId!)}`, { method: 'GET', headers });
  }

  #fail(error: unknown): void {
    if (this.#finished) return;
    if (this.#controller.signal.aborted || isAbortError(error)) return this.abort();
    this.#finish(PlatformError.from(error));
  }

  #finish(error: PlatformError | null): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#idleTimer);
    this.#signalOff();
    this.#unlink();
    // The server closes after the final event; let go of the connection either way.
    this.#upstream?.cancel().catch(() => {});
    if (error) {
      this.#queue.fail(error);
      this.#rejectId(error);
    } else {
      this.#queue.end();
      this.#rejectId(PlatformError.stream('The stream ended without a conversation id'));
    }
  }
}

/** Whether a browser says it is offline (never under Node). */
function isOffline(): boolean {
  return (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine === false
    && typeof (globalThis as { addEventListener?: unknown }).addEventListener === 'function';
}

function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** The stream id of an event id `<streamId>:<seq>`, or null. */
function streamIdOf(id: string): string | null {
  const colon = id.lastIndexOf(':');
  return colon > 0 && /^\d+$/.test(id.slice(colon + 1)) ? id.slice(0, colon) : null;
}

/** The seq of an event id of `streamId`, or null. */
function seqOf(id: string | null, streamId: string): number | null {
  if (!id || !id.startsWith(`${streamId}:`)) return null;
  const seq = id.slice(streamId.length + 1);
  return /^\d+$/.test(seq) ? Number(seq) : null;
}
