/**
 * The relay's state in Redis, shared by every relay instance that points at the same server, over
 * the maintained `@redis/client` (an optional peer dependency, loaded on first use; Node only).
 *
 * Keys, all under `keyPrefix` (default `parley:`):
 *   bucket:<key>      hash {tokens, at}: a token bucket, taken in ONE Lua script (Redis TIME is the clock)
 *   streams:<key>     sorted set of stream slot ids scored by lease expiry (ms); this process renews the
 *                     leases of its open slots, so slots of a crashed instance free themselves within the lease
 *   conv:<id>         owning session id (SET EX)
 *   convs:<sid>       list of the session's conversations, newest first, capped (Lua keeps it consistent)
 *   revoked:<id>      a revoked session or token id (SET EX)
 *   revoked-subject:<subject>  time (ms) up to which the subject's tokens are revoked (SET EX, only grows)
 *   once:<id>         a used one-time ticket (SET NX EX)
 *   rs:<id>, rsm:<id> a resumable stream's events (a Redis Stream) and its owner and state (redis-resumable.ts)
 * and the pub/sub channels `<prefix>revocations`, on which every revocation is announced (JSON
 * `Revocation`) so each instance closes its open streams at once, and `<prefix>stream-stops` (user stops).
 *
 * Failure is never an "allow": a command that cannot be answered (Redis down, reconnecting, slower
 * than `commandTimeoutMs`) throws the relay's 503 `state_store_unavailable`; the client reconnects in
 * the background and the relay answers normally again once Redis is back. The store expects one Redis
 * server (or a primary), not a cluster: its scripts touch keys they derive.
 */
import { stateStoreUnavailable } from '../errors.js';
import { randomId } from '../bytes.js';
import type { BucketSpec, IssuedTo, RelayStateStore, Revocation, TakeResult } from './state-store.js';
import { STREAM_SCRIPTS, createRedisStreamBuffers, stopChannel, type StreamScript } from './redis-resumable.js';
import type { StreamBuffers } from '../streams/resumable.js';
import { issuedBefore, notifyRevoked } from './state-store.js';

/**
 * The part of a node-redis (`@redis/client` v5+) client the store uses; a client you pass in needs
 * nothing else, and is connected by the store when it is not yet open.
 */
export interface RedisClientLike {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  duplicate(): RedisClientLike;
  sendCommand(args: Array<string | Uint8Array>, options?: { timeout?: number; typeMapping?: Record<number, unknown> }): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  on(event: 'error' | 'ready', listener: (arg?: unknown) => void): unknown;
  close(): Promise<void>;
  destroy(): void;
}

/** Options of {@link createRedisStateStore}: `url` or `client`. */
export interface RedisStateStoreOptions {
  /** `redis[s]://[[user][:password]@]host[:port][/db]`, e.g. from `REDIS_URL`. */
  url?: string;
  /** An existing node-redis client instead of `url` (left open by {@link RedisStateStore.close}). */
  client?: RedisClientLike;
  /** Prefix of every key and of the revocation channel (default `parley:`). */
  keyPrefix?: string;
  /** Longest wait for a connection, at start and for each reconnection attempt, ms (default 2 000). */
  connectTimeoutMs?: number;
  /** Longest wait for one command, ms (default 1 000); slower is answered 503. */
  commandTimeoutMs?: number;
  /** Lease of a stream slot, s (default 30); renewed every third of it while the stream is open. */
  streamLeaseSeconds?: number;
  /** Conversations remembered per session, newest kept (default 1000). */
  maxConversationsPerSession?: number;
  /** Where connection losses and unexpected Redis replies are reported (default console.error). */
  onError?: (error: unknown) => void;
  /** Called for each command that failed or timed out (its request was answered 503): metrics count them. */
  onCommandError?: (error: unknown) => void;
}

/** The Redis store; `close` stops its timers and closes the connections it opened. */
export interface RedisStateStore extends RelayStateStore {
  close(): Promise<void>;
  /** Whether the command connection is ready right now (health checks). */
  readonly ready: boolean;
}

const TIME_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS[1] bucket; ARGV capacity, refill per second → {allowed, retryAfterSeconds}. */
const TAKE_TOKEN = `${TIME_MS}local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if b[1] and b[2] then
  tokens = math.min(capacity, tonumber(b[1]) + math.max(0, now - tonumber(b[2])) / 1000 * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate * 1000) + 1000)
local retry = 0
if allowed == 0 then retry = (1 - tokens) / rate end
return {allowed, tostring(retry)}`;

/** KEYS[1] slots; ARGV max, slot id, lease ms → 1 when opened, 0 when full. */
const OPEN_STREAM = `${TIME_MS}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1`;

/** KEYS[1] slots; ARGV lease ms, slot ids… → extends the leases of the slots still held. */
const RENEW_STREAMS = `${TIME_MS}for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 1`;

/** KEYS[1] conv:<id>, KEYS[2] convs:<sid>; ARGV sid, ttl s, max, conversation id, owner-key prefix, list-key prefix. */
const SET_OWNER = `local old = redis.call('GET', KEYS[1])
if old and old ~= ARGV[1] then redis.call('LREM', ARGV[6] .. old, 0, ARGV[4]) end
redis.call('LREM', KEYS[2], 0, ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('LPUSH', KEYS[2], ARGV[4])
local max = tonumber(ARGV[3])
for _, id in ipairs(redis.call('LRANGE', KEYS[2], max, -1)) do
  if redis.call('GET', ARGV[5] .. id) == ARGV[1] then redis.call('DEL', ARGV[5] .. id) end
end
redis.call('LTRIM', KEYS[2], 0, max - 1)
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1`;

/** KEYS[1] conv:<id>; ARGV conversation id, list-key prefix. */
const FORGET = `local owner = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
if owner then redis.call('LREM', ARGV[2] .. owner, 0, ARGV[1]) end
return 1`;

/** KEYS[1] revoked-subject:<subject>; ARGV at ms, ttl s → the (never decreasing) revocation time. */
const REVOKE_SUBJECT = `local at = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(ARGV[1]))
redis.call('SET', KEYS[1], string.format('%.0f', at), 'EX', ARGV[2])
return string.format('%.0f', at)`;

const SCRIPTS = { TAKE_TOKEN, OPEN_STREAM, RENEW_STREAMS, SET_OWNER, FORGET, REVOKE_SUBJECT };
type ScriptName = keyof typeof SCRIPTS;

/**
 * Connects to Redis and returns the store. Throws when `@redis/client` is not installed, or when no
 * connection could be made within `connectTimeoutMs` (later outages are answered 503 and recovered from).
 */
export async function createRedisStateStore(options: RedisStateStoreOptions): Promise<RedisStateStore> {
  if (!options.url && !options.client) throw new Error('createRedisStateStore: give a url (redis://…) or a client');
  const redis = await loadRedisClient();
  const prefix = options.keyPrefix ?? 'parley:';
  const connectTimeout = options.connectTimeoutMs ?? 2000;
  const commandTimeout = options.commandTimeoutMs ?? 1000;
  const leaseMs = Math.max(1, options.streamLeaseSeconds ?? 30) * 1000;
  const maxPerSession = options.maxConversationsPerSession ?? 1000;
  const report = options.onError ?? ((e: unknown) => console.error('[parley relay] redis:', e));
  const shaOf = (script: string) => redis.defineScript({ SCRIPT: script, NUMBER_OF_KEYS: 0, parseCommand() {}, transformReply: undefined } as never).SHA1;
  const shas = Object.fromEntries(Object.entries(SCRIPTS).map(([name, script]) => [name, shaOf(script)])) as Record<ScriptName, string>;
  const streamShas = Object.fromEntries(Object.entries(STREAM_SCRIPTS).map(([name, script]) => [name, shaOf(script)])) as Record<StreamScript, string>;

  const owned = !options.client;
  const client: RedisClientLike = options.client ?? (redis.createClient({
    url: options.url,
    // Commands made while disconnected fail at once (→ 503) instead of waiting in a queue.
    disableOfflineQueue: true,
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) },
  }) as unknown as RedisClientLike);
  const subscriber = client.duplicate();
  watch(client, report);
  watch(subscriber, report);

  const listeners = new Set<(revocation: Revocation) => void>();
  const channel = `${prefix}revocations`;
  const onMessage = (message: string) => {
    const revocation = parseRevocation(message);
    if (revocation) notifyRevoked(listeners, revocation, report);
  };
  const stopListeners = new Set<(streamId: string) => void>();
  const onStopMessage = (streamId: string) => {
    for (const listener of [...stopListeners]) listener(streamId);
  };
  try {
    await withTimeout(Promise.all([
      client.isOpen ? null : client.connect(),
      subscriber.connect().then(() => Promise.all([subscriber.subscribe(channel, onMessage), subscriber.subscribe(stopChannel(prefix), onStopMessage)])),
    ]), connectTimeout + 500, `no connection to Redis within ${connectTimeout} ms`);
  } catch (error) {
    subscriber.destroy();
    if (owned) client.destroy();
    throw new Error(`createRedisStateStore: cannot reach Redis (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }

  /**
   * Sends one command, bounded by `commandTimeout` (node-redis's own `timeout` only bounds the wait
   * to be written, not the wait for the reply: a frozen server would hang the request).
   */
  const send = (args: string[]) => withTimeout(client.sendCommand(args, { timeout: commandTimeout }), commandTimeout, `Redis did not answer within ${commandTimeout} ms`);
  /** Runs `call`; any failure becomes the 503 (unexpected replies are reported too). */
  const guarded = async <T>(call: () => Promise<unknown>): Promise<T> => {
    try {
      return (await call()) as T;
    } catch (error) {
      if (isErrorReply(error)) report(error);
      options.onCommandError?.(error);
      throw stateStoreUnavailable();
    }
  };
  /** One command. */
  const command = <T>(args: string[]) => guarded<T>(() => send(args));
  /** One script, by its SHA, sent in full when the server does not know it yet. */
  const script = <T>(name: ScriptName, keys: string[], args: Array<string | number>) => {
    const rest = [String(keys.length), ...keys, ...args.map(String)];
    return guarded<T>(() => send(['EVALSHA', shas[name], ...rest]).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return send(['EVAL', SCRIPTS[name], ...rest]);
    }));
  };

  /** Binary-safe: Buffer arguments go as they are, bulk replies come back as Buffers (event bytes are not always text). */
  const binaryReplies = { [redis.RESP_TYPES.BLOB_STRING]: Buffer };
  const sendBinary = (args: Array<string | Uint8Array>) => withTimeout(client.sendCommand(args, { timeout: commandTimeout, typeMapping: binaryReplies }),
    commandTimeout, `Redis did not answer within ${commandTimeout} ms`);
  const streamScript = (name: StreamScript, keys: string[], args: Array<string | Uint8Array>) => {
    const rest = [String(keys.length), ...keys, ...args.map((a) => typeof a === 'string' ? a : Buffer.from(a.buffer, a.byteOffset, a.byteLength))];
    return guarded<unknown>(() => sendBinary(['EVALSHA', streamShas[name], ...rest]).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return sendBinary(['EVAL', STREAM_SCRIPTS[name], ...rest]);
    }));
  };
  let streamBuffers: StreamBuffers | undefined;

  // Leases of the slots this process holds, renewed together.
  const held = new Map<string, Set<string>>();
  const renew = setInterval(() => {
    for (const [key, ids] of held) {
      if (ids.size) script('RENEW_STREAMS', [key], [leaseMs, ...ids]).catch(() => { /* retried next round; the lease is longer */ });
    }
  }, Math.max(100, Math.floor(leaseMs / 3)));
  (renew as { unref?: () => void }).unref?.();

  const k = {
    bucket: (key: string) => `${prefix}bucket:${key}`,
    streams: (key: string) => `${prefix}streams:${key}`,
    conv: `${prefix}conv:`,
    convs: `${prefix}convs:`,
    revoked: (id: string) => `${prefix}revoked:${id}`,
    subject: (subject: string) => `${prefix}revoked-subject:${subject}`,
    once: (id: string) => `${prefix}once:${id}`,
  };
  const ttl = (seconds: number) => String(Math.max(1, Math.ceil(seconds)));
  const announce = (revocation: Revocation) => command(['PUBLISH', channel, JSON.stringify(revocation)]);

  return {
    get ready() {
      return client.isReady;
    },
    async ping() {
      await command(['PING']);
    },
    async takeToken(key, { capacity, refillPerSecond }: BucketSpec): Promise<TakeResult> {
      const [allowed, retry] = await script<[number, string]>('TAKE_TOKEN', [k.bucket(key)], [capacity, refillPerSecond]);
      return { allowed: allowed === 1, retryAfterSeconds: allowed === 1 ? 0 : Number(retry) };
    },
    async openStream(key, max) {
      const slotId = randomId(8);
      const full = k.streams(key);
      if ((await script<number>('OPEN_STREAM', [full], [max, slotId, leaseMs])) !== 1) return null;
      const ids = held.get(full) ?? new Set<string>();
      ids.add(slotId);
      held.set(full, ids);
      return slotId;
    },
    async closeStream(key, slotId) {
      const full = k.streams(key);
      const ids = held.get(full);
      ids?.delete(slotId);
      if (ids && !ids.size) held.delete(full);
      await command(['ZREM', full, slotId]);
    },
    async setConversationOwner(conversationId, sessionId, ttlSeconds) {
      await script('SET_OWNER', [k.conv + conversationId, k.convs + sessionId],
        [sessionId, ttl(ttlSeconds), maxPerSession, conversationId, k.conv, k.convs]);
    },
    async getConversationOwner(conversationId) {
      return command<string | null>(['GET', k.conv + conversationId]);
    },
    async forgetConversation(conversationId) {
      await script('FORGET', [k.conv + conversationId], [conversationId, k.convs]);
    },
    async listConversations(sessionId) {
      const ids = await command<string[]>(['LRANGE', k.convs + sessionId, '0', '-1']);
      if (!ids.length) return [];
      const owners = await command<Array<string | null>>(['MGET', ...ids.map((id) => k.conv + id)]);
      return ids.filter((_, i) => owners[i] === sessionId);
    },
    async revoke(id, ttlSeconds) {
      await command(['SET', k.revoked(id), '1', 'EX', ttl(ttlSeconds)]);
      await announce({ kind: 'session', id });
    },
    async revokeSubject(subject, atMs, ttlSeconds) {
      const at = Number(await script<string>('REVOKE_SUBJECT', [k.subject(subject)], [Math.floor(atMs), ttl(ttlSeconds)]));
      await announce({ kind: 'subject', subject, at });
    },
    async isRevoked(ids, issued?: IssuedTo) {
      const keys = ids.map(k.revoked);
      if (issued) keys.push(k.subject(issued.subject));
      if (!keys.length) return false;
      const values = await command<Array<string | null>>(['MGET', ...keys]);
      if (values.slice(0, ids.length).some((value) => value !== null)) return true;
      const at = issued ? values[ids.length] : null;
      return at !== null && at !== undefined && issuedBefore(issued!.issuedAt, Number(at));
    },
    async useOnce(id, ttlSeconds) {
      return (await command<string | null>(['SET', k.once(id), '1', 'NX', 'EX', ttl(ttlSeconds)])) === 'OK';
    },
    onRevoked(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    streamBuffers(limits, { liveExtraSeconds }) {
      streamBuffers ??= createRedisStreamBuffers(limits, {
        prefix, liveExtraSeconds, report, run: streamScript,
        stopListeners: async () => Number((await command<[string, number]>(['PUBSUB', 'NUMSUB', stopChannel(prefix)]))[1] ?? 0),
        onStopMessage(listener) {
          stopListeners.add(listener);
          return () => { stopListeners.delete(listener); };
        },
      });
      return streamBuffers;
    },
    async close() {
      clearInterval(renew);
      listeners.clear();
      stopListeners.clear();
      await Promise.allSettled([subscriber.close(), owned ? client.close() : null]);
    },
  };
}

/** `@redis/client`, or a clear error naming the install command. */
async function loadRedisClient(): Promise<{
  createClient: (options: Record<string, unknown>) => unknown;
  RESP_TYPES: { BLOB_STRING: number };
  defineScript: (script: never) => { SHA1: string };
}> {
  // A computed specifier: bundlers for edge runtimes leave this Node-only client out of their bundle.
  const specifier = '@redis/client';
  try {
    return await import(specifier) as never;
  } catch (error) {
    throw new Error('createRedisStateStore needs the Redis client: npm install @redis/client', { cause: error });
  }
}

/**
 * Reports the first error of each outage (the client emits one per reconnection attempt); the
 * client keeps reconnecting in the background.
 */
function watch(client: RedisClientLike, report: (error: unknown) => void): void {
  let healthy = true;
  client.on('error', (error) => {
    if (!healthy) return;
    healthy = false;
    report(error);
  });
  client.on('ready', () => { healthy = true; });
}

/** A reply Redis itself sent as an error (a script bug, a wrong key type), as opposed to no reply. */
function isErrorReply(error: unknown): boolean {
  return error instanceof Error && (error.constructor.name.endsWith('ErrorReply') || /^(ERR|WRONGTYPE|NOSCRIPT)\b/.test(error.message));
}

function parseRevocation(message: string): Revocation | null {
  try {
    const value = JSON.parse(message) as Partial<Record<string, unknown>>;
    if (value.kind === 'session' && typeof value.id === 'string') return { kind: 'session', id: value.id };
    if (value.kind === 'subject' && typeof value.subject === 'string' && typeof value.at === 'number') {
      return { kind: 'subject', subject: value.subject, at: value.at };
    }
  } catch { /* not ours */ }
  return null;
}

/** `promise`, or a rejection after `ms` (the late outcome of `promise` is then ignored). */
function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  promise.catch(() => { /* settled after the timeout: nobody waits for it */ });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(message)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

