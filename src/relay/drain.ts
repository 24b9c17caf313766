/**
 * Graceful restarts: `relay.drain()`, what a host calls on SIGTERM (the Node adapter's `served.drain()` and
 * `parley-relay` do). From the call on:
 *
 * - new requests are refused with 503 `relay_draining` (`Retry-After: 1`, `Connection: close`): the page's
 *   client retries them, and a load balancer sends the retry to another instance;
 * - when the resumable buffers are shared (Redis) with another instance, every page reading a reply here is
 *   handed over at once: its connection ends cleanly before the final event, which the client takes for a
 *   broken connection and resumes (`GET {base}/streams/{id}`) on another instance; this instance keeps reading
 *   each upstream reply to its end into Redis, where the other instance reads it. The page thus leaves a
 *   process that is going away at once, and the reply is not cut: only the upstream read stays here (the
 *   upstream call cannot move);
 * - without shared buffers (memory store), or with no other instance on them (counted in Redis: the relays
 *   subscribed to it), nothing else could serve the rest: the pages keep reading here and the replies finish
 *   as usual;
 * - realtime sockets cannot move either: they have the drain time to end by themselves;
 * - at the deadline (`timeoutMs`), or at once when `signal` aborts, what is still open ends: streams with an
 *   error event ("The relay restarted before this reply finished"), kept in the buffer so a page resuming
 *   elsewhere gets it too, sockets with an `error` event and close 1001 (going away). The buffer writes
 *   still under way are then waited for (a few seconds at most), so another instance reads complete streams.
 */
import { RelayError } from './errors.js';
import type { RelayRuntime } from './runtime.js';
import { within } from '../server/within.js';

/** The message of the `error` event a realtime socket gets before its close 1001. */
export const RELAY_RESTARTING = 'The relay is restarting';
/** The message of the error event a reply still running at the drain deadline ends with. */
export const CUT_BY_RESTART = 'The relay restarted before this reply finished; send it again';
/** Longest wait for the buffer writes still under way after the streams ended, ms. */
const SETTLE_MS = 5_000;

/** The answer to any request that comes while the relay drains. */
export const relayDraining = () =>
  new RelayError(503, 'The relay is restarting; try again', 'server_error', 'relay_draining', { 'retry-after': '1', connection: 'close' });

/** Options of `relay.drain()`. */
export interface DrainOptions {
  /** How long open streams and sockets may take to end by themselves, ms; then they are ended. */
  timeoutMs: number;
  /** Also waited for, within the same time (the Node adapter: its connections closing). */
  alsoWaitFor?: Promise<unknown>;
  /** Aborting it brings the deadline forward to now (a second SIGTERM or SIGINT). */
  signal?: AbortSignal;
}

/** What a drain did. */
export interface DrainReport {
  /** Streams whose pages were sent to resume on another instance (their upstream read on here). */
  handedOver: number;
  /** Streams and sockets still open at the deadline, ended then. */
  endedAtDeadline: number;
}

/** The drain of one relay: its flag (read by the relay's dispatch and the host) and the drain itself. */
export interface RelayDrain {
  readonly draining: boolean;
  drain(options: DrainOptions): Promise<DrainReport>;
}

export function createRelayDrain(runtime: RelayRuntime): RelayDrain {
  let draining = false;
  let running: Promise<DrainReport> | undefined;

  const drain = async ({ timeoutMs, alsoWaitFor, signal }: DrainOptions): Promise<DrainReport> => {
    draining = true;
    const { openStreams } = runtime;
    const buffers = runtime.resume?.buffers;
    // Handed over only when another instance can read the rest (else the pages read their replies here to the end).
    const others = buffers?.otherInstances ? await buffers.otherInstances().catch(() => 0) : 0;
    if (others > 0) openStreams.handOver();
    // The host's requests first: one under way may still open a stream (its platform answer came after the start).
    const allEnded = Promise.resolve(alsoWaitFor).then(() => openStreams.whenEmpty());
    let endedAtDeadline = 0;
    if (!await within(allEnded, timeoutMs, signal)) {
      endedAtDeadline = openStreams.size;
      openStreams.goAway();
    }
    if (buffers?.settled) await within(buffers.settled(), SETTLE_MS);
    return { handedOver: openStreams.handedOver, endedAtDeadline };
  };

  return {
    get draining() {
      return draining;
    },
    drain(options) {
      return (running ??= drain(options));
    },
  };
}
