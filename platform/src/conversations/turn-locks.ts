/**
 * Conversations with a turn in progress, in the database: a second turn at once is refused (409
 * `conversation_busy`), not interleaved, even when it reaches another platform process on the same
 * PostgreSQL database. A lock names its holder with a random token, so only that turn removes it; a lock
 * left by a process that died lapses after {@link TURN_LOCK_SECONDS} (PGlite clears them when it opens).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';

/** Longest a turn may hold its conversation without finishing (then another turn may start). */
export const TURN_LOCK_SECONDS = 600;

export interface TurnLocks {
  /** Takes the conversation for a turn: its token, or undefined while another turn holds it. */
  acquire(conversationId: string): Promise<string | undefined>;
  /** Gives it back (a no-op when the lock lapsed and another turn has it now). */
  release(conversationId: string, token: string): Promise<void>;
  /** True while a turn holds the conversation. */
  held(conversationId: string): Promise<boolean>;
}

export function createTurnLocks(db: Db): TurnLocks {
  return {
    async acquire(conversationId) {
      const token = randomBytes(12).toString('hex');
      const { rows } = await db.query<{ token: string }>(
        `insert into conversation_turns (conversation_id, token, until) values ($1, $2, now() + make_interval(secs => $3))
         on conflict (conversation_id) do update set token = excluded.token, until = excluded.until where conversation_turns.until < now()
         returning token`,
        [conversationId, token, TURN_LOCK_SECONDS],
      );
      return rows[0]?.token === token ? token : undefined;
    },
    async release(conversationId, token) {
      if (db.closed) return;
      // A failed delete (the database closing) leaves the lock to lapse.
      await db.query('delete from conversation_turns where conversation_id = $1 and token = $2', [conversationId, token]).catch(() => undefined);
    },
    async held(conversationId) {
      const { rows } = await db.query('select 1 from conversation_turns where conversation_id = $1 and until >= now()', [conversationId]);
      return rows.length > 0;
    },
  };
}
