/**
 * Shared state of the relay, behind one small interface: rate-limit buckets, open-stream counts,
 * which session owns which conversation, revoked sessions and used one-time tickets. The in-memory
 * store serves one instance; several instances need a shared implementation (Redis: a Lua script
 * per bucket, INCR/DECR with a lease for streams, SET with EX for owners and revocations, SET NX EX
 * for tickets).
 *
 * Every method is async so a networked store fits the same shape.
 */

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

/** Shared relay state; see the module comment. Implement it over Redis to run several instances. */
export interface RelayStateStore {
  /** Takes one token from bucket `key` (created full); refuses when empty. */
  takeToken(key: string, bucket: BucketSpec): Promise<TakeResult>;
  /** Opens a stream slot under `key`; false when `max` are already open. */
  openStream(key: string, max: number): Promise<boolean>;
  /** Frees a slot taken by {@link openStream}. */
  closeStream(key: string): Promise<void>;
  /** Records that `sessionId` created `conversationId` (kept `ttlSeconds`). */
  setConversationOwner(conversationId: string, sessionId: string, ttlSeconds: number): Promise<void>;
  /** The owning session, or null when unknown. */
  getConversationOwner(conversationId: string): Promise<string | null>;
  /** Forgets a conversation (after it was deleted). */
  forgetConversation(conversationId: string): Promise<void>;
  /** Conversation ids a session owns, newest first. */
  listConversations(sessionId: string): Promise<string[]>;
  /** Marks a session id (or token id) revoked for `ttlSeconds`. */
  revoke(id: string, ttlSeconds: number): Promise<void>;
  /** Whether any of `ids` is revoked. */
  isRevoked(ids: string[]): Promise<boolean>;
  /**
   * Marks a one-time id (a WebSocket ticket) used, remembered for `ttlSeconds` (at least its
   * lifetime). True the first time; false when the id was already used, by any instance sharing the store.
   */
  useOnce(id: string, ttlSeconds: number): Promise<boolean>;
}

/** Options of {@link createMemoryStateStore}. */
export interface MemoryStateStoreOptions {
  /** Clock in milliseconds (tests); default `Date.now`. */
  now?: () => number;
  /** Conversations remembered per session; the oldest are forgotten beyond it (default 1000). */
  maxConversationsPerSession?: number;
}

/** The default store: plain maps in this process, swept of expired entries as it is used. */
export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): RelayStateStore {
  const now = options.now ?? Date.now;
  const maxPerSession = options.maxConversationsPerSession ?? 1000;
  const buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();
  const streams = new Map<string, number>();
  const owners = new Map<string, { sessionId: string; expiresAt: number }>();
  const bySession = new Map<string, string[]>();
  const revoked = new Map<string, number>();
  const used = new Map<string, number>();
  let operations = 0;

  /** Drops expired entries every so often, so memory stays bounded by live use. */
  const sweep = () => {
    if (++operations % 1000 !== 0) return;
    const t = now();
    for (const [k, b] of buckets) if (b.fullAt <= t) buckets.delete(k);
    for (const [k, o] of owners) if (o.expiresAt <= t) forget(k);
    for (const [k, exp] of revoked) if (exp <= t) revoked.delete(k);
    for (const [k, exp] of used) if (exp <= t) used.delete(k);
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
    async openStream(key, max) {
      const open = streams.get(key) ?? 0;
      if (open >= max) return false;
      streams.set(key, open + 1);
      return true;
    },
    async closeStream(key) {
      const open = (streams.get(key) ?? 0) - 1;
      if (open > 0) streams.set(key, open);
      else streams.delete(key);
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
    },
    async isRevoked(ids) {
      const t = now();
      return ids.some((id) => (revoked.get(id) ?? 0) > t);
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
