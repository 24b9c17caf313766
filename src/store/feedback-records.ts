/**
 * The visitor's ratings of replies, kept in the history store's `meta` store (HistoryStore's `getFeedback`
 * and `setFeedback`). Loaded with `import()` the first time a rating is read or kept: a page that shows no
 * reply feedback never loads it.
 */
import type { IDBPDatabase } from 'idb';
import type { ReplyFeedback } from '../client/contracts.js';
import type { HistorySchema } from './schema.js';
import { feedbackKey, settle } from './history-store.js';

/** The ratings of `conversationId`'s replies, by message id (a damaged record is no rating). */
export async function readFeedback(db: IDBPDatabase<HistorySchema>, conversationId: string): Promise<Record<string, ReplyFeedback>> {
  const out: Record<string, ReplyFeedback> = {};
  const prefix = feedbackKey(conversationId, '');
  for (const record of await db.getAll('meta', IDBKeyRange.bound(prefix, `${prefix}\uffff`))) {
    try {
      const value = JSON.parse(record.value) as ReplyFeedback;
      if (value.rating === 'up' || value.rating === 'down') out[record.key.slice(prefix.length)] = value;
    } catch {
      // a damaged record is no rating
    }
  }
  return out;
}

/** Keeps (or, with null, forgets) the rating of reply `messageId`. */
export async function writeFeedback(db: IDBPDatabase<HistorySchema>, conversationId: string, messageId: string, feedback: ReplyFeedback | null): Promise<void> {
  const tx = db.transaction('meta', 'readwrite');
  await settle(tx, async () => {
    const key = feedbackKey(conversationId, messageId);
    if (feedback) await tx.store.put({ key, value: JSON.stringify(feedback) });
    else await tx.store.delete(key);
  });
}
