/** Conversations kept in the database: each one's public record and state, and its entries in order. */
import type { Conversation, ConversationEntry } from 'parley-kit/types';
import type { Db } from '../store/db.js';

/** What the platform keeps about a conversation beyond its public record. */
export interface ConversationState {
  /** The agent speaking now (changes on handoff), or null for a model conversation. */
  activeAgentId: string | null;
  /** The agent version the conversation was started with (number), if any. */
  agentVersion: number | null;
  /** Resolved model for model conversations. */
  model: string | null;
}

export interface StoredConversation { record: Conversation; state: ConversationState }

export interface ConversationStore {
  create(conversation: StoredConversation, entries: ConversationEntry[]): Promise<void>;
  get(id: string): Promise<StoredConversation | null>;
  list(options: { page: number; pageSize: number; metadata?: Record<string, unknown> }): Promise<Conversation[]>;
  /** Adds entries after the existing ones and updates the record and state, atomically. */
  append(id: string, entries: ConversationEntry[], conversation: StoredConversation): Promise<void>;
  entries(id: string): Promise<ConversationEntry[]>;
  delete(id: string): Promise<boolean>;
}

export function createConversationStore(db: Db): ConversationStore {
  return {
    async create({ record, state }, entries) {
      await db.transaction(async (tx) => {
        await tx.query(
          'insert into conversations (id, created_at, updated_at, record, state) values ($1, $2, $3, $4, $5)',
          [record.id, record.created_at, record.updated_at, record, state],
        );
        for (const [i, entry] of entries.entries()) {
          await tx.query('insert into entries (conversation_id, position, id, entry) values ($1, $2, $3, $4)', [record.id, i, entry.id, entry]);
        }
      });
    },
    async get(id) {
      const { rows } = await db.query<{ record: Conversation; state: ConversationState }>(
        'select record, state from conversations where id = $1', [id]);
      return rows[0] ?? null;
    },
    async list({ page, pageSize, metadata }) {
      const params: unknown[] = [pageSize, page * pageSize];
      let where = '';
      if (metadata && Object.keys(metadata).length) {
        params.push(metadata);
        where = `where record->'metadata' @> $3::jsonb`;
      }
      const { rows } = await db.query<{ record: Conversation }>(
        `select record from conversations ${where} order by seq desc limit $1 offset $2`, params);
      return rows.map((r) => r.record);
    },
    async append(id, entries, { record, state }) {
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ n: number }>('select coalesce(max(position), -1) + 1 as n from entries where conversation_id = $1', [id]);
        let position = Number(rows[0]?.n ?? 0);
        for (const entry of entries) {
          await tx.query('insert into entries (conversation_id, position, id, entry) values ($1, $2, $3, $4)', [id, position++, entry.id, entry]);
        }
        await tx.query('update conversations set updated_at = $2, record = $3, state = $4 where id = $1', [id, record.updated_at, record, state]);
      });
    },
    async entries(id) {
      const { rows } = await db.query<{ entry: ConversationEntry }>(
        'select entry from entries where conversation_id = $1 order by position', [id]);
      return rows.map((r) => r.entry);
    },
    async delete(id) {
      const { affectedRows } = await db.query('delete from conversations where id = $1', [id]);
      return (affectedRows ?? 0) > 0;
    },
  };
}
