/**
 * SSE passthrough. Upstream bytes are passed on chunk by chunk as they arrive (no buffering),
 * unmodified but for the upstream key, scrubbed out even across chunks (scrub.ts: only the end of a
 * chunk that could begin the key is held, never an event's closing blank line). Between events the relay may add `: ping` comments after silence, and may end a
 * broken stream with one error event. The first event can be sniffed (to learn a new conversation's
 * id) without changing a byte; the chunk that completes it is held only until the sniff callback
 * resolves, so ownership is recorded before the page can use the id. A revocation stops a stream
 * from outside (`stop`): the upstream is aborted and the page gets one error event.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { BodySource } from './buffered-body.js';
import type { KeyScrubber } from './scrub.js';
import { concatBytes } from './bytes.js';

/** How a relayed stream ended. */
export type StreamEnd = 'done' | 'cancelled' | 'upstream-error' | 'idle-timeout' | 'stopped';

/** Options of {@link relayEventStream}. */
export interface EventStreamOptions {
  /** Silence after which a `: ping` comment is written (at an event boundary). */
  heartbeatMs: number;
  /** Upstream silence after which the upstream is aborted and the stream ended. */
  idleTimeoutMs: number;
  /** Called with the first upstream event; awaited before that event is passed on. */
  onFirstEvent?: (event: EventSourceMessage) => Promise<void>;
  /** Frame written when the upstream breaks (or the stream is stopped) at an event boundary; `code` defaults to 502. */
  errorFrame: (message: string, code?: number) => string;
  /** Aborts the upstream request (client gone, idle upstream). */
  abortUpstream: () => void;
  /** Takes the upstream key out of the bytes passed on (`createKeyScrubber(apiKey)`). */
  scrubber: KeyScrubber;
  /** Called once when the stream ends, however it ends. */
  onEnd: (how: StreamEnd) => void;
  /**
   * Ends the stream from outside (the session was revoked): the upstream is aborted and the
   * downstream ends with an error frame of the abort reason's message (at an event boundary).
   */
  stop?: AbortSignal;
}

const PING = new TextEncoder().encode(': ping\n\n');
/** Stop sniffing for the first event after this many bytes. */
const SNIFF_LIMIT = 64 * 1024;

/** An SSE error frame the official SDK understands for conversation streams. */
export function conversationErrorFrame(message: string, code = 502): string {
  const data = JSON.stringify({ type: 'conversation.response.error', message, code, created_at: new Date().toISOString() });
  return `event: conversation.response.error\ndata: ${data}\n\n`;
}

/** A generic SSE error frame. */
export function genericErrorFrame(message: string, code?: number): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', message, ...(code === undefined ? {} : { code }) })}\n\n`;
}

/** Relays an upstream SSE body (a stream, or a host client's {@link BodySource}); see the module comment. */
export function relayEventStream(upstream: ReadableStream<Uint8Array> | BodySource, options: EventStreamOptions): ReadableStream<Uint8Array> {
  const reader = upstream instanceof ReadableStream ? upstream.getReader() : upstream;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  /** Last bytes written, to know whether we are between events. */
  let lastBytes = new Uint8Array(0);
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;

  let sniffing = !!options.onFirstEvent;
  let sniffed = 0;
  let firstEvent: EventSourceMessage | undefined;
  const decoder = sniffing ? new TextDecoder() : undefined;
  const parser = sniffing ? createParser({ onEvent: (e) => { firstEvent ??= e; } }) : undefined;

  const atBoundary = () => {
    const b = lastBytes;
    const n = b.length;
    if (n === 0) return true;
    const LF = 10, CR = 13;
    return (n >= 2 && b[n - 1] === LF && b[n - 2] === LF) || (n >= 2 && b[n - 1] === CR && b[n - 2] === CR)
      || (n >= 4 && b[n - 1] === LF && b[n - 2] === CR && b[n - 3] === LF && b[n - 4] === CR);
  };
  const remember = (chunk: Uint8Array) => {
    lastBytes = (chunk.length >= 4 ? chunk : concatBytes(lastBytes, chunk)).slice(-4);
  };
  const write = (chunk: Uint8Array) => {
    controller.enqueue(chunk);
    remember(chunk);
  };

  const end = (how: StreamEnd) => {
    if (ended) return false;
    ended = true;
    clearTimeout(heartbeat);
    clearTimeout(idle);
    options.stop?.removeEventListener('abort', onStop);
    options.onEnd(how);
    return true;
  };
  const onHeartbeat = () => {
    if (ended) return;
    if (atBoundary()) write(PING.slice());
    armHeartbeat();
  };
  const armHeartbeat = () => {
    heartbeat = restartTimer(heartbeat, onHeartbeat, options.heartbeatMs);
  };
  const onIdle = () => {
    if (!end('idle-timeout')) return;
    options.abortUpstream();
    reader.cancel('idle timeout').catch(() => {});
    closeWithError('The platform stopped sending; the stream was closed');
  };
  const armIdle = () => {
    idle = restartTimer(idle, onIdle, options.idleTimeoutMs);
  };
  /** Ends the downstream: an error event when between events, else a broken stream (a half event cannot be taken back). */
  const closeWithError = (message: string, code?: number) => {
    try {
      if (atBoundary()) {
        controller.enqueue(new TextEncoder().encode(options.errorFrame(message, code)));
        controller.close();
      } else {
        controller.error(new Error(message));
      }
    } catch { /* already closed */ }
  };

  const onStop = () => {
    if (!end('stopped')) return;
    options.abortUpstream();
    reader.cancel('stopped').catch(() => {});
    const reason: unknown = options.stop?.reason;
    closeWithError(reason instanceof Error ? reason.message : 'The stream was stopped', (reason as { status?: number } | undefined)?.status);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      armHeartbeat();
      armIdle();
      if (options.stop?.aborted) onStop();
      else options.stop?.addEventListener('abort', onStop, { once: true });
    },
    async pull() {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch {
        if (end('upstream-error')) closeWithError('The platform stream broke');
        return;
      }
      if (ended) return;
      if (result.done) {
        end('done');
        const rest = options.scrubber.flush();
        if (rest.length) write(rest);
        controller.close();
        return;
      }
      const chunk = result.value;
      armHeartbeat();
      armIdle();
      if (sniffing) {
        sniffed += chunk.byteLength;
        parser!.feed(decoder!.decode(chunk, { stream: true }));
        if (firstEvent) {
          sniffing = false;
          await options.onFirstEvent!(firstEvent);
          if (ended) return;
        } else if (sniffed > SNIFF_LIMIT) {
          sniffing = false;
        }
      }
      const passed = options.scrubber.push(chunk);
      if (passed.length) write(passed);
    },
    cancel(reason) {
      if (end('cancelled')) options.abortUpstream();
      void reader.cancel(reason).catch(() => {});
    },
  });
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * (Re)starts a timer of `fn` after `ms` (both armed on every chunk): Node's timers are re-armed in place
 * with `refresh()` (no new timer per chunk, and it works on a timer that already fired); elsewhere a new one.
 * Each call site always passes the same `fn` and `ms`. Stopped timers are never restarted (ended streams return first).
 */
function restartTimer(timer: Timer | undefined, fn: () => void, ms: number): Timer {
  const refreshable = timer as { refresh?: () => Timer } | undefined;
  if (typeof refreshable?.refresh === 'function') return refreshable.refresh();
  clearTimeout(timer);
  return setTimeout(fn, ms);
}
