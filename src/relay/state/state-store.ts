/**
 * Shared state of the relay, behind one small interface: rate-limit buckets, open-stream slots,
 * which session owns which conversation, revoked sessions and subjects, used one-time tickets, and
 * a feed of revocations. The in-memory store serves one instance (its stream slots are leases too,
 * renewed by a timer while the stream is open, so a request that dies silently frees its slot); several
 * instances share the Redis store (redis-store.ts: a Lua script per bucket, leased stream slots, SET EX for owners and
 * revocations, SET NX EX for tickets, pub/sub for revocations).
 *
 * Every method is async so a networked store fits the same shape. A store that cannot answer throws
 * (the Redis store throws the relay's 503 `state_store_unavailable`); it never answers "allowed" by default.
 */
import type { ResumeLimits, StreamBuffers } from '../streams/resumable.js';

/** A token bucket: `capacity` tokens, refilled at `refillPerSecond`. */
export interface BucketSpec {
  capacity: number;
  refillPerSecond: number;
}

/** Answer of {@link RelayStateStore.takeToken}. */
export interface TakeResult {
  allowed: boolean;
  /** Seconds until a token will be available (0 when allowed). */
  retryAfterSeconds: number;
}

/** A revocation, as announced to every relay instance sharing the store. */
export type Revocation =
  | { kind: 'session'; id: string }
  /** Every token of `subject` issued at or before `at` (milliseconds since the epoch) is revoked. */
  | { kind: 'subject'; subject: string; at: number };

/** Who a token was issued to and when: what subject revocation is judged against. */
export interface IssuedTo {
  subject: string;
  /** The token's `iat`, in seconds since the epoch. */
  issuedAt: number;
}

/**
 * Whether a token issued at `issuedAt` (seconds) falls under a subject revocation made at `revokedAtMs`.
 * `iat` has whole seconds, so a token of the revocation's own second counts as revoked (fail closed).
 */
export function issuedBefore(issuedAt: number, revokedAtMs: number): boolean {
  return issuedAt * 1000 <= revokedAtMs;
}

/** Shared relay state; see the module comment. Implement it over Redis to run several instances. */
export interface RelayStateStore {
  /** Takes one token from bucket `key` (created full); refuses when empty. */
  takeToken(key: string, bucket: BucketSpec): Promise<TakeResult>;
  /** Opens a stream slot under `key`: its id, or null when `max` are already open. */
  openStream(key: string, max: number): Promise<string | null>;
  /** Frees a slot taken by {@link openStream}. */
  closeStream(key: string, slotId: string): Promise<void>;
  /** Records that `sessionId` created `conversationId` (kept `ttlSeconds`). */
  setConversationOwner(conversationId: string, sessionId: string, ttlSeconds: number): Promise<void>;
  /** The owning session, or null when unknown. */
  getConversationOwner(conversationId: string): Promise<string | null>;
  /** Forgets a conversation (after it was deleted). */
  forgetConversation(conversationId: string): Promise<void>;
  /** Conversation ids a session owns, newest first. */
  listConversations(sessionId: string): Promise<string[]>;
  /** Marks a session id (or token id) revoked for `ttlSeconds`, and announces it to {@link onRevoked} listeners. */
  revoke(id: string, ttlSeconds: number): Promise<void>;
  /**
   * Revokes every token of `subject` issued up to `atMs` (kept `ttlSeconds`, at least the longest token
   * lifetime); tokens issued later are not affected. Announced to {@link onRevoked} listeners.
   */
  revokeSubject(subject: string, atMs: number, ttlSeconds: number): Promise<void>;
  /** Whether any of `ids` is revoked, or (with `issued`) the token's subject was revoked after it was issued. */
  isRevoked(ids: string[], issued?: IssuedTo): Promise<boolean>;
  /**
   * Calls `listener` for each revocation made through any store sharing this one's state (this
   * process included), as soon as it is known. Best effort: a missed announcement is caught by polling
   * {@link isRevoked}. Returns the function that removes the listener.
   */
  onRevoked(listener: (revocation: Revocation) => void): () => void;
  /**
   * Marks a one-time id (a WebSocket ticket) used, remembered for `ttlSeconds` (at least its
   * lifetime). True the first time; false when the id was already used, by any instance sharing the store.
   */
  useOnce(id: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Buffers of resumable streams shared by every instance using this store (resumable.ts), made once by
   * the relay. Optional: without it the relay keeps them in memory (a resume then works on this instance only).
   */
  streamBuffers?(limits: ResumeLimits, options: { liveExtraSeconds: number }): StreamBuffers;
  /** Resolves when the shared state answers (readiness, `/readyz`); absent for state in this process. */
  ping?(): Promise<void>;
}

/** Options of {@link createMemoryStateStore}. */
export interface MemoryStateStoreOptions {
  /** Clock in milliseconds (tests); default `Date.now`. */
  now?: () => number;
  /** Conversations remembered per session; the oldest are forgotten beyond it (default 1000). */
  maxConversationsPerSession?: number;
  /**
   * Lease of a stream slot, s (default 60; fractions allowed). A timer started when the slot is opened
   * renews it every third of the lease; a slot not renewed (its request died without closing it, as
   * workerd may let happen: its timers stop with the request) no longer counts once the lease is over.
   */
  streamLeaseSeconds?: number;
}

/** The in-memory store, with what tests may inspect. */
export interface MemoryStateStore extends RelayStateStore {
  /** Lease-renewal timers alive now: one per open, unexpired stream slot (none once all are closed). */
  readonly renewalTimers: number;
}

/** A stream slot of the memory store: its lease end and the timer renewing it. */
interface Lease {
  expiresAt: number;
  timer: ReturnType<typeof setInterval>;
}

/** The default store: plain maps in this process, swept of expired entries as it is used. */
export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): MemoryStateStore {
  const now = options.now ?? Date.now;
  const maxPerSession = options.maxConversationsPerSession ?? 1000;
  const leaseMs = leaseMsOf(options.streamLeaseSeconds);
  const buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();
  const streams = new Map<string, Map<string, Lease>>();
  const owners = new Map<string, { sessionId: string; expiresAt: number }>();
  const bySession = new Map<string, string[]>();
  const revoked = new Map<string, number>();
  const revokedSubjects = new Map<string, { at: number; expiresAt: number }>();
  const used = new Map<string, number>();
  const listeners = new Set<(revocation: Revocation) => void>();
  let operations = 0;
  let slots = 0;
  let timers = 0;

  /** Tells every listener, after the revoking call. */
  const announce = (revocation: Revocation) => {
    queueMicrotask(() => notifyRevoked(listeners, revocation, (error) => console.error('[parley relay] revocation listener failed:', error)));
  };

  /** Drops expired entries every so often, so memory stays bounded by live use. */
  const sweep = () => {
    if (++operations % 1000 !== 0) return;
    const t = now();
    for (const [k, b] of buckets) if (b.fullAt <= t) buckets.delete(k);
    for (const [k, o] of owners) if (o.expiresAt <= t) forget(k);
    for (const [k, exp] of revoked) if (exp <= t) revoked.delete(k);
    for (const [k, r] of revokedSubjects) if (r.expiresAt <= t) revokedSubjects.delete(k);
    for (const [k, exp] of used) if (exp <= t) used.delete(k);
    for (const key of [...streams.keys()]) liveSlots(key);
  };

  /** Frees a slot at once: its lease and its renewal timer. */
  const dropSlot = (key: string, slotId: string) => {
    const open = streams.get(key);
    const lease = open?.get(slotId);
    if (!open || !lease) return;
    clearInterval(lease.timer);
    timers--;
    open.delete(slotId);
    if (!open.size) streams.delete(key);
  };

  /** The slots under `key` whose lease is not over; expired ones are dropped. */
  const liveSlots = (key: string) => {
    const t = now();
    for (const [slotId, lease] of streams.get(key) ?? []) if (lease.expiresAt <= t) dropSlot(key, slotId);
    return streams.get(key);
  };

  /**
   * Renews the slot's lease every third of it, from a timer made now: in workerd a request's timers
   * run only while that request lives, so a request that dies stops renewing. Unref'd on Node.
   */
  const renewEvery = (key: string, slotId: string) => {
    const timer = setInterval(() => {
      const lease = liveSlots(key)?.get(slotId);
      if (lease) lease.expiresAt = now() + leaseMs;
      else clearInterval(timer); // freed elsewhere (another request's context, say)
    }, Math.max(10, Math.floor(leaseMs / 3)));
    (timer as { unref?: () => void }).unref?.();
    timers++;
    return timer;
  };

  const forget = (conversationId: string) => {
    const owner = owners.get(conversationId);
    owners.delete(conversationId);
    if (!owner) return;
    const list = bySession.get(owner.sessionId)?.filter((id) => id !== conversationId);
    if (list?.length) bySession.set(owner.sessionId, list);
    else bySession.delete(owner.sessionId);
  };

  const liveOwner = (conversationId: string) => {
    const owner = owners.get(conversationId);
    if (owner && owner.expiresAt <= now()) {
      forget(conversationId);
      return undefined;
    }
    return owner;
  };

  return {
    async takeToken(key, { capacity, refillPerSecond }) {
      sweep();
      const t = now();
      const b = buckets.get(key);
      let tokens = b ? Math.min(capacity, b.tokens + ((t - b.at) / 1000) * refillPerSecond) : capacity;
      const allowed = tokens >= 1;
      if (allowed) tokens -= 1;
      const fullAt = t + ((capacity - tokens) / refillPerSecond) * 1000;
      buckets.set(key, { tokens, at: t, fullAt });
      return { allowed, retryAfterSeconds: allowed ? 0 : (1 - tokens) / refillPerSecond };
    },
    get renewalTimers() {
      return timers;
    },
    async openStream(key, max) {
      sweep();
      const open = liveSlots(key) ?? new Map<string, Lease>();
      if (open.size >= max) return null;
      const slotId = `slot-${++slots}`;
      open.set(slotId, { expiresAt: now() + leaseMs, timer: renewEvery(key, slotId) });
      streams.set(key, open);
      return slotId;
    },
    async closeStream(key, slotId) {
      dropSlot(key, slotId);
    },
    async setConversationOwner(conversationId, sessionId, ttlSeconds) {
      sweep();
      forget(conversationId);
      owners.set(conversationId, { sessionId, expiresAt: now() + ttlSeconds * 1000 });
      const list = [conversationId, ...(bySession.get(sessionId) ?? [])];
      for (const dropped of list.splice(maxPerSession)) owners.delete(dropped);
      bySession.set(sessionId, list);
    },
    async getConversationOwner(conversationId) {
      return liveOwner(conversationId)?.sessionId ?? null;
    },
    async forgetConversation(conversationId) {
      forget(conversationId);
    },
    async listConversations(sessionId) {
      return (bySession.get(sessionId) ?? []).filter((id) => liveOwner(id));
    },
    async revoke(id, ttlSeconds) {
      sweep();
      revoked.set(id, now() + ttlSeconds * 1000);
      announce({ kind: 'session', id });
    },
    async revokeSubject(subject, atMs, ttlSeconds) {
      sweep();
      const at = Math.max(atMs, revokedSubjects.get(subject)?.at ?? 0);
      revokedSubjects.set(subject, { at, expiresAt: now() + ttlSeconds * 1000 });
      announce({ kind: 'subject', subject, at });
    },
    async isRevoked(ids, issued) {
      const t = now();
      if (ids.some((id) => (revoked.get(id) ?? 0) > t)) return true;
      const bySubject = issued && revokedSubjects.get(issued.subject);
      return !!bySubject && bySubject.expiresAt > t && issuedBefore(issued.issuedAt, bySubject.at);
    },
    onRevoked(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    async useOnce(id, ttlSeconds) {
      sweep();
      const t = now();
      if ((used.get(id) ?? 0) > t) return false;
      used.set(id, t + ttlSeconds * 1000);
      return true;
    },
  };
}

/** Calls every listener with `revocation`; one throwing (→ `report`) does not stop the others. */
export function notifyRevoked(listeners: ReadonlySet<(revocation: Revocation) => void>, revocation: Revocation, report: (error: unknown) => void): void {
  for (const listener of [...listeners]) {
    try {
      listener(revocation);
    } catch (error) {
      report(error);
    }
  }
}

/** The stream lease in ms: `seconds` (default 60) when finite and positive, else a clear error. */
function leaseMsOf(seconds = 60): number {
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`createMemoryStateStore: streamLeaseSeconds must be a positive number of seconds (got ${seconds})`);
  }
  return seconds * 1000;
}
