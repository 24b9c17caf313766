/**
 * Flood-proofing of the relay's realtime sockets (realtime.ts pipes, this module decides):
 *
 * - a token bucket on the messages a page sends and a cap on its invalid messages (not JSON, unknown
 *   type, invalid fields, binary), both counted per session: shared by all the session's sockets on
 *   this instance and kept for 10 minutes after its last one closed. A socket alone is held to the same
 *   caps; two sockets of one session share them; reconnecting with a new ticket does not reset them;
 * - backpressure: when the page is not reading its replies (its socket's send buffer passes
 *   `maxBufferedBytes`), the relay stops reading from the page and from the upstream until it drains,
 *   and closes the session if it stays over for `stallTimeoutMs` (or passes four times the bound).
 *
 * The token bucket and the backpressure are server/socket-flow.ts's (the platform's realtime route uses them too).
 */
import { TokenBucket, type RealtimeFloodLimits } from '../server/socket-flow.js';

export { DEFAULT_REALTIME_FLOOD_LIMITS, type RealtimeFloodLimits } from '../server/socket-flow.js';

/** How long a session's counts are kept after its last socket closed, ms. */
export const SESSION_MEMORY_MS = 10 * 60_000;

/** One session's counts on this instance, shared by its sockets. */
interface SessionCounts {
  bucket: TokenBucket;
  invalid: number;
  sockets: number;
  forget?: ReturnType<typeof setTimeout>;
}

/** Why a page's socket must close: the `error` event's code and message. */
export interface MessageVerdict {
  status: number;
  message: string;
}

/** The guard of one page socket (its session's counts). */
export interface SocketGuard {
  /** Counts a message from the page; a verdict when it breaks the rate cap (the socket must close). */
  admit(): MessageVerdict | null;
  /** Counts an invalid message; a verdict when the cap is passed (the socket must close). */
  invalid(): MessageVerdict | null;
  /** The socket closed: its session's counts are forgotten a while after its last socket. */
  release(): void;
}

/** This instance's realtime sessions' counts (one per relay), and the guard of each new socket. */
export interface RealtimeGuards {
  open(sessionId: string): SocketGuard;
  /** Sessions with counts held now (for tests). */
  readonly size: number;
}

/** Creates the counts of one relay's realtime sessions. `clock` is monotonic (ms). */
export function createRealtimeGuards(limits: RealtimeFloodLimits, clock: () => number = () => performance.now()): RealtimeGuards {
  const sessions = new Map<string, SessionCounts>();
  const rate = `at most ${limits.messagesPerSecond} messages a second (${limits.messageBurst} at once)`;
  return {
    get size() {
      return sessions.size;
    },
    open(sessionId) {
      let session = sessions.get(sessionId);
      if (!session) {
        session = { bucket: new TokenBucket(limits.messagesPerSecond, limits.messageBurst, clock()), invalid: 0, sockets: 0 };
        sessions.set(sessionId, session);
      }
      clearTimeout(session.forget);
      session.sockets++;
      let released = false;
      const counts = session;
      return {
        admit() {
          return counts.bucket.take(clock()) ? null : { status: 429, message: `Too many messages: ${rate}` };
        },
        invalid() {
          return ++counts.invalid > limits.maxInvalidMessages ? { status: 400, message: `Too many invalid messages (more than ${limits.maxInvalidMessages} in this session)` } : null;
        },
        release() {
          if (released) return;
          released = true;
          if (--counts.sockets > 0) return;
          counts.forget = setTimeout(() => {
            if (sessions.get(sessionId) === counts && counts.sockets === 0) sessions.delete(sessionId);
          }, SESSION_MEMORY_MS);
          counts.forget.unref?.();
        },
      };
    },
  };
}
