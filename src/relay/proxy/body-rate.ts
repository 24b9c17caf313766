/**
 * Slow request bodies (slowloris on the body): a body that sends no byte for `idleTimeoutMs`, or
 * whose average rate stays below `minBytesPerSecond` once `graceMs` passed, is cut with a 408. Only
 * the time spent waiting for the client counts (not the time the upstream takes to read a streamed
 * upload), so a slow platform never makes a fast client look slow.
 */
import { RelayError, requestTimeout } from '../errors.js';

/** How slowly a request body may arrive. */
export interface BodyRateLimits {
  /** No byte for this long while the relay waits for one → 408 (default 10 000 ms). */
  idleTimeoutMs: number;
  /** Average rate below which the body is cut once `graceMs` of waiting passed (default 1024 bytes/s; 0 = no minimum). */
  minBytesPerSecond: number;
  /** Waiting time before the average rate is judged (default 10 000 ms). */
  graceMs: number;
}

/** Defaults: 10 s without a byte, or below 1 KB/s on average after 10 s → 408 (a 1 byte/s body is cut at about 10 s). */
export const DEFAULT_BODY_RATE_LIMITS: BodyRateLimits = { idleTimeoutMs: 10_000, minBytesPerSecond: 1024, graceMs: 10_000 };

/**
 * When a body waiting for its next byte since `waitingSince`, with `total` bytes in after `waitedBefore`
 * ms of earlier waiting, is cut: idle at `idleAt`, too slow at `slowAt` (the average falls below the
 * minimum once the waiting time passes total / rate, and the grace). Shared with the Node adapter's
 * `readIncomingBody`.
 */
export function bodyDeadlines(
  limits: BodyRateLimits, total: number, waitingSince: number, waitedBefore: number,
): { idleAt: number; slowAt: number } {
  const idleAt = waitingSince + limits.idleTimeoutMs;
  const slowAt = limits.minBytesPerSecond > 0
    ? waitingSince + Math.max(limits.graceMs, (total * 1000) / limits.minBytesPerSecond) - waitedBefore
    : Infinity;
  return { idleAt, slowAt };
}

/**
 * Wraps a request body so it errors with a 408 {@link RelayError} when it arrives too slowly; the
 * source is cancelled then and `onTimeout` runs with the error (the caller aborts the upstream call).
 */
export function rateGuardedBody(
  body: ReadableStream<Uint8Array>, limits: BodyRateLimits, onTimeout?: (error: RelayError) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  /** Milliseconds spent waiting for the client, over finished reads. */
  let waited = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const fail = (error: RelayError) => {
    failed = true;
    controller.error(error);
    void reader.cancel(error.message).catch(() => {});
    onTimeout?.(error);
  };
  /** Checks a pending read that started at `readStart`; re-arms itself for the next deadline. */
  const check = (readStart: number) => {
    const now = Date.now();
    const { idleAt, slowAt } = bodyDeadlines(limits, total, readStart, waited);
    if (now >= idleAt) return fail(requestTimeout(`No request body bytes arrived for ${seconds(limits.idleTimeoutMs)} s`));
    if (now >= slowAt) return fail(requestTimeout(`The request body arrived slower than ${limits.minBytesPerSecond} bytes/s`));
    timer = setTimeout(() => check(readStart), Math.min(idleAt, slowAt) - now);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull() {
      const readStart = Date.now();
      check(readStart);
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (err) {
        if (!failed) controller.error(err);
        return;
      } finally {
        clearTimeout(timer);
      }
      if (failed) return;
      waited += Date.now() - readStart;
      if (result.done) controller.close();
      else {
        total += result.value.byteLength;
        controller.enqueue(result.value);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      void reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 }); // read only when asked: no read-ahead, and the clock runs only while asked
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
