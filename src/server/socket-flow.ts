/**
 * Flow control of a WebSocket a visitor holds open, shared by the relay's realtime pipe and the
 * platform's realtime session (exported as `parley-kit/server`): a token bucket for message rates, and
 * backpressure (a socket whose peer does not read what is sent to it is not read either), and their
 * default caps.
 */

/** What the backpressure needs of a socket (a `ws` WebSocket has it). */
export interface FlowSocket {
  readonly bufferedAmount: number;
  pause(): void;
  resume(): void;
}

/** A token bucket (monotonic clock, ms). */
export class TokenBucket {
  #tokens: number;
  #at: number;
  constructor(readonly rate: number, readonly burst: number, now: number) {
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes one token if there is one. */
  take(now: number): boolean {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.rate);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** The flood caps of realtime sockets: the relay's (per session, `RealtimeLimits`) and the platform's (`realtimeFlood`). */
export interface RealtimeFloodLimits {
  /** Messages a session's sockets may send per second, sustained (default 100; a microphone sends 20). */
  messagesPerSecond: number;
  /** Messages a session may send at once above that rate (default 400). Over it: `error` 429 and close 1008. */
  messageBurst: number;
  /** Invalid messages a session's sockets may send (default 20); the next: `error` 400 and close 1008. */
  maxInvalidMessages: number;
  /** Bytes waiting to be sent to a client above which it (and a relay's upstream) is not read (default 1 MiB). */
  maxBufferedBytes: number;
  /** How long a client may stay over `maxBufferedBytes` before it is closed with 1008, ms (default 15 s). */
  stallTimeoutMs: number;
}

export const DEFAULT_REALTIME_FLOOD_LIMITS: RealtimeFloodLimits = {
  messagesPerSecond: 100,
  messageBurst: 400,
  maxInvalidMessages: 20,
  maxBufferedBytes: 1024 * 1024,
  stallTimeoutMs: 15_000,
};

/** Bounds of {@link createBackpressure}. */
export interface BackpressureLimits {
  /** Bytes waiting to be sent to the client above which reading stops (default 1 MiB in the relay and the platform). */
  maxBufferedBytes: number;
  /** How long the client may stay over `maxBufferedBytes` before `onStall`, ms. */
  stallTimeoutMs: number;
}

/**
 * Backpressure of a client socket (`page`) and, for a proxy, the socket it is piped to (`upstream`):
 * call `check()` after each send and from each send's callback. While the page's send buffer is over the
 * bound, neither the page nor the upstream is read (the page's messages only make more replies; the
 * upstream's would pile up here); while the upstream's is over it, the page is not read. `onStall` is
 * called when the page stays over for `stallTimeoutMs`, or passes four times the bound.
 */
export function createBackpressure(page: FlowSocket, upstream: FlowSocket | undefined, limits: BackpressureLimits, onStall: () => void) {
  let pagePaused = false;
  let upstreamPaused = false;
  let stall: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const setPaused = (socket: FlowSocket | undefined, paused: boolean, was: boolean) => {
    if (!socket) return false;
    if (paused === was) return was;
    if (paused) socket.pause();
    else socket.resume();
    return paused;
  };
  /** Once: `onStall` may send (an error event), which must not check again. */
  const stalled = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(stall);
    onStall();
  };
  const check = () => {
    if (stopped) return;
    const pageBacklog = page.bufferedAmount;
    const pageOver = pageBacklog > limits.maxBufferedBytes;
    const upstreamOver = (upstream?.bufferedAmount ?? 0) > limits.maxBufferedBytes;
    pagePaused = setPaused(page, pageOver || upstreamOver, pagePaused);
    upstreamPaused = setPaused(upstream, pageOver, upstreamPaused);
    if (pageBacklog > 4 * limits.maxBufferedBytes) return stalled();
    if (pageOver && !stall) {
      stall = setTimeout(() => {
        stall = undefined;
        if (page.bufferedAmount > limits.maxBufferedBytes) stalled();
      }, limits.stallTimeoutMs);
    } else if (!pageOver && stall) {
      clearTimeout(stall);
      stall = undefined;
    }
  };
  return {
    check,
    /** Stops watching; the upstream is read again (so that its close handshake completes). */
    stop() {
      stopped = true;
      clearTimeout(stall);
      if (upstreamPaused) upstream?.resume();
      upstreamPaused = false;
    },
  };
}
