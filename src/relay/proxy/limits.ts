/**
 * Rate limits and the stream cap. Token buckets live in the state store, keyed per session
 * (`session:<sid>`), per client address (`ip:<address>`, IPv6 by /56 so one subscriber's many
 * addresses share a bucket), per address for minting sessions (`mint:<address>`) and per address
 * on the operator endpoint (`operator:<address>`). Stream slots are held by id (`streams:<sid>`).
 */
import { rateLimited, tooManyStreams } from '../errors.js';
import type { SessionLimits } from '../sessions/policy.js';
import type { BucketSpec, RelayStateStore } from '../state/state-store.js';

/** Relay-wide limits (per client address). */
export interface AddressLimits {
  /** Requests per minute per address on API routes (default 120). */
  requestsPerMinute: number;
  /** Burst per address (default 40). */
  burst: number;
  /** `POST {base}/session` calls per minute per address (default 20). */
  sessionsPerMinute: number;
  /** Burst of session calls per address (default 10). */
  sessionBurst: number;
}

/** Default per-address limits. */
export const DEFAULT_ADDRESS_LIMITS: AddressLimits = { requestsPerMinute: 120, burst: 40, sessionsPerMinute: 20, sessionBurst: 10 };

const bucket = (perMinute: number, burst: number): BucketSpec => ({ capacity: Math.max(1, burst), refillPerSecond: perMinute / 60 });

/** Throws a 429 (with Retry-After) when any of the buckets is empty. */
async function takeAll(store: RelayStateStore, buckets: Array<[string, BucketSpec]>): Promise<void> {
  let retryAfter = 0;
  for (const [key, spec] of buckets) {
    const { allowed, retryAfterSeconds } = await store.takeToken(key, spec);
    if (!allowed) retryAfter = Math.max(retryAfter, retryAfterSeconds);
  }
  if (retryAfter > 0) throw rateLimited(retryAfter);
}

/** Limits an API request by client address and by session. */
export function limitRequest(store: RelayStateStore, address: string, sessionId: string, session: SessionLimits, limits: AddressLimits) {
  return takeAll(store, [
    [`ip:${address}`, bucket(limits.requestsPerMinute, limits.burst)],
    [`session:${sessionId}`, bucket(session.requestsPerMinute, session.burst)],
  ]);
}

/** Limits session minting by client address. */
export function limitSessionMint(store: RelayStateStore, address: string, limits: AddressLimits) {
  return takeAll(store, [[`mint:${address}`, bucket(limits.sessionsPerMinute, limits.sessionBurst)]]);
}

/** Calls per minute and burst per address on the operator endpoint (`operator:<address>`). */
const OPERATOR_LIMITS = { perMinute: 30, burst: 10 };

/** Limits operator calls by client address (before the operator secret is checked). */
export function limitOperator(store: RelayStateStore, address: string) {
  return takeAll(store, [[`operator:${address}`, bucket(OPERATOR_LIMITS.perMinute, OPERATOR_LIMITS.burst)]]);
}

/** A held stream slot; `release` is safe to call more than once. */
export interface StreamSlot { release(): void }

/** Takes one of the session's stream slots, or throws 429. */
export async function openStreamSlot(store: RelayStateStore, sessionId: string, max: number, onError: (e: unknown) => void): Promise<StreamSlot> {
  const key = `streams:${sessionId}`;
  const slotId = await store.openStream(key, max);
  if (slotId === null) throw tooManyStreams(max);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      store.closeStream(key, slotId).catch(onError);
    },
  };
}
