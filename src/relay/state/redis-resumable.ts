/**
 * Stream buffers in Redis (resumable.ts), so a page may resume a reply on any relay instance sharing
 * the store. Built by the Redis state store over its own connections (`store.streamBuffers(limits)`).
 *
 * Keys, under the store's prefix:
 *   rs:<id>    a Redis Stream: one entry per event, entry id `<seq>-1`, field `e` = the event's bytes
 *   rsm:<id>   hash {sid, state (live | ended | stopped | gone), last, bytes}
 * Every write is ONE Lua script (owner, state, order and the byte cap checked where the data is). A
 * stream has one write in flight at a time: the events that come meanwhile go together in the next one,
 * so a fast reply costs a script run per round trip, not per event, and a slow one still writes each
 * event at once. Both
 * keys expire: `ttlSeconds` after the end, and while live `ttlSeconds + idle` after the last event, so
 * the streams of a crashed instance go away by themselves. A user stop (`stop`) marks the stream
 * `stopped`, deletes its events and PUBLISHes its id on `<prefix>stream-stops`; the instance running
 * it aborts the upstream (a missed announcement is caught by its next append, which sees `stopped`).
 *
 * The live rest on another instance is read by polling XRANGE every {@link POLL_MS} ms, not by
 * XREAD BLOCK: a blocking read holds a connection per waiting resume (a duplicate connection each,
 * or a pool to size and time out), while a poll is one short command on the shared connection, bounded
 * by the resume cap per stream and subject to the store's command timeout like every other call. The
 * cost is up to {@link POLL_MS} ms of extra delay on a resumed stream's live events, which a reader
 * whose connection just dropped does not notice. Readers on the instance writing the stream are woken
 * at once.
 */
import type { BufferRead, ResumeLimits, StreamBuffers, StreamWriter } from '../streams/resumable.js';

/** How often a resume of a live stream written elsewhere re-reads it, ms. */
export const POLL_MS = 150;
/** Entries read per XRANGE. */
const READ_BATCH = 256;
/** Events of one stream waiting for Redis at once; beyond it the stream stops being resumable. */
const MAX_PENDING = 4096;

/** KEYS meta; ARGV sid, live ttl s. */
const START = `redis.call('HSET', KEYS[1], 'sid', ARGV[1], 'state', 'live', 'last', '0', 'bytes', '0')
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * KEYS meta, stream; ARGV max bytes, live ttl s, then seq, bytes for each event (in order) → 1 kept,
 * 0 stopped, 2 gone (overflow, gap, expired).
 */
const APPEND = `local m = redis.call('HMGET', KEYS[1], 'state', 'last', 'bytes')
if m[1] == 'stopped' then return 0 end
if m[1] ~= 'live' then return 2 end
local last = tonumber(m[2])
local size = tonumber(m[3])
local max = tonumber(ARGV[1])
for i = 3, #ARGV, 2 do
  local seq = tonumber(ARGV[i])
  size = size + string.len(ARGV[i + 1])
  if seq ~= last + 1 or size > max then
    redis.call('HSET', KEYS[1], 'state', 'gone')
    redis.call('DEL', KEYS[2])
    return 2
  end
  redis.call('XADD', KEYS[2], ARGV[i] .. '-1', 'e', ARGV[i + 1])
  last = seq
end
redis.call('HSET', KEYS[1], 'last', tostring(last), 'bytes', tostring(size))
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1`;

/** KEYS meta, stream; ARGV ttl s, final state (ended | gone). */
const FINISH = `local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 0 end
if state == 'live' then redis.call('HSET', KEYS[1], 'state', ARGV[2]) end
if ARGV[2] == 'gone' then redis.call('DEL', KEYS[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
return 1`;

/** KEYS meta, stream; ARGV sid, after seq, count → {0} gone, or {1, state, last, entries}. */
const READ = `local m = redis.call('HMGET', KEYS[1], 'sid', 'state', 'last')
if m[1] ~= ARGV[1] or (m[2] ~= 'live' and m[2] ~= 'ended') then return {0} end
local from = tonumber(ARGV[2]) + 1
return {1, m[2], m[3], redis.call('XRANGE', KEYS[2], from .. '-1', '+', 'COUNT', ARGV[3])}`;

/** KEYS meta, stream; ARGV sid, ttl s, channel, stream id → 1 when stopped (and announced). */
const STOP = `if redis.call('HGET', KEYS[1], 'sid') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'stopped')
redis.call('DEL', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`;

export const STREAM_SCRIPTS = { START, APPEND, FINISH, READ, STOP };
export type StreamScript = keyof typeof STREAM_SCRIPTS;

/** What the Redis store lends the buffers. */
export interface RedisStreamDeps {
  prefix: string;
  /** Runs a script (binary-safe: Buffer arguments and Buffer replies); throws the relay's 503 when Redis cannot answer. */
  run(script: StreamScript, keys: string[], args: Array<string | Uint8Array>): Promise<unknown>;
  /** Adds a listener of the stream-stop channel (the store's subscriber connection). */
  onStopMessage(listener: (streamId: string) => void): () => void;
  /** How many connections listen on the stream-stop channel: one per relay instance on this Redis and prefix. */
  stopListeners(): Promise<number>;
  /** Seconds a live stream's keys live after its last event, beyond `ttlSeconds` (the stream idle timeout). */
  liveExtraSeconds: number;
  report(error: unknown): void;
}

/** The channel user stops are announced on. */
export const stopChannel = (prefix: string) => `${prefix}stream-stops`;

export function createRedisStreamBuffers(limits: ResumeLimits, deps: RedisStreamDeps): StreamBuffers {
  // Writes under way (`settled` waits for none: a stream's next write starts as the previous one is answered).
  let writes = 0;
  const whenNoWrites = new Set<() => void>();
  const write = (script: StreamScript, keys: string[], args: Array<string | Uint8Array>) => {
    writes++;
    return deps.run(script, keys, args).finally(() => {
      if (--writes) return;
      for (const waiter of whenNoWrites) waiter();
      whenNoWrites.clear();
    });
  };
  const meta = (id: string) => `${deps.prefix}rsm:${id}`;
  const events = (id: string) => `${deps.prefix}rs:${id}`;
  const ttl = String(Math.max(1, Math.ceil(limits.ttlSeconds)));
  const liveTtl = String(Math.max(1, Math.ceil(limits.ttlSeconds + deps.liveExtraSeconds)));
  /** Readers on this instance waiting for streams this instance writes. */
  const waiters = new Map<string, Set<() => void>>();
  const listeners = new Set<(streamId: string) => void>();
  const wake = (streamId: string) => {
    const set = waiters.get(streamId);
    if (!set) return;
    waiters.delete(streamId);
    for (const waiter of set) waiter();
  };
  const stopped = (streamId: string) => {
    wake(streamId);
    for (const listener of [...listeners]) {
      try {
        listener(streamId);
      } catch (error) {
        deps.report(error);
      }
    }
  };
  deps.onStopMessage(stopped);

  return {
    start(streamId, sessionId): StreamWriter {
      let resumable = true;
      let finished = false;
      /** Events not sent yet (one write is in flight), and whether the end waits for them. */
      let pending: Array<string | Uint8Array> = [];
      let pendingBytes = 0;
      let writing = false;
      let endAfterWrites = false;
      const keys = [meta(streamId), events(streamId)];
      /** The stream is no longer resumable: its buffer is dropped (best effort; it expires anyway). */
      const lose = () => {
        if (!resumable) return;
        resumable = false;
        pending = [];
        pendingBytes = 0;
        write('FINISH', keys, [ttl, 'gone']).catch(() => {});
        wake(streamId);
      };
      const finish = () => {
        write('FINISH', keys, [ttl, 'ended']).then(() => wake(streamId), lose);
      };
      /** Sends what is pending as one script run; when it is answered, what came meanwhile (then the end). */
      const flush = () => {
        if (!resumable) return;
        if (!pending.length) {
          if (endAfterWrites) finish();
          return;
        }
        const batch = pending;
        pending = [];
        pendingBytes = 0;
        writing = true;
        write('APPEND', keys, [String(limits.maxBytesPerStream), liveTtl, ...batch]).then((result) => {
          writing = false;
          if (result === 1) {
            wake(streamId);
            return flush();
          }
          resumable = false;
          pending = [];
          if (result === 0) stopped(streamId);
          else wake(streamId);
        }, () => {
          writing = false;
          lose();
        });
      };
      // Commands on one connection run in the order sent: START before the first APPEND.
      write('START', [meta(streamId)], [sessionId, liveTtl]).catch(lose);
      return {
        get resumable() {
          return resumable;
        },
        append(seq, bytes) {
          if (!resumable || finished) return;
          // Redis checks the byte cap on what it holds; what waits here is bounded too.
          pendingBytes += bytes.byteLength;
          if (pending.length / 2 >= MAX_PENDING || pendingBytes > limits.maxBytesPerStream) return lose();
          pending.push(String(seq), bytes);
          if (!writing) flush();
        },
        end() {
          if (finished) return;
          finished = true;
          if (!resumable) return;
          if (writing || pending.length) endAfterWrites = true;
          else finish();
        },
        drop() {
          finished = true;
          lose();
        },
      };
    },
    async read(streamId, sessionId, afterSeq): Promise<BufferRead> {
      const reply = await deps.run('READ', [meta(streamId), events(streamId)], [sessionId, String(afterSeq), String(READ_BATCH)]) as unknown[];
      if (reply[0] !== 1) return { kind: 'gone' };
      const state = text(reply[1]);
      const last = Number(text(reply[2]));
      const entries = reply[3] as Array<[unknown, unknown[]]>;
      const out = entries.map(([id, fields]) => ({ seq: parseInt(text(id), 10), bytes: bytesOf(fields[1]) }));
      return { kind: 'events', events: out, last, ended: state === 'ended' };
    },
    waitForMore(streamId, _afterSeq, ms) {
      return new Promise<void>((resolve) => {
        const set = waiters.get(streamId) ?? new Set<() => void>();
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (!set.size && waiters.get(streamId) === set) waiters.delete(streamId);
          resolve();
        };
        const timer = setTimeout(done, Math.min(ms, POLL_MS));
        set.add(done);
        waiters.set(streamId, set);
      });
    },
    async stop(streamId, sessionId) {
      await deps.run('STOP', [meta(streamId), events(streamId)], [sessionId, ttl, stopChannel(deps.prefix), streamId]);
    },
    onStopped(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    async otherInstances() {
      return Math.max(0, (await deps.stopListeners()) - 1);
    },
    settled() {
      return new Promise<void>((resolve) => {
        // Looked at after a turn of the event loop: an answered write's follow-up (the next batch, the end) has then started.
        const check = () => {
          if (writes) whenNoWrites.add(() => setTimeout(check, 0));
          else resolve();
        };
        setTimeout(check, 0);
      });
    },
  };
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  return String(value);
}

function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new TextEncoder().encode(String(value));
}
