/**
 * The IndexedDB schema of the history cache and its migrations, one step per version.
 *
 * v1 keyed entries by their id alone. A restart copies entries (with their ids) into the new
 * conversation, so two conversations can hold the same entry id and v1 overwrote one with the other.
 * v2 keys entries by `[conversationId, id]`, orders them by a `position` index, adds the
 * `updatedAt` index that eviction walks, and a `meta` store for resume tokens.
 * v3 adds `inflight`: per conversation, the relayed stream that was replying when the page last saw
 * it (stream id, last event id, entry id), so a reload or another tab resumes it (issue 16).
 * v4 adds `waiting`: messages written offline, not sent yet (by conversation id, or `new:agent:<id>` /
 * `new:model:<name>` for a first message), so a reload while offline does not lose them.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { CachedConversation, CachedEntry, InflightReply, WaitingTurn } from '../client/contracts.js';

/** The version {@link upgrade} brings a database to. */
export const SCHEMA_VERSION = 4;

/** One cached entry in v2: its place in the conversation and the entry itself. */
export interface EntryRecord {
  conversationId: string;
  id: string;
  position: number;
  entry: CachedEntry;
}

export interface MetaRecord {
  key: string;
  value: string;
}

/** The current (v4) schema. */
export interface HistorySchema extends DBSchema {
  conversations: { key: string; value: CachedConversation; indexes: { updatedAt: string } };
  entries: { key: [string, string]; value: EntryRecord; indexes: { order: [string, number]; conversationId: string } };
  meta: { key: string; value: MetaRecord };
  inflight: { key: string; value: InflightReply };
  waiting: { key: string; value: WaitingTurn };
}

/** A v1 entry record: the entry's fields with its conversation and position beside them. */
export type EntryRecordV1 = CachedEntry & { conversationId: string; position: number };

type AnyDatabase = IDBPDatabase<unknown>;
type AnyTransaction = IDBPTransaction<unknown, ArrayLike<StoreNames<unknown>>, 'versionchange'>;

/** Version 1: conversations by id; entries by entry id with a conversationId index. */
export function createV1(db: AnyDatabase): void {
  db.createObjectStore('conversations', { keyPath: 'id' });
  const entries = db.createObjectStore('entries', { keyPath: 'id' });
  entries.createIndex('conversationId', 'conversationId');
}

/** Version 2: entries re-keyed by `[conversationId, id]` (records copied over), updatedAt index, meta store. */
export async function migrateV1toV2(db: AnyDatabase, tx: AnyTransaction): Promise<void> {
  tx.objectStore('conversations').createIndex('updatedAt', 'updatedAt');
  const old = (await tx.objectStore('entries').getAll()) as EntryRecordV1[];
  db.deleteObjectStore('entries');
  const entries = db.createObjectStore('entries', { keyPath: ['conversationId', 'id'] });
  entries.createIndex('order', ['conversationId', 'position']);
  entries.createIndex('conversationId', 'conversationId');
  for (const { conversationId, position, ...entry } of old) {
    await entries.put({ conversationId, id: entry.id, position, entry: entry as CachedEntry } satisfies EntryRecord);
  }
  db.createObjectStore('meta', { keyPath: 'key' });
}

/** Version 3: the `inflight` store (replies to resume), keyed by conversation id. Nothing to copy. */
export function migrateV2toV3(db: AnyDatabase): void {
  db.createObjectStore('inflight', { keyPath: 'conversationId' });
}

/** Version 4: the `waiting` store (messages written offline), keyed by conversation id or `new:…`. Nothing to copy. */
export function migrateV3toV4(db: AnyDatabase): void {
  db.createObjectStore('waiting', { keyPath: 'key' });
}

/**
 * Brings a database from `oldVersion` to {@link SCHEMA_VERSION}, step by step (a new database
 * runs every step). Runs inside the versionchange transaction, so it only awaits IndexedDB requests.
 */
export async function upgrade(db: AnyDatabase, oldVersion: number, tx: AnyTransaction): Promise<void> {
  if (oldVersion < 1) createV1(db);
  if (oldVersion < 2) await migrateV1toV2(db, tx);
  if (oldVersion < 3) migrateV2toV3(db);
  if (oldVersion < 4) migrateV3toV4(db);
}
