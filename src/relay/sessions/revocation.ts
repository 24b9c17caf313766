/**
 * Revocation reaching open streams. Each relay instance keeps a registry of what it has open (SSE
 * streams and realtime sockets) by session and by subject. A revocation announced by the state
 * store (`onRevoked`: in-process for the memory store, Redis pub/sub for the Redis store) ends the
 * matching entries at once; a poll of the store every `checkMs`, while anything is open, catches an
 * announcement that was missed (a pub/sub connection that was down at the time).
 *
 * Revoking a subject ends only what was opened with a token issued up to the revocation, so a user
 * who signs in again afterwards keeps their new streams.
 */
import { RelayError } from '../errors.js';
import { issuedBefore, type Revocation, type RelayStateStore } from '../state/state-store.js';

/** One open stream or socket, and how to end it as revoked. */
export interface OpenStream {
  sessionId: string;
  subject: string;
  /** `iat` of the token (or ticket) it was opened with, seconds. */
  issuedAt: number;
  /** Ends it (an error event, then a close); called at most once. */
  end: () => void;
  /**
   * Draining (drain.ts), when another instance can take it over: lets the page go so it resumes elsewhere
   * (its connection ends cleanly); true when it did. It stays registered until it really ends.
   */
  handOver?: () => boolean;
  /** Draining, at the deadline: ends it as "the relay is restarting" (default: {@link end}); called at most once. */
  goAway?: () => void;
}

/** The registry of one relay instance. */
export interface OpenStreams {
  /** Registers an open stream; returns the function that removes it (call it however the stream ends). */
  add(stream: OpenStream): () => void;
  /** Ends every registered stream the revocation covers. */
  apply(revocation: Revocation): void;
  /** Number of registered streams (tests, diagnostics). */
  readonly size: number;
  /**
   * Draining: hands over every stream that can be (see {@link OpenStream.handOver}), and from now on each
   * stream registered (a reply whose upstream answered after the drain began) just after it registers.
   */
  handOver(): void;
  /** Streams handed over so far. */
  readonly handedOver: number;
  /** Draining, at the deadline: ends every registered stream with its `goAway` (or `end`). */
  goAway(): void;
  /** Resolves once nothing is registered. */
  whenEmpty(): Promise<void>;
}

/** Creates the registry, subscribed to the store's revocations and polling it while anything is open. */
export function createOpenStreams(store: RelayStateStore, checkMs: number, report: (error: unknown) => void): OpenStreams {
  const open = new Set<OpenStream>();
  // Indexes, so a revocation touches only what it covers.
  const bySession = new Map<string, Set<OpenStream>>();
  const bySubject = new Map<string, Set<OpenStream>>();
  let poll: ReturnType<typeof setInterval> | undefined;
  const emptyWaiters = new Set<() => void>();
  let handingOver = false;
  let handedOver = 0;
  const handOver = (stream: OpenStream) => {
    if (!open.has(stream)) return;
    try {
      if (stream.handOver?.()) handedOver++;
    } catch (error) {
      report(error);
    }
  };

  const index = (map: Map<string, Set<OpenStream>>, key: string, stream: OpenStream) => {
    const set = map.get(key) ?? new Set<OpenStream>();
    set.add(stream);
    map.set(key, set);
  };
  const unindex = (map: Map<string, Set<OpenStream>>, key: string, stream: OpenStream) => {
    const set = map.get(key);
    set?.delete(stream);
    if (set && !set.size) map.delete(key);
  };
  /** Forgets a stream; false when it was not registered (any more). */
  const remove = (stream: OpenStream) => {
    if (!open.delete(stream)) return false;
    unindex(bySession, stream.sessionId, stream);
    unindex(bySubject, stream.subject, stream);
    if (!open.size) {
      for (const waiter of emptyWaiters) waiter();
      emptyWaiters.clear();
    }
    return true;
  };

  const startPolling = () => {
    if (poll) return;
    // A store that cannot answer (503) reports its outage itself; the next poll tries again.
    poll = setInterval(() => { check().catch((e: unknown) => { if (!(e instanceof RelayError)) report(e); }); }, checkMs);
    // A poll alone must not keep a Node process alive.
    (poll as { unref?: () => void }).unref?.();
  };
  const stopPollingWhenIdle = () => {
    if (open.size || !poll) return;
    clearInterval(poll);
    poll = undefined;
  };

  const end = (stream: OpenStream, how: 'end' | 'goAway' = 'end') => {
    if (!remove(stream)) return;
    try {
      if (how === 'goAway' && stream.goAway) stream.goAway();
      else stream.end();
    } catch (error) {
      report(error);
    }
    stopPollingWhenIdle();
  };

  const apply = (revocation: Revocation) => {
    if (revocation.kind === 'session') {
      for (const stream of [...bySession.get(revocation.id) ?? []]) end(stream);
    } else {
      for (const stream of [...bySubject.get(revocation.subject) ?? []]) if (issuedBefore(stream.issuedAt, revocation.at)) end(stream);
    }
  };

  /** One store read per distinct (session, subject, issue time), not per stream. */
  const check = async () => {
    const groups = new Map<string, OpenStream[]>();
    for (const stream of open) {
      const key = `${stream.sessionId}\n${stream.subject}\n${stream.issuedAt}`;
      const group = groups.get(key);
      if (group) group.push(stream);
      else groups.set(key, [stream]);
    }
    await Promise.all([...groups.values()].map(async (group) => {
      const { sessionId, subject, issuedAt } = group[0]!;
      if (await store.isRevoked([sessionId], { subject, issuedAt })) for (const stream of group) end(stream);
    }));
  };

  store.onRevoked(apply);
  return {
    add(stream) {
      open.add(stream);
      index(bySession, stream.sessionId, stream);
      index(bySubject, stream.subject, stream);
      startPolling();
      // Draining: handed over once its registrant has finished setting it up (in the same turn).
      if (handingOver) queueMicrotask(() => handOver(stream));
      // A revocation announced between the request's checks and this registration was missed: look once.
      store.isRevoked([stream.sessionId], { subject: stream.subject, issuedAt: stream.issuedAt })
        .then((revoked) => { if (revoked) end(stream); })
        .catch((e: unknown) => { if (!(e instanceof RelayError)) report(e); });
      return () => {
        remove(stream);
        stopPollingWhenIdle();
      };
    },
    apply,
    get size() {
      return open.size;
    },
    handOver() {
      handingOver = true;
      for (const stream of [...open]) handOver(stream);
    },
    get handedOver() {
      return handedOver;
    },
    goAway() {
      for (const stream of [...open]) end(stream, 'goAway');
    },
    whenEmpty() {
      if (!open.size) return Promise.resolve();
      return new Promise<void>((resolve) => { emptyWaiters.add(resolve); });
    },
  };
}
