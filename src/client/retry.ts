/**
 * Retrying a request before any of its answer arrived: exponential backoff with jitter on 429/503
 * (and the platform's "turn in progress" 409), honouring `Retry-After`, and on network errors.
 * An answer that has started (a 200, a stream that opened) is never retried.
 */
import { PlatformError, isAbortError, parseRetryAfter } from './errors.js';

/** How often and how long to retry a request that got no usable answer. */
export interface RetryOptions {
  /** Extra attempts after the first (default 3; 0 turns retries off). */
  retries?: number;
  /** Delay before the first retry; doubles each time (default 500 ms). */
  baseDelayMs?: number;
  /** Cap on one delay (default 8 000 ms). A `Retry-After` longer than this is not waited for: the error is returned. */
  maxDelayMs?: number;
}

/** {@link RetryOptions} with the defaults filled in. */
export type RetryPolicy = Required<RetryOptions>;

/** Fills in the defaults of {@link RetryOptions}. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return {
    retries: Math.max(0, options.retries ?? 3),
    baseDelayMs: Math.max(0, options.baseDelayMs ?? 500),
    maxDelayMs: Math.max(0, options.maxDelayMs ?? 8_000),
  };
}

/**
 * Milliseconds to wait before retry number `attempt` (0 = the first retry): `Retry-After` when the
 * server gave one, else `baseDelayMs · 2^attempt` capped at `maxDelayMs`, with jitter (50–100 %)
 * so that many pages do not come back at the same instant. Null when `Retry-After` asks for longer than `maxDelayMs`.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | null, random: () => number = Math.random): number | null {
  if (retryAfterSeconds != null) {
    const ms = retryAfterSeconds * 1000;
    return ms > policy.maxDelayMs ? null : ms;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(exponential * (0.5 + random() * 0.5));
}

/** Whether an answer means "not processed, try again later": 429, 503, or 409 `conversation_busy`. */
export async function isRetryableResponse(res: Response): Promise<boolean> {
  if (res.status === 429 || res.status === 503) return true;
  if (res.status !== 409) return false;
  try {
    const body = await res.clone().json() as { code?: unknown };
    // The previous turn of this conversation is still being saved (e.g. right after a stop).
    return body?.code === 'conversation_busy';
  } catch {
    return false;
  }
}

/** The error an aborted wait or request rejects with (the signal's reason when it is an AbortError). */
export function abortError(signal?: AbortSignal): unknown {
  const reason: unknown = signal?.reason;
  if (isAbortError(reason)) return reason;
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  return error;
}

/** Waits `ms`, or rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls `attempt` until it gives an answer that is not retryable, or the retries run out.
 * Returns the last answer (which may be an error answer: the caller reads it); throws a
 * `network_error` PlatformError when no answer came at all, and an AbortError when `signal` aborted.
 */
export async function fetchWithRetry(
  attempt: (signal?: AbortSignal) => Promise<Response>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<Response> {
  for (let n = 0; ; n++) {
    if (signal?.aborted) throw abortError(signal);
    let res: Response;
    try {
      res = await attempt(signal);
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw signal?.aborted ? abortError(signal) : error;
      if (error instanceof PlatformError && error.type !== 'network_error') throw error;
      if (n >= policy.retries) throw error instanceof PlatformError ? error : PlatformError.network(error);
      await sleep(backoffDelay(policy, n, null) ?? 0, signal);
      continue;
    }
    if (n < policy.retries && await isRetryableResponse(res)) {
      const delay = backoffDelay(policy, n, parseRetryAfter(res.headers.get('retry-after')));
      if (delay != null) {
        await res.body?.cancel().catch(() => {});
        await sleep(delay, signal);
        continue;
      }
    }
    return res;
  }
}
