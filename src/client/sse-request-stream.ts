/**
 * One request answered with server-sent events, read with fetch-event-source (event-stream-reader.ts) into an
 * {@link EventQueue}: the request, the error answer, the content-type check, the read loop, abort and
 * the ending, shared by the client's streamed operations. A subclass says what each event means.
 * Isomorphic: no DOM, no Node built-ins.
 */
import { EventQueue } from './event-queue.js';
import { readEventStream, type EventSourceMessage } from './event-stream-reader.js';
import { PlatformError, isAbortError } from './errors.js';
import type { StreamTransport } from './conversation-stream.js';

/**
 * The request starts when the subclass calls {@link start}; items are buffered until read.
 *
 * - An error answer (after retries before any answer) or no answer at all fails the iteration first.
 * - A broken connection, or a close before the subclass called `finish`, fails it after what arrived.
 * - `abort()`, the signal, or leaving a `for await` loop cancel the request and end the iteration quietly.
 */
export abstract class SseRequestStream<T> implements AsyncIterable<T> {
  protected readonly queue = new EventQueue<T>();
  readonly #controller = new AbortController();
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #finished = false;
  #unlink: () => void = () => {};

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
    this.queue.discard();
    this.onEnd(null, true);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.queue.next(),
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }

  /** Sends the request (called once by the subclass constructor, after its own fields are set). */
  protected start(url: string, init: RequestInit, transport: StreamTransport, signal?: AbortSignal): void {
    if (signal?.aborted) return this.abort();
    const onAbort = () => this.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', onAbort);
    void this.#run(url, init, transport);
  }

  /** One parsed event (`type` from the data's `type`, else the SSE event name). */
  protected abstract onEvent(type: string | undefined, data: Record<string, unknown>): void;
  /** A server that answered the whole result as JSON instead of a stream. */
  protected abstract onWhole(body: unknown): void;
  /** Called once when the stream ends: `error` null on success or abort. */
  protected abstract onEnd(error: PlatformError | null, aborted: boolean): void;
  /** What a stream that closes before `finish` is called fails with. */
  protected abstract readonly incompleteMessage: string;
  /** What a connection broken while reading fails with. */
  protected readonly lostMessage: string = 'The connection was lost before the stream finished';
  /** What an event whose data is not a JSON object fails with. */
  protected readonly unreadableMessage: string = 'Unreadable event in the stream';

  /** Ends the iteration after what was pushed; with an error, that error is thrown after it. */
  protected finish(error: PlatformError | null): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#unlink();
    this.#reader?.cancel().catch(() => {});
    this.onEnd(error, false);
    if (error) this.queue.fail(error);
    else this.queue.end();
  }

  protected get finished(): boolean {
    return this.#finished;
  }

  async #run(url: string, init: RequestInit, transport: StreamTransport): Promise<void> {
    const signal = this.#controller.signal;
    let res: Response;
    try {
      res = await transport(url, { ...init, headers: { ...init.headers as Record<string, string>, accept: 'text/event-stream' }, signal });
    } catch (error) {
      return this.#fail(error);
    }
    if (this.#finished) {
      await res.body?.cancel().catch(() => {});
      return;
    }
    if (!res.ok) return this.#fail(await PlatformError.fromResponse(res));
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('application/json')) {
      try {
        return this.onWhole(await res.json());
      } catch (error) {
        return this.#fail(error);
      }
    }
    if (!type.startsWith('text/event-stream') || !res.body) {
      await res.body?.cancel().catch(() => {});
      return this.#fail(PlatformError.stream(`Expected an event stream, got ${type || 'no content type'}`));
    }
    const reader = res.body.getReader();
    this.#reader = reader;
    if (signal.aborted) return void reader.cancel().catch(() => {});
    try {
      await readEventStream(reader, (message) => this.#onMessage(message));
    } catch (error) {
      if (this.#finished) return;
      if (signal.aborted || isAbortError(error)) return this.abort();
      return this.finish(PlatformError.stream(this.lostMessage, error));
    }
    if (!this.#finished) this.finish(PlatformError.stream(this.incompleteMessage));
  }

  #onMessage(message: EventSourceMessage): void {
    if (this.#finished || !message.data) return;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(message.data);
    } catch (error) {
      return this.finish(PlatformError.stream(this.unreadableMessage, error));
    }
    if (!data || typeof data !== 'object') return this.finish(PlatformError.stream(this.unreadableMessage));
    this.onEvent(typeof data.type === 'string' ? data.type : message.event || undefined, data);
  }

  #fail(error: unknown): void {
    if (this.#finished) return;
    if (this.#controller.signal.aborted || isAbortError(error)) return this.abort();
    this.finish(PlatformError.from(error));
  }
}
