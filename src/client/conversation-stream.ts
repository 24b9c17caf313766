/**
 * A streamed conversation turn: server-sent events from `fetchEventSource`, as an async iterable
 * of typed {@link ConversationEvent}s.
 *
 * Why the end of the stream is handled here and not by the library: `fetchEventSource` ends every
 * request with `dispose()`, which calls `document.removeEventListener` and `window.clearTimeout`
 * (and retries with `window.setTimeout`). Those globals do not exist under Node or server-side
 * rendering. So the library is used for what it is good at (the request, `onopen`, SSE parsing),
 * and never reaches its ending: the transport below never rejects into it, and the body it reads
 * is a pass-through that reports the real body's end or failure to this class and then stays
 * pending. Nothing holds that pending read once the stream is dropped, so it is garbage collected.
 * Retries are ours too (before the stream opens only), so the library's own retry is never used.
 */
import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import type { ConversationStream } from './contracts.js';
import type { ConversationEvent, ConversationEventType } from './types.js';
import { EventQueue } from './event-queue.js';
import { PlatformError, isAbortError } from './errors.js';
import { abortError } from './retry.js';

/** Sends the request (with auth and retries before any answer); rejects with PlatformError or AbortError. */
export type StreamTransport = (url: string, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;

const EVENT_TYPES: ReadonlySet<ConversationEventType> = new Set<ConversationEventType>([
  'conversation.response.started', 'message.output.delta',
  'tool.execution.started', 'tool.execution.delta', 'tool.execution.done',
  'function.call.delta', 'agent.handoff.started', 'agent.handoff.done',
  'conversation.response.done', 'conversation.response.error',
]);

/** A promise that never settles: what the library gets instead of an ending it cannot handle without a DOM. */
const never = <T>() => new Promise<T>(() => {});

/**
 * One streamed turn. The request starts at once; events are buffered until read.
 *
 * - Iteration yields every event in order and ends after `conversation.response.done`.
 * - After `conversation.response.error` it yields that event, then throws a PlatformError with its message.
 * - A stream that breaks (network, or a close before a final event) throws a `stream_error` after what arrived.
 * - An error answer (4xx/5xx after retries) or no answer at all throws before any event.
 * - `abort()`, the request's `signal`, or leaving a `for await` loop cancel the request and end the iteration quietly.
 */
export class ConversationEventStream implements ConversationStream {
  readonly conversationId: Promise<string>;
  readonly #queue = new EventQueue<ConversationEvent>();
  readonly #controller = new AbortController();
  #resolveId!: (id: string) => void;
  #rejectId!: (error: unknown) => void;
  #upstream: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #finished = false;
  #ended = false;
  #unlink: () => void = () => {};

  constructor(url: string, body: unknown, transport: StreamTransport, signal?: AbortSignal) {
    this.conversationId = new Promise<string>((resolve, reject) => {
      this.#resolveId = resolve;
      this.#rejectId = reject;
    });
    // Callers that never ask for the id must not see an unhandled rejection.
    this.conversationId.catch(() => {});
    if (signal?.aborted) {
      this.abort();
      return;
    }
    // A caller's signal may outlive many streams: let go of it when this one ends.
    const onAbort = () => this.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', onAbort);
    this.#open(url, JSON.stringify(body), transport);
  }

  /** Cancels the request; the iteration ends quietly after nothing more. */
  abort(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort();
    this.#upstream?.cancel().catch(() => {});
    if (this.#finished) return;
    this.#finished = true;
    this.#unlink();
    this.#queue.discard();
    this.#rejectId(abortError(this.#controller.signal));
  }

  [Symbol.asyncIterator](): AsyncIterator<ConversationEvent> {
    return {
      next: () => this.#queue.next(),
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }

  #open(url: string, body: string, transport: StreamTransport): void {
    const signal = this.#controller.signal;
    void fetchEventSource(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
      openWhenHidden: true,
      fetch: async (input, init) => {
        try {
          const res = await transport(String(input), { ...init, signal });
          if (!res.ok || !isEventStream(res) || !res.body) return res; // onopen reports it
          return new Response(this.#watch(res.body), { status: res.status, statusText: res.statusText, headers: res.headers });
        } catch (error) {
          this.#fail(error);
          return never<Response>();
        }
      },
      onopen: async (res) => {
        if (this.#finished) return never<void>();
        if (!res.ok) {
          this.#fail(await PlatformError.fromResponse(res));
          return never<void>();
        }
        if (!isEventStream(res) || !res.body) {
          await res.body?.cancel().catch(() => {});
          this.#fail(PlatformError.stream(`Expected an event stream, got ${res.headers.get('content-type') ?? 'no content type'}`));
          return never<void>();
        }
      },
      onmessage: (message) => this.#onMessage(message),
      // Unreachable by construction (see the file comment); throwing stops any library retry.
      onerror: (error) => {
        throw error;
      },
    }).catch(() => {});
  }

  /** The body the library reads: forwards chunks one read at a time, reports the real end here. */
  #watch(upstream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = upstream.getReader();
    this.#upstream = reader;
    if (this.#controller.signal.aborted) reader.cancel().catch(() => {});
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (error) {
            this.#onBodyEnd(error);
            return never<void>();
          }
          if (result.done) {
            this.#onBodyEnd(null);
            return never<void>();
          }
          controller.enqueue(result.value);
        },
        cancel: (reason) => reader.cancel(reason).catch(() => {}),
      },
      // Pull only when the parser asks, so the end is seen after every earlier chunk was parsed.
      { highWaterMark: 0 },
    );
  }

  #onMessage(message: EventSourceMessage): void {
    if (this.#finished || !message.data) return;
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
    this.#queue.push(event);
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
    if (error) this.#finish(PlatformError.stream('The connection was lost before the reply finished', error));
    else if (!this.#ended) this.#finish(PlatformError.stream('The stream ended before the reply finished'));
  }

  #fail(error: unknown): void {
    if (this.#finished) return;
    if (this.#controller.signal.aborted || isAbortError(error)) return this.abort();
    this.#finish(PlatformError.from(error));
  }

  #finish(error: PlatformError | null): void {
    if (this.#finished) return;
    this.#finished = true;
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

function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}
