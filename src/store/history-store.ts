/**
 * The history cache in IndexedDB: conversations and their entries as last seen, so a reload shows
 * a conversation at once (the server stays the source of truth), plus the relay's resume tokens and
 * the replies streaming when the page last saw them (to resume after a reload), and the messages
 * written offline that wait for the connection (so a reload while offline does not lose them).
 */
import { openDB, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { CachedConversation, CachedEntry, HistoryStoreApi, InflightReply, ReplyFeedback, WaitingTurn } from '../client/contracts.js';
import type { ConversationEntry } from '../client/types.js';
import { SCHEMA_VERSION, upgrade, type EntryRecord, type HistorySchema } from './schema.js';

export interface HistoryStoreOptions {
  /** Database name (default `parley-history`). */
  name?: string;
  /** Keep at most this many conversations; the least recently updated go first (default 200). */
  maxConversations?: number;
  /**
   * Entry writes are coalesced: all `putEntry` calls within this window become one transaction
   * that writes each entry once, in its latest state (default 80 ms).
   */
  writeIntervalMs?: number;
}

type Db = IDBPDatabase<HistorySchema>;
type WriteTx = IDBPTransaction<HistorySchema, Array<StoreNames<HistorySchema>>, 'readwrite'>;

interface PendingEntry { conversationId: string; entry: CachedEntry }
interface Deferred { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void }

/**
 * Implements {@link HistoryStoreApi} on IndexedDB (via `idb`). Open with {@link HistoryStore.open}.
 *
 * - `putEntry` is cheap to call per delta: writes are batched every `writeIntervalMs` (and flushed
 *   before any read, on `flush()`, on `close()` and when the page is hidden), so a long reply costs a
 *   few transactions, and a reload mid-reply keeps what had arrived up to the last batch.
 * - All writes run one after another in call order.
 * - A write refused for quota evicts the least recently updated conversation (never one being
 *   written) and tries again, until it fits or nothing is left to evict; `onEvicted` gets the ids.
 * - Beyond `maxConversations`, the least recently updated conversations are removed (silently: a
 *   policy, not an emergency).
 */
export class HistoryStore implements HistoryStoreApi {
  /** Called with the ids of conversations removed to make room after a quota error. */
  onEvicted?: (ids: string[]) => void;

  readonly #db: Db;
  readonly #maxConversations: number;
  readonly #interval: number;
  /** The database name (tabs sharing it talk on a channel named after it). */
  readonly name: string;
  #pending = new Map<string, PendingEntry>();
  /** Coalesced inflight writes by conversation (null: delete), written in the entries' transaction. */
  #pendingInflight = new Map<string, InflightReply | null>();
  #batch: Deferred | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** `pagehide` (leaving), or `visibilitychange` to hidden (a mobile tab may be killed without `pagehide`). */
  readonly #onHidden = (event: Event) => {
    const visibility = (globalThis as { document?: { visibilityState?: string } }).document?.visibilityState;
    if (event.type === 'pagehide' || visibility === 'hidden') void this.flush().catch(() => {});
  };

  private constructor(db: Db, options: HistoryStoreOptions) {
    this.#db = db;
    this.name = options.name ?? 'parley-history';
    this.#maxConversations = Math.max(1, options.maxConversations ?? 200);
    this.#interval = Math.max(0, options.writeIntervalMs ?? 80);
    if (typeof globalThis.addEventListener === 'function') {
      globalThis.addEventListener('pagehide', this.#onHidden);
      globalThis.addEventListener('visibilitychange', this.#onHidden);
    }
  }

  /** Opens (creating or migrating) the database. Needs IndexedDB (a browser, or fake-indexeddb in tests). */
  static async open(options: HistoryStoreOptions = {}): Promise<HistoryStore> {
    let store: HistoryStore | undefined;
    const db = await openDB<HistorySchema>(options.name ?? 'parley-history', SCHEMA_VERSION, {
      upgrade: (database, oldVersion, _newVersion, tx) => {
        // A failed migration aborts the upgrade, so openDB rejects and the old data stays as it was.
        upgrade(database as unknown as IDBPDatabase<unknown>, oldVersion, tx as never).catch(() => {
          try {
            tx.abort();
          } catch {
            // already aborted
          }
        });
      },
      // A newer version of the page wants to upgrade the schema: let it (this connection stops working).
      blocking: () => {
        if (store) store.#release();
        db.close();
      },
    });
    store = new HistoryStore(db, options);
    return store;
  }

  // ------------------------------------------------------------ reads (see every earlier write)

  /** Cached conversations, most recently updated first. */
  async listConversations(): Promise<CachedConversation[]> {
    await this.#settled();
    const all = await this.#db.getAllFromIndex('conversations', 'updatedAt');
    return all.reverse();
  }

  /** One cached conversation record. */
  async getConversation(id: string): Promise<CachedConversation | undefined> {
    await this.#settled();
    return this.#db.get('conversations', id);
  }

  /** A conversation's cached entries in order (pending writes included). */
  async getEntries(conversationId: string): Promise<CachedEntry[]> {
    await this.flush();
    const records = await this.#db.getAllFromIndex('entries', 'order', IDBKeyRange.bound([conversationId, -Infinity], [conversationId, Infinity]));
    return records.map((r) => r.entry);
  }

  /** The relay session's resume token kept for `relayUrl` (trailing slashes ignored). */
  async getResumeToken(relayUrl: string): Promise<string | undefined> {
    await this.#settled();
    return (await this.#db.get('meta', resumeKey(relayUrl)))?.value;
  }

  /** The reply of `conversationId` that was streaming when last seen (pending writes included). */
  async getInflight(conversationId: string): Promise<InflightReply | undefined> {
    await this.flush();
    return this.#db.get('inflight', conversationId);
  }

  /** The messages written offline waiting under `key` (a conversation id, or `new:…` for a first message). */
  async getWaiting(key: string): Promise<WaitingTurn | undefined> {
    await this.#settled();
    return this.#db.get('waiting', key);
  }

  /** The visitor's ratings of `conversationId`'s replies, by message id (kept in the `meta` store; feedback-records.ts). */
  async getFeedback(conversationId: string): Promise<Record<string, ReplyFeedback>> {
    await this.#settled();
    const { readFeedback } = await import('./feedback-records.js');
    return readFeedback(this.#db, conversationId);
  }

  // ------------------------------------------------------------ writes

  /** Keeps (or, with null, forgets) the visitor's rating of reply `messageId`; deleting the conversation forgets them all. */
  setFeedback(conversationId: string, messageId: string, feedback: ReplyFeedback | null): Promise<void> {
    return this.#serial(() => this.#withRoom([], async () => {
      const { writeFeedback } = await import('./feedback-records.js');
      await writeFeedback(this.#db, conversationId, messageId, feedback);
    }));
  }

  /**
   * Keeps the messages waiting for the connection under `record.key`, merged by entry id with those already
   * there (two tabs may each have written some for the same conversation: neither write loses the other's).
   */
  putWaiting(record: WaitingTurn): Promise<void> {
    return this.#serial(() => this.#withRoom([], async () => {
      const tx = this.#db.transaction('waiting', 'readwrite');
      await settle(tx, async () => {
        const old = await tx.store.get(record.key);
        const ids = new Set(record.entries.map((e) => e.id));
        const kept = (old?.entries ?? []).filter((e) => !ids.has(e.id));
        // chat-entries' byCreatedAt, written out: importing it would move the chat's entry code into every element's first load.
        const entries = [...kept, ...record.entries.map((e) => ({ ...e }))]
          .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
        await tx.store.put({ ...record, entries });
      });
    }));
  }

  /**
   * Reads and deletes the waiting messages of `key` in one readwrite transaction. IndexedDB runs readwrite
   * transactions on the same store one at a time, across tabs too: of two tabs taking the same record, one
   * gets it and the other undefined, so a message is sent once.
   */
  takeWaiting(key: string): Promise<WaitingTurn | undefined> {
    return this.#serial(async () => {
      const tx = this.#db.transaction('waiting', 'readwrite');
      let record: WaitingTurn | undefined;
      await settle(tx, async () => {
        record = await tx.store.get(key);
        if (record) await tx.store.delete(key);
      });
      return record;
    });
  }

  /** Forgets the messages waiting under `key`: those of `ids` (the record goes when none is left), or all. */
  deleteWaiting(key: string, ids?: readonly string[]): Promise<void> {
    return this.#serial(async () => {
      const tx = this.#db.transaction('waiting', 'readwrite');
      await settle(tx, async () => {
        const old = ids ? await tx.store.get(key) : undefined;
        const drop = new Set(ids);
        const left = old?.entries.filter((e) => !drop.has(e.id)) ?? [];
        if (left.length) await tx.store.put({ ...old!, entries: left });
        else await tx.store.delete(key);
      });
    });
  }

  /**
   * Keeps where a streaming reply is. Coalesced with {@link putEntry}: the entries and the point are
   * written in one transaction, so a resume from the stored point neither repeats nor misses text.
   */
  putInflight(record: InflightReply): Promise<void> {
    this.#pendingInflight.set(record.conversationId, { ...record });
    return this.#schedule();
  }

  /** Nothing to resume for `conversationId` any more; coalesced like {@link putInflight}. */
  deleteInflight(conversationId: string): Promise<void> {
    this.#pendingInflight.set(conversationId, null);
    return this.#schedule();
  }

  /**
   * Inserts or replaces an entry by id (a new entry goes after the conversation's others). Coalesced:
   * resolves when the batch holding this write is stored.
   */
  putEntry(conversationId: string, entry: CachedEntry): Promise<void> {
    this.#pending.set(`${conversationId}\u0000${entry.id}`, { conversationId, entry });
    return this.#schedule();
  }

  /** The batch the next coalesced write joins (started, with its timer, when there is none). */
  #schedule(): Promise<void> {
    if (!this.#batch) {
      this.#batch = deferred();
      this.#timer = setTimeout(() => void this.flush().catch(() => {}), this.#interval);
    }
    return this.#batch.promise;
  }

  /** Writes the coalesced entry writes now; resolves when they and every earlier write are stored. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batch;
    const items = [...this.#pending.values()];
    const inflight = [...this.#pendingInflight.entries()];
    this.#batch = null;
    this.#pending = new Map();
    this.#pendingInflight = new Map();
    if (!batch) return this.#settled();
    const written = this.#serial(() => this.#writeEntries(items, inflight));
    written.then(batch.resolve, batch.reject);
    return written;
  }

  /** Inserts or replaces a conversation record, then applies `maxConversations`. */
  putConversation(conversation: CachedConversation): Promise<void> {
    return this.#serial(async () => {
      await this.#withRoom([conversation.id], async () => {
        const tx = this.#db.transaction('conversations', 'readwrite');
        await settle(tx, async () => {
          await tx.store.put(conversation);
        });
      });
      await this.#enforceMax(conversation.id);
    });
  }

  /** Makes `entries` (in this order) the conversation's cached entries; `interrupted` marks on them are kept. */
  replaceEntries(conversationId: string, entries: ConversationEntry[]): Promise<void> {
    // Coalesced writes for this conversation are older than the entries given here.
    for (const [key, item] of this.#pending) if (item.conversationId === conversationId) this.#pending.delete(key);
    return this.#serial(() => this.#withRoom([conversationId], async () => {
      const tx = this.#db.transaction('entries', 'readwrite');
      await settle(tx, async () => {
        await tx.store.delete(entriesOf(conversationId));
        await Promise.all(entries.map((entry, position) =>
          tx.store.put({ conversationId, id: entry.id, position, entry: entry as CachedEntry })));
      });
    }));
  }

  /**
   * Removes a conversation, its entries and its messages waiting for the connection from the cache
   * (eviction keeps waiting messages: they are what the user wrote, not a copy of the server's).
   */
  deleteConversation(id: string): Promise<void> {
    for (const [key, item] of this.#pending) if (item.conversationId === id) this.#pending.delete(key);
    this.#pendingInflight.delete(id);
    return this.#serial(async () => {
      await this.#deleteNow([id]);
      const tx = this.#db.transaction('waiting', 'readwrite');
      await settle(tx, async () => {
        await tx.store.delete(id);
      });
    });
  }

  /** Keeps the relay session's resume token for `relayUrl`. */
  setResumeToken(relayUrl: string, token: string): Promise<void> {
    return this.#serial(() => this.#withRoom([], async () => {
      const tx = this.#db.transaction('meta', 'readwrite');
      await settle(tx, async () => {
        await tx.store.put({ key: resumeKey(relayUrl), value: token });
      });
    }));
  }

  /** Flushes pending writes and closes the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush().catch(() => {});
    this.#release();
    this.#db.close();
  }

  // ------------------------------------------------------------ internals

  #release(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    if (typeof globalThis.removeEventListener === 'function') {
      globalThis.removeEventListener('pagehide', this.#onHidden);
      globalThis.removeEventListener('visibilitychange', this.#onHidden);
    }
  }

  /** Runs writes one after another, in call order (a failed write does not stop the next). */
  #serial<T>(write: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(write, write);
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Resolves when every write queued so far has finished. */
  async #settled(): Promise<void> {
    await this.#tail;
  }

  async #writeEntries(items: PendingEntry[], inflight: Array<[string, InflightReply | null]> = []): Promise<void> {
    if (!items.length && !inflight.length) return;
    await this.#withRoom([...items.map((i) => i.conversationId), ...inflight.map(([id]) => id)], async () => {
      const both = this.#db.transaction(['entries', 'inflight'], 'readwrite');
      const tx = { store: both.objectStore('entries'), done: both.done, abort: () => both.abort() };
      await settle(tx, async () => {
        for (const [conversationId, record] of inflight) {
          if (record) await both.objectStore('inflight').put(record);
          else await both.objectStore('inflight').delete(conversationId);
        }
        const next = new Map<string, number>();
        for (const { conversationId, entry } of items) {
          let position = (await tx.store.get([conversationId, entry.id]))?.position;
          if (position === undefined) {
            if (!next.has(conversationId)) {
              const last = await tx.store.index('order').openCursor(IDBKeyRange.bound([conversationId, -Infinity], [conversationId, Infinity]), 'prev');
              next.set(conversationId, last ? last.value.position + 1 : 0);
            }
            position = next.get(conversationId) as number;
            next.set(conversationId, position + 1);
          }
          await tx.store.put({ conversationId, id: entry.id, position, entry } satisfies EntryRecord);
        }
      });
    });
  }

  /** Runs `write`; on a quota error evicts the least recently updated conversation not in `keep` and tries again. */
  async #withRoom(keep: string[], write: () => Promise<void>): Promise<void> {
    const protectedIds = new Set(keep);
    const evicted: string[] = [];
    try {
      for (;;) {
        try {
          await write();
          return;
        } catch (error) {
          if (!isQuotaError(error)) throw error;
          const victim = await this.#oldest(protectedIds);
          if (!victim) throw error;
          await this.#deleteNow([victim]);
          evicted.push(victim);
        }
      }
    } finally {
      if (evicted.length) this.onEvicted?.(evicted);
    }
  }

  async #oldest(exclude: Set<string>): Promise<string | undefined> {
    let cursor = await this.#db.transaction('conversations').store.index('updatedAt').openKeyCursor();
    while (cursor) {
      if (!exclude.has(cursor.primaryKey)) return cursor.primaryKey;
      cursor = await cursor.continue();
    }
    return undefined;
  }

  async #enforceMax(keep: string): Promise<void> {
    const count = await this.#db.count('conversations');
    if (count <= this.#maxConversations) return;
    const victims: string[] = [];
    let cursor = await this.#db.transaction('conversations').store.index('updatedAt').openKeyCursor();
    while (cursor && victims.length < count - this.#maxConversations) {
      if (cursor.primaryKey !== keep) victims.push(cursor.primaryKey);
      cursor = await cursor.continue();
    }
    await this.#deleteNow(victims);
  }

  async #deleteNow(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const tx = this.#db.transaction(['conversations', 'entries', 'inflight', 'meta'], 'readwrite');
    await settle(tx as unknown as WriteTx, async () => {
      for (const id of ids) {
        await tx.objectStore('conversations').delete(id);
        await tx.objectStore('entries').delete(entriesOf(id));
        await tx.objectStore('inflight').delete(id);
        const ratings = feedbackKey(id, '');
        await tx.objectStore('meta').delete(IDBKeyRange.bound(ratings, `${ratings}\uffff`));
      }
    });
  }
}

/** Every entry key `[conversationId, id]` of one conversation (arrays sort after strings, so `[id, []]` bounds them). */
function entriesOf(conversationId: string): IDBKeyRange {
  return IDBKeyRange.bound([conversationId], [conversationId, []]);
}

/** The meta key of a reply's rating: `feedback:<conversation id>:<message id>` (ids have no `:`). */
export function feedbackKey(conversationId: string, messageId: string): string {
  return `feedback:${conversationId}:${messageId}`;
}

function resumeKey(relayUrl: string): string {
  return `resume:${relayUrl.replace(/\/+$/, '')}`;
}

/** Runs the requests of `tx` and waits for it to commit; on failure aborts it (its `done` rejection is handled). */
export async function settle(tx: { done: Promise<void>; abort(): void }, work: () => Promise<void>): Promise<void> {
  const done = tx.done;
  done.catch(() => {});
  try {
    await work();
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // already finished or aborted by the failed request
    }
    throw error;
  }
  await done;
}

function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may fire and forget putEntry; a failed batch must not become an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
