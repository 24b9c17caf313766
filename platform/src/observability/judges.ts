/**
 * Durable storage of observability judges (table `judges`, migration 1 in ./dataset-migrations.ts), scoped to a
 * workspace where names are unique. Updates replace the whole definition (the API's PUT); revisions
 * are not kept, so `up_revision`, `down_revision` and `base_revision` are always null.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';
import type { JudgeDefinition } from './judging.js';
import { offset, type Page, type PageRequest } from './datasets.js';

/** Judge as answered. */
export interface Judge extends JudgeDefinition {
  id: string;
  created_at: string;
  updated_at: string;
  deleted_at: null;
  owner_id: string;
  workspace_id: string;
  up_revision: null;
  down_revision: null;
  base_revision: null;
}

export interface JudgeFilter { q?: string; types?: string[]; models?: string[] }

interface Row { id: string; created_at: string; updated_at: string; owner_id: string; workspace_id: string; record: JudgeDefinition }

const toJudge = (row: Row): Judge => ({
  id: row.id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  deleted_at: null,
  owner_id: row.owner_id,
  workspace_id: row.workspace_id,
  name: row.record.name,
  description: row.record.description,
  model_name: row.record.model_name,
  output: row.record.output,
  instructions: row.record.instructions,
  tools: row.record.tools,
  up_revision: null,
  down_revision: null,
  base_revision: null,
});

const COLUMNS = 'id, created_at, updated_at, owner_id, workspace_id, record';

/** Postgres unique violation: the name is taken in the workspace. */
const isNameTaken = (err: unknown) => (err as { code?: string }).code === '23505';

export class JudgeStore {
  constructor(private readonly db: Db) {}

  /** Null when the name is already taken in the workspace. */
  async create(workspaceId: string, ownerId: string, definition: JudgeDefinition): Promise<Judge | null> {
    const now = isoNow();
    try {
      const { rows } = await this.db.query<Row>(
        `insert into judges (id, workspace_id, owner_id, name, record, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $6) returning ${COLUMNS}`,
        [randomUUID(), workspaceId, ownerId, definition.name, definition, now],
      );
      return toJudge(rows[0]);
    } catch (err) {
      if (isNameTaken(err)) return null;
      throw err;
    }
  }

  async get(workspaceId: string, id: string): Promise<Judge | null> {
    const { rows } = await this.db.query<Row>(`select ${COLUMNS} from judges where id = $1 and workspace_id = $2`, [id, workspaceId]);
    return rows[0] ? toJudge(rows[0]) : null;
  }

  /** Judges newest first; `q` matches the name or description (case-insensitive substring), `types`/`models` the output type and model. */
  async list(workspaceId: string, filter: JudgeFilter, page: PageRequest): Promise<Page<Judge>> {
    const params: unknown[] = [workspaceId];
    const where = ['workspace_id = $1'];
    if (filter.q) {
      params.push(`%${filter.q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
      where.push(`(name ilike $${params.length} or record->>'description' ilike $${params.length})`);
    }
    if (filter.types?.length) {
      params.push(filter.types);
      where.push(`record->'output'->>'type' = any($${params.length}::text[])`);
    }
    if (filter.models?.length) {
      params.push(filter.models);
      where.push(`record->>'model_name' = any($${params.length}::text[])`);
    }
    const sql = where.join(' and ');
    const count = await this.db.query<{ n: number }>(`select count(*)::integer as n from judges where ${sql}`, params);
    const { rows } = await this.db.query<Row>(
      `select ${COLUMNS} from judges where ${sql} order by seq desc limit ${page.pageSize} offset ${offset(page)}`, params);
    return { results: rows.map(toJudge), count: count.rows[0].n };
  }

  /** Replaces the definition. `'not_found'` or `'name_taken'` when it cannot. */
  async replace(workspaceId: string, id: string, definition: JudgeDefinition): Promise<'ok' | 'not_found' | 'name_taken'> {
    try {
      const { affectedRows } = await this.db.query(
        'update judges set name = $3, record = $4, updated_at = $5 where id = $1 and workspace_id = $2',
        [id, workspaceId, definition.name, definition, isoNow()],
      );
      return (affectedRows ?? 0) > 0 ? 'ok' : 'not_found';
    } catch (err) {
      if (isNameTaken(err)) return 'name_taken';
      throw err;
    }
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { affectedRows } = await this.db.query('delete from judges where id = $1 and workspace_id = $2', [id, workspaceId]);
    return (affectedRows ?? 0) > 0;
  }
}
