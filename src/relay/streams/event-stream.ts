/**
 * SSE passthrough. Upstream bytes are passed on as they arrive (no buffering beyond the event they
 * complete), unmodified but for the upstream key, scrubbed out even across chunks (scrub.ts: only the
 * end of a chunk that could begin the key is held, never an event's closing blank line). Between
 * events the relay may add `: ping` comments after silence, and may end a broken stream with one
 * error event. The first event can be sniffed (to learn a new conversation's id) without changing a
 * byte; the chunk that completes it is held only until the sniff callback resolves, so ownership is
 * recorded before the page can use the id. A revocation stops a stream from outside (`stop`): the
 * upstream is aborted and the page gets one error event.
 *
 * Resumable streams (with `streamId`): events are passed on whole, each with an `id: <streamId>:<seq>`
 * line (event-frames.ts; the relay's own error frame included, `: ping` comments not), and kept in the
 * stream's buffer (resumable.ts). When the page goes away (`detach`, or the body cancelled) while the
 * buffer can still be resumed, the relay keeps reading the upstream into the buffer until it ends; the
 * idle timeout and `stop` still apply, and `onEnd` (which frees the stream slot) waits for that end.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { BodySource } from '../proxy/buffered-body.js';
import type { KeyScrubber } from '../proxy/scrub.js';
import { concatBytes, joinBytes } from '../bytes.js';
import { EventFramer, withEventId } from './event-frames.js';
import type { StreamWriter } from './resumable.js';

/** How a relayed stream ended. */
export type StreamEnd = 'done' | 'cancelled' | 'upstream-error' | 'idle-timeout' | 'stopped' | 'going-away';

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
  /** Makes the stream resumable: every event gets `id: <streamId>:<seq>`. */
  streamId?: string;
  /** Where the stream's events are kept (with `streamId`); null when it could not be kept (not resumable). */
  buffer?: StreamWriter | null;
}

/** A relayed stream: its body, and how to let the page go while the upstream is read on. */
export interface RelayedEventStream {
  body: ReadableStream<Uint8Array>;
  /**
   * The page went away: when the stream can be resumed, the upstream is read on into the buffer until it
   * ends (true); else nothing happens (false: the caller stops the stream). True too when it already ended.
   */
  detach(): boolean;
  /**
   * The relay is going away (drain deadline): the upstream is aborted and the stream ends with an error
   * event of `message` (code 503), kept in the buffer, so a page resuming it elsewhere gets it too.
   */
  goAway(message: string): void;
}

const PING = new TextEncoder().encode(': ping\n\n');
const EMPTY = new Uint8Array(0);
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
  return relayResumableEventStream(upstream, options).body;
}

/** {@link relayEventStream}, with the detach of a resumable stream; see the module comment. */
export function relayResumableEventStream(upstream: ReadableStream<Uint8Array> | BodySource, options: EventStreamOptions): RelayedEventStream {
  const reader = upstream instanceof ReadableStream ? upstream.getReader() : upstream;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  /** The page still reads the body (false once detached or cancelled). */
  let attached = true;
  /** Last bytes written, to know whether we are between events. */
  let lastBytes = new Uint8Array(0);
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  /** The upstream read under way (the page's pull, or the detached loop): never two at once. */
  let reading: Promise<void> | undefined;

  let sniffing = !!options.onFirstEvent;
  let sniffed = 0;
  let firstEvent: EventSourceMessage | undefined;
  const decoder = sniffing ? new TextDecoder() : undefined;
  const parser = sniffing ? createParser({ onEvent: (e) => { firstEvent ??= e; } }) : undefined;

  const streamId = options.streamId;
  const framer = streamId === undefined ? undefined : new EventFramer();
  const buffer = options.buffer ?? null;
  let seq = 0;
  /** An event block with its id, kept in the buffer. */
  const numbered = (block: Uint8Array) => {
    const bytes = withEventId(block, `${streamId}:${++seq}`);
    buffer?.append(seq, bytes);
    return bytes;
  };
  /** What to pass on for scrubbed bytes: without ids as they are, with ids only whole blocks. */
  const framed = (bytes: Uint8Array): Uint8Array => {
    if (!framer) return bytes;
    const frames = framer.push(bytes);
    if (!frames.length) return EMPTY;
    return joinBytes(frames.map((f) => (f.event ? numbered(f.bytes) : f.bytes)));
  };

  const atBoundary = () => {
    if (framer) return !framer.pending;
    const b = lastBytes;
    const n = b.length;
    if (n === 0) return true;
    const LF = 10, CR = 13;
    return (n >= 2 && b[n - 1] === LF && b[n - 2] === LF) || (n >= 2 && b[n - 1] === CR && b[n - 2] === CR)
      || (n >= 4 && b[n - 1] === LF && b[n - 2] === CR && b[n - 3] === LF && b[n - 4] === CR);
  };
  const remember = (chunk: Uint8Array) => {
    if (framer) return;
    lastBytes = (chunk.length >= 4 ? chunk : concatBytes(lastBytes, chunk)).slice(-4);
  };
  /** Chunks given to the page so far. */
  let written = 0;
  const write = (chunk: Uint8Array) => {
    if (!chunk.length) return;
    remember(chunk);
    if (!attached) return;
    written++;
    try {
      controller.enqueue(chunk);
    } catch { /* the page is gone */ }
  };
  /** Closes the page's side (when it still reads). */
  const closeDown = () => {
    if (!attached) return;
    try { controller.close(); } catch { /* already closed */ }
  };
  /** The buffer's last word: dropped after a stop (revocation, user stop), else kept for the resume time. */
  const seal = (how: StreamEnd) => {
    if (how === 'stopped') buffer?.drop();
    else buffer?.end();
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
    if (ended || !attached) return;
    if (atBoundary()) write(PING.slice());
    armHeartbeat();
  };
  const armHeartbeat = () => {
    if (attached) heartbeat = restartTimer(heartbeat, onHeartbeat, options.heartbeatMs);
  };
  const onIdle = () => {
    if (!end('idle-timeout')) return;
    options.abortUpstream();
    reader.cancel('idle timeout').catch(() => {});
    closeWithError('The platform stopped sending; the stream was closed', undefined, 'idle-timeout');
  };
  const armIdle = () => {
    idle = restartTimer(idle, onIdle, options.idleTimeoutMs);
  };
  /**
   * Ends the stream with an error event (numbered and kept, when resumable) when between events; a page
   * reading inside an event gets a broken stream instead (a half event cannot be taken back).
   */
  const closeWithError = (message: string, code: number | undefined, how: StreamEnd) => {
    const between = atBoundary();
    let frame: Uint8Array | undefined = new TextEncoder().encode(options.errorFrame(message, code));
    if (framer) {
      framer.rest();
      frame = numbered(frame);
    }
    seal(how);
    if (!attached) return;
    try {
      if (between) {
        controller.enqueue(frame);
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
    closeWithError(reason instanceof Error ? reason.message : 'The stream was stopped', (reason as { status?: number } | undefined)?.status, 'stopped');
  };

  /** Reads one upstream chunk and passes it on (to the page while attached, to the buffer when resumable). */
  const step = async () => {
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await reader.read();
    } catch {
      if (end('upstream-error')) closeWithError('The platform stream broke', undefined, 'upstream-error');
      return;
    }
    if (ended) return;
    if (result.done) {
      write(framed(options.scrubber.flush()));
      // An unfinished last block passes as it came (parsers drop it), without an id.
      if (framer) write(framer.rest());
      seal('done');
      end('done');
      closeDown();
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
    if (passed.length) write(framed(passed));
    // Nobody reads and nobody can resume any more (the buffer overflowed): stop reading.
    if (!attached && !buffer?.resumable) stopDetached();
  };
  const next = () => (reading ??= step().finally(() => { reading = undefined; }));

  /** A detached stream that can no longer be resumed: ended like a cancelled one. */
  const stopDetached = () => {
    if (!end('cancelled')) return;
    options.abortUpstream();
    reader.cancel('not resumable').catch(() => {});
    seal('cancelled');
  };
  const readOn = async () => {
    while (!ended) await next();
  };

  let detached = false;
  const detach = () => {
    if (ended) return true;
    if (!buffer?.resumable) return false;
    if (detached) return true;
    detached = true;
    closeDown();
    attached = false;
    clearTimeout(heartbeat);
    void readOn().catch(() => {});
    return true;
  };

  const goAway = (message: string) => {
    if (!end('going-away')) return;
    options.abortUpstream();
    reader.cancel('going away').catch(() => {});
    closeWithError(message, 503, 'going-away');
  };

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      armHeartbeat();
      armIdle();
      if (options.stop?.aborted) onStop();
      else options.stop?.addEventListener('abort', onStop, { once: true });
    },
    async pull() {
      // A pull must end with something enqueued (or the end): a chunk that completes no event gives nothing yet.
      const before = written;
      while (written === before && !ended && attached) await next();
    },
    cancel(reason) {
      if (ended) {
        void reader.cancel(reason).catch(() => {});
        return;
      }
      attached = false;
      if (detach()) return;
      if (end('cancelled')) {
        options.abortUpstream();
        seal('cancelled');
      }
      void reader.cancel(reason).catch(() => {});
    },
  });
  return { body, detach, goAway };
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
