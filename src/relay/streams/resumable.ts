/**
 * Resumable streams: the buffer that keeps a relayed SSE answer's events (as sent: scrubbed, with their
 * `id: <streamId>:<seq>` lines) while it runs and `ttlSeconds` after it ends, so a page whose connection
 * dropped can ask `GET {base}/streams/{id}` for exactly the events it missed, then the live rest
 * (resume-route.ts). This module has the interface, the limits, the stream ids and the in-memory buffers
 * (one instance); redis-resumable.ts keeps them in Redis Streams so any instance can serve a resume.
 *
 * Bounds: bytes per stream (beyond them the stream is no longer resumable: its buffer is dropped, the
 * live page connection carries on), bytes and streams in all (memory: the oldest ended streams are
 * evicted first; when only live ones are left the newcomer is not buffered), the time kept after the end.
 */

/** Limits of the stream buffers (`RelayOptions.resume`). */
export interface ResumeLimits {
  /** How long a stream's events are kept after it ended, s (default 300). */
  ttlSeconds: number;
  /** Bytes kept per stream (default 4 MiB); beyond them the stream can no longer be resumed. */
  maxBytesPerStream: number;
  /** Bytes kept in all, in memory (default 64 MiB; the oldest ended streams are evicted first). */
  maxBytesTotal: number;
  /** Streams kept at once, in memory (default 1 000; the oldest ended ones are evicted first). */
  maxStreams: number;
  /** Resumes of one stream open at once, across instances (default 4); more → 429 `too_many_resumes`. */
  maxResumesPerStream: number;
}

export const DEFAULT_RESUME_LIMITS: ResumeLimits = {
  ttlSeconds: 300,
  maxBytesPerStream: 4 * 1024 * 1024,
  maxBytesTotal: 64 * 1024 * 1024,
  maxStreams: 1000,
  maxResumesPerStream: 4,
};

/** One kept event: its number and its bytes as sent. */
export interface BufferedEvent {
  seq: number;
  bytes: Uint8Array;
}

/** What a read of a stream's buffer found. */
export type BufferRead =
  /** Unknown, expired, stopped by the user, overflowed, or another session's: all answered alike (410). */
  | { kind: 'gone' }
  /** The events after the asked seq (maybe a first batch only), the last seq kept so far, and whether the stream ended. */
  | { kind: 'events'; events: BufferedEvent[]; last: number; ended: boolean };

/** The writing side of one stream's buffer (the instance relaying it). */
export interface StreamWriter {
  /** Keeps event `seq` (1, 2, 3 …, in order). Never throws and never waits: a networked store writes in the background. */
  append(seq: number, bytes: Uint8Array): void;
  /** The stream ended: its events are kept `ttlSeconds` from now. */
  end(): void;
  /** Drops the buffer at once (revocation, user stop): later resumes get 410. */
  drop(): void;
  /** False once the stream can no longer be resumed (overflow, a failed write, a stop seen by the store). */
  readonly resumable: boolean;
}

/** Where stream buffers live: this process ({@link createMemoryStreamBuffers}) or Redis (redis-resumable.ts). */
export interface StreamBuffers {
  /** Starts keeping a new stream of `sessionId`; null when it cannot be kept (limits): it is then not resumable. */
  start(streamId: string, sessionId: string): StreamWriter | null;
  /** The events after `afterSeq`, if `sessionId` owns the stream and it is still kept. */
  read(streamId: string, sessionId: string, afterSeq: number): Promise<BufferRead>;
  /** Resolves when events after `afterSeq` (or the end) may be there, or after at most `ms`. */
  waitForMore(streamId: string, afterSeq: number, ms: number): Promise<void>;
  /**
   * The user stopped the reply: if `sessionId` owns the stream, its buffer is dropped and every
   * instance's {@link onStopped} listeners are told (the one running it aborts the upstream). Else nothing.
   */
  stop(streamId: string, sessionId: string): Promise<void>;
  /** Calls `listener` with the id of each stream stopped through {@link stop} (any instance). Returns the unlink. */
  onStopped(listener: (streamId: string) => void): () => void;
  /**
   * How many other relay instances read these buffers now (Redis: the others subscribed to it; absent: none).
   * A draining relay hands its pages over only when there is one (drain.ts).
   */
  otherInstances?(): Promise<number>;
  /** Resolves once every write made so far has reached the store (a draining relay waits for it before it exits). */
  settled?(): Promise<void>;
}

const STREAM_ID = /^rs_[A-Za-z0-9_-]{22}$/;

/** A new stream id: `rs_` + 22 base64url characters (128 random bits). */
export function newStreamId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `rs_${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** Whether `value` has the form of a stream id (anything else is answered like an unknown id). */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}

/** Checks the limits given to the relay (positive numbers), filling the defaults. */
export function resumeLimitsOf(options: Partial<ResumeLimits> = {}): ResumeLimits {
  const limits = { ...DEFAULT_RESUME_LIMITS, ...options };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`relay: resume.${name} must be a positive number (got ${String(value)})`);
  }
  return limits;
}

/** One stream kept in memory. */
interface Kept {
  sessionId: string;
  events: Uint8Array[];
  bytes: number;
  ended: boolean;
  /**
   * When it is forgotten (ms): `ttlSeconds` after the end; while live, `ttlSeconds` + the idle timeout after
   * its last event (a stream whose writer died without ending it, say a Worker request cut off, goes too).
   */
  expiresAt: number;
  waiters: Set<() => void>;
  gone: boolean;
}

/** The memory buffers of {@link createMemoryStreamBuffers}, with what tests may inspect. */
export interface MemoryStreamBuffers extends StreamBuffers {
  /** Streams kept now and their bytes in all. */
  readonly usage: { streams: number; bytes: number };
}

/** Stream buffers in this process (the default, and the fallback of stores that keep none). */
export function createMemoryStreamBuffers(limits: ResumeLimits, now: () => number = Date.now, liveExtraSeconds = 300): MemoryStreamBuffers {
  const liveMs = (limits.ttlSeconds + liveExtraSeconds) * 1000;
  // Insertion order is age order: eviction walks from the oldest.
  const kept = new Map<string, Kept>();
  const listeners = new Set<(streamId: string) => void>();
  let total = 0;

  const wake = (entry: Kept) => {
    for (const waiter of entry.waiters) waiter();
    entry.waiters.clear();
  };
  const remove = (streamId: string) => {
    const entry = kept.get(streamId);
    if (!entry) return;
    kept.delete(streamId);
    total -= entry.bytes;
    entry.gone = true;
    entry.events = [];
    wake(entry);
  };
  const sweep = () => {
    const t = now();
    for (const [id, entry] of kept) if (entry.expiresAt <= t) remove(id);
  };
  /** Evicts the oldest ended streams until `bytes` more and `streams` more fit; whether they do. */
  const makeRoom = (bytes: number, streams: number) => {
    const fits = () => total + bytes <= limits.maxBytesTotal && kept.size + streams <= limits.maxStreams;
    if (fits()) return true;
    for (const [id, entry] of kept) {
      if (!entry.ended) continue;
      remove(id);
      if (fits()) return true;
    }
    return fits();
  };

  return {
    get usage() {
      return { streams: kept.size, bytes: total };
    },
    start(streamId, sessionId) {
      sweep();
      if (!makeRoom(0, 1)) return null;
      const entry: Kept = { sessionId, events: [], bytes: 0, ended: false, expiresAt: now() + liveMs, waiters: new Set(), gone: false };
      kept.set(streamId, entry);
      return {
        get resumable() {
          return !entry.gone;
        },
        append(seq, bytes) {
          if (entry.gone) return;
          const fits = seq === entry.events.length + 1 && entry.bytes + bytes.length <= limits.maxBytesPerStream;
          if (!fits || !makeRoom(bytes.length, 0) || entry.gone) {
            remove(streamId);
            return;
          }
          entry.events.push(bytes);
          entry.expiresAt = now() + liveMs;
          entry.bytes += bytes.length;
          total += bytes.length;
          wake(entry);
        },
        end() {
          if (entry.gone || entry.ended) return;
          entry.ended = true;
          entry.expiresAt = now() + limits.ttlSeconds * 1000;
          wake(entry);
        },
        drop() {
          if (kept.get(streamId) === entry) remove(streamId);
        },
      };
    },
    async read(streamId, sessionId, afterSeq) {
      sweep();
      const entry = kept.get(streamId);
      if (!entry || entry.sessionId !== sessionId) return { kind: 'gone' };
      const events = entry.events.slice(afterSeq).map((bytes, i) => ({ seq: afterSeq + i + 1, bytes }));
      return { kind: 'events', events, last: entry.events.length, ended: entry.ended };
    },
    waitForMore(streamId, afterSeq, ms) {
      const entry = kept.get(streamId);
      if (!entry || entry.ended || entry.events.length > afterSeq) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          entry.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        entry.waiters.add(done);
      });
    },
    async stop(streamId, sessionId) {
      const entry = kept.get(streamId);
      if (!entry || entry.sessionId !== sessionId) return;
      remove(streamId);
      for (const listener of [...listeners]) listener(streamId);
    },
    onStopped(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
  };
}
