/**
 * How long the platform's Node server waits for a client (`parley platform` and `parley start`):
 *
 * - headers: the request line and headers must arrive within `headersTimeoutMs` (Node closes the socket);
 * - body idle: no body byte for `bodyIdleTimeoutMs` while the platform waits for one → 408 `request_timeout`
 *   in the error shape, `Connection: close`, and the socket is closed (what the route held is freed);
 * - request: a body still arriving after `requestTimeoutMs` at an average under 16 KiB/s → the same 408.
 *   An upload that keeps sending faster than that is never cut, however long it takes, and an answer that
 *   has started (an event stream) is never cut: Node's own request timeout, which would, is turned off.
 *
 * Settings: `--headers-timeout`, `--body-idle-timeout`, `--request-timeout` (seconds), or the environment
 * variables `PARLEY_HEADERS_TIMEOUT`, `PARLEY_BODY_IDLE_TIMEOUT`, `PARLEY_REQUEST_TIMEOUT`.
 */
import type { BodyGuardOptions, ServerTimeouts } from 'parley-kit/server';
import { genericError } from './errors.js';

export interface PlatformServerLimits {
  /** Time to receive a request's headers (default 20 000 ms). */
  headersTimeoutMs: number;
  /** No body byte for this long → 408 (default 30 000 ms). */
  bodyIdleTimeoutMs: number;
  /** A body slower than 16 KiB/s on average after this long → 408 (default 300 000 ms). */
  requestTimeoutMs: number;
}

export const DEFAULT_PLATFORM_SERVER_LIMITS: PlatformServerLimits = {
  headersTimeoutMs: 20_000,
  bodyIdleTimeoutMs: 30_000,
  requestTimeoutMs: 300_000,
};

/** The settings, their flags and environment variables (values in seconds). */
export const SERVER_LIMIT_SETTINGS = [
  { key: 'headersTimeoutMs', flag: 'headers-timeout', env: 'PARLEY_HEADERS_TIMEOUT' },
  { key: 'bodyIdleTimeoutMs', flag: 'body-idle-timeout', env: 'PARLEY_BODY_IDLE_TIMEOUT' },
  { key: 'requestTimeoutMs', flag: 'request-timeout', env: 'PARLEY_REQUEST_TIMEOUT' },
] as const;

/**
 * The limits from command-line values (`--headers-timeout 20`) and the environment, in seconds (fractions
 * allowed); a value that is not a positive number is returned as the error sentence.
 */
export function serverLimitsFrom(values: Record<string, unknown>, env: NodeJS.ProcessEnv): PlatformServerLimits | string {
  const limits = { ...DEFAULT_PLATFORM_SERVER_LIMITS };
  for (const { key, flag, env: name } of SERVER_LIMIT_SETTINGS) {
    const raw = (values[flag] as string | undefined) ?? (env[name]?.trim() || undefined);
    if (raw === undefined) continue;
    const seconds = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(seconds > 0)) return `--${flag} (${name}) needs a number of seconds above 0, got '${raw}'`;
    limits[key] = Math.round(seconds * 1000);
  }
  return limits;
}

/** What `serveFetch` takes for `limits`: Node's header timeout, and the body guard answering 408 in the platform's shape. */
export function servingOptions(limits: PlatformServerLimits): { timeouts: ServerTimeouts; bodies: BodyGuardOptions } {
  return {
    // Node's requestTimeout would cut a long upload that keeps sending; the body guard judges the rate instead.
    timeouts: { headersTimeoutMs: limits.headersTimeoutMs, requestTimeoutMs: 0 },
    bodies: {
      idleTimeoutMs: limits.bodyIdleTimeoutMs,
      requestTimeoutMs: limits.requestTimeoutMs,
      timeoutAnswer: (message) => Response.json(genericError(408, message, 'invalid_request_error', 'request_timeout').body, { status: 408 }),
    },
  };
}
