/**
 * Durable storage of observability datasets, their records and their import tasks (tables of
 * migration 1 in ./dataset-migrations.ts). Everything is scoped to a workspace: a dataset, record or task of another
 * workspace is as unknown as one that never existed.
 *
 * Orders: datasets and tasks newest first (what a caller looks for), records in insertion order (so an
 * import keeps the order of its source). Deletes are hard deletes (records and tasks go with their
 * dataset), so `deleted_at` is always null in answers.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';

/** Dataset (and DatasetPreview) as answered. */
export interface Dataset {
  id: string;
  created_at: string;
  updated_at: string;
  deleted_at: null;
  name: string;
  description: string;
  owner_id: string;
  workspace_id: string;
}

export type RecordSource = 'EXPLORER' | 'UPLOADED_FILE' | 'DIRECT_INPUT' | 'PLAYGROUND' | 'TELEMETRY_SPAN';

export interface DatasetRecord {
  id: string;
  created_at: string;
  updated_at: string;
  deleted_at: null;
  dataset_id: string;
  payload: Record<string, unknown>;
  properties: Record<string, unknown>;
  source: RecordSource;
}

export type TaskStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface DatasetImportTask {
  id: string;
  created_at: string;
  updated_at: string;
  deleted_at: null;
  creator_id: string;
  dataset_id: string;
  workspace_id: string;
  status: TaskStatus;
  progress: number | null;
  message: string | null;
}

/** What an import task was asked to do, kept with the task so an interrupted task can run again. */
export type ImportRequest =
  | { kind: 'playground'; conversation_ids: string[] }
  | { kind: 'dataset'; dataset_record_ids: string[] }
  | { kind: 'file'; file_id: string }
  | { kind: 'explorer'; completion_event_ids: string[] }
  | { kind: 'campaign'; campaign_id: string };

/** A record to insert (its id and times are made by the store). */
export interface NewRecord { payload: Record<string, unknown>; properties: Record<string, unknown>; source: RecordSource }

export interface Page<T> { results: T[]; count: number }
export interface PageRequest { page: number; pageSize: number }

type Queryable = Pick<Db, 'query'>;

const DATASET_COLUMNS = 'id, created_at, updated_at, name, description, owner_id, workspace_id';
const RECORD_COLUMNS = 'id, created_at, updated_at, dataset_id, payload, properties, source';
const TASK_COLUMNS = 'id, created_at, updated_at, creator_id, dataset_id, workspace_id, status, progress, message';
/** RECORD_COLUMNS of `dataset_records r` (for queries joining `datasets d`). */
const R_RECORD_COLUMNS = RECORD_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ');

const toDataset = (row: Omit<Dataset, 'deleted_at'>): Dataset => ({ ...row, deleted_at: null });
const toRecord = (row: Omit<DatasetRecord, 'deleted_at'>): DatasetRecord => ({ ...row, deleted_at: null });
const toTask = (row: Omit<DatasetImportTask, 'deleted_at'>): DatasetImportTask => ({ ...row, deleted_at: null });

/** The SQL offset of a page. */
export const offset = ({ page, pageSize }: PageRequest) => (page - 1) * pageSize;

/** Inserts records into a dataset inside a transaction (or any queryable). */
async function insertRecords(q: Queryable, datasetId: string, records: readonly NewRecord[]): Promise<DatasetRecord[]> {
  const out: DatasetRecord[] = [];
  for (const r of records) {
    const now = isoNow();
    const { rows } = await q.query<Omit<DatasetRecord, 'deleted_at'>>(
      `insert into dataset_records (id, dataset_id, payload, properties, source, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $6) returning ${RECORD_COLUMNS}`,
      [randomUUID(), datasetId, r.payload, r.properties, r.source, now],
    );
    out.push(toRecord(rows[0]));
  }
  return out;
}

/** Datasets, records and tasks of a workspace. */
export class DatasetStore {
  /** The database (read by the import runner for its leases). */
  constructor(readonly db: Db) {}

  async createDataset(input: { workspaceId: string; ownerId: string; name: string; description: string }): Promise<Dataset> {
    const now = isoNow();
    const { rows } = await this.db.query<Omit<Dataset, 'deleted_at'>>(
      `insert into datasets (id, workspace_id, owner_id, name, description, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $6) returning ${DATASET_COLUMNS}`,
      [randomUUID(), input.workspaceId, input.ownerId, input.name, input.description, now],
    );
    return toDataset(rows[0]);
  }

  async getDataset(workspaceId: string, id: string): Promise<Dataset | null> {
    const { rows } = await this.db.query<Omit<Dataset, 'deleted_at'>>(
      `select ${DATASET_COLUMNS} from datasets where id = $1 and workspace_id = $2`, [id, workspaceId]);
    return rows[0] ? toDataset(rows[0]) : null;
  }

  /** Datasets newest first; `q` is a case-insensitive substring of the name or the description. */
  async listDatasets(workspaceId: string, page: PageRequest, q?: string): Promise<Page<Dataset>> {
    const params: unknown[] = [workspaceId];
    let where = 'workspace_id = $1';
    if (q) {
      params.push(`%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
      where += ' and (name ilike $2 or description ilike $2)';
    }
    const count = await this.db.query<{ n: number }>(`select count(*)::integer as n from datasets where ${where}`, params);
    const { rows } = await this.db.query<Omit<Dataset, 'deleted_at'>>(
      `select ${DATASET_COLUMNS} from datasets where ${where} order by seq desc limit ${page.pageSize} offset ${offset(page)}`, params);
    return { results: rows.map(toDataset), count: count.rows[0].n };
  }

  /** Applies the given fields (absent or null ones are kept); null when unknown. */
  async updateDataset(workspaceId: string, id: string, patch: { name?: string | null; description?: string | null }): Promise<Dataset | null> {
    const { rows } = await this.db.query<Omit<Dataset, 'deleted_at'>>(
      `update datasets set name = coalesce($3, name), description = coalesce($4, description), updated_at = $5
        where id = $1 and workspace_id = $2 returning ${DATASET_COLUMNS}`,
      [id, workspaceId, patch.name ?? null, patch.description ?? null, isoNow()],
    );
    return rows[0] ? toDataset(rows[0]) : null;
  }

  /** Deletes the dataset with its records and tasks; false when unknown. */
  async deleteDataset(workspaceId: string, id: string): Promise<boolean> {
    const { affectedRows } = await this.db.query('delete from datasets where id = $1 and workspace_id = $2', [id, workspaceId]);
    return (affectedRows ?? 0) > 0;
  }

  // ------------------------------------------------------------ records

  async createRecord(datasetId: string, record: NewRecord): Promise<DatasetRecord> {
    return this.db.transaction(async (tx) => {
      const [created] = await insertRecords(tx, datasetId, [record]);
      await tx.query('update datasets set updated_at = $2 where id = $1', [datasetId, created.created_at]);
      return created;
    });
  }

  async getRecord(workspaceId: string, id: string): Promise<DatasetRecord | null> {
    const { rows } = await this.db.query<Omit<DatasetRecord, 'deleted_at'>>(
      `select ${R_RECORD_COLUMNS}
         from dataset_records r join datasets d on d.id = r.dataset_id
        where r.id = $1 and d.workspace_id = $2`, [id, workspaceId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The records among `ids` the workspace can see, in the order of `ids` (unknown ids are left out). */
  async getRecords(workspaceId: string, ids: readonly string[]): Promise<DatasetRecord[]> {
    const { rows } = await this.db.query<Omit<DatasetRecord, 'deleted_at'>>(
      `select ${R_RECORD_COLUMNS}
         from dataset_records r join datasets d on d.id = r.dataset_id
        where r.id = any($1::text[]) and d.workspace_id = $2`, [ids, workspaceId]);
    const byId = new Map(rows.map((r) => [r.id, toRecord(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async listRecords(datasetId: string, page: PageRequest): Promise<Page<DatasetRecord>> {
    const count = await this.db.query<{ n: number }>('select count(*)::integer as n from dataset_records where dataset_id = $1', [datasetId]);
    const { rows } = await this.db.query<Omit<DatasetRecord, 'deleted_at'>>(
      `select ${RECORD_COLUMNS} from dataset_records where dataset_id = $1 order by seq limit ${page.pageSize} offset ${offset(page)}`, [datasetId]);
    return { results: rows.map(toRecord), count: count.rows[0].n };
  }

  /** Every record of a dataset, in insertion order, a page at a time (exports stream them). */
  async *recordPages(datasetId: string, pageSize = 200): AsyncGenerator<DatasetRecord[]> {
    for (let after = 0; ;) {
      const { rows } = await this.db.query<Omit<DatasetRecord, 'deleted_at'> & { seq: number | string }>(
        `select ${RECORD_COLUMNS}, seq from dataset_records where dataset_id = $1 and seq > $2 order by seq limit $3`, [datasetId, after, pageSize]);
      if (!rows.length) return;
      after = Number(rows[rows.length - 1]!.seq);
      yield rows.map(({ seq: _seq, ...row }) => toRecord(row));
      if (rows.length < pageSize) return; // a short page is the last: no empty query after it
    }
  }

  /** Replaces the record's payload or properties; false when unknown. */
  async updateRecord(workspaceId: string, id: string, field: 'payload' | 'properties', value: Record<string, unknown>): Promise<boolean> {
    const { affectedRows } = await this.db.query(
      `update dataset_records r set ${field} = $3, updated_at = $4
         from datasets d where d.id = r.dataset_id and r.id = $1 and d.workspace_id = $2`,
      [id, workspaceId, value, isoNow()],
    );
    return (affectedRows ?? 0) > 0;
  }

  /** Deletes the records, all or none: answers the ids the workspace cannot see (and deletes nothing) if there are any. */
  async deleteRecords(workspaceId: string, ids: readonly string[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `select r.id from dataset_records r join datasets d on d.id = r.dataset_id
          where r.id = any($1::text[]) and d.workspace_id = $2`, [ids, workspaceId]);
      const found = new Set(rows.map((r) => r.id));
      const unknown = ids.filter((id) => !found.has(id));
      if (unknown.length) return unknown;
      await tx.query('delete from dataset_records where id = any($1::text[])', [ids]);
      return [];
    });
  }

  // ------------------------------------------------------------ tasks

  async createTask(input: { datasetId: string; workspaceId: string; creatorId: string; request: ImportRequest }): Promise<DatasetImportTask> {
    const now = isoNow();
    const { rows } = await this.db.query<Omit<DatasetImportTask, 'deleted_at'>>(
      `insert into dataset_tasks (id, dataset_id, workspace_id, creator_id, kind, request, status, progress, message, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, 'RUNNING', 0, null, $7, $7) returning ${TASK_COLUMNS}`,
      [randomUUID(), input.datasetId, input.workspaceId, input.creatorId, input.request.kind, input.request, now],
    );
    return toTask(rows[0]);
  }

  async getTask(datasetId: string, id: string): Promise<DatasetImportTask | null> {
    const { rows } = await this.db.query<Omit<DatasetImportTask, 'deleted_at'>>(
      `select ${TASK_COLUMNS} from dataset_tasks where id = $1 and dataset_id = $2`, [id, datasetId]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async listTasks(datasetId: string, page: PageRequest): Promise<Page<DatasetImportTask>> {
    const count = await this.db.query<{ n: number }>('select count(*)::integer as n from dataset_tasks where dataset_id = $1', [datasetId]);
    const { rows } = await this.db.query<Omit<DatasetImportTask, 'deleted_at'>>(
      `select ${TASK_COLUMNS} from dataset_tasks where dataset_id = $1 order by seq desc limit ${page.pageSize} offset ${offset(page)}`, [datasetId]);
    return { results: rows.map(toTask), count: count.rows[0].n };
  }

  /** Tasks a previous process left RUNNING, oldest first, with what they were asked to do. */
  async runningTasks(): Promise<Array<{ id: string; datasetId: string; workspaceId: string; creatorId: string; request: ImportRequest }>> {
    const { rows } = await this.db.query<{ id: string; dataset_id: string; workspace_id: string; creator_id: string; request: ImportRequest }>(
      `select id, dataset_id, workspace_id, creator_id, request from dataset_tasks where status = 'RUNNING' order by seq`);
    return rows.map((r) => ({ id: r.id, datasetId: r.dataset_id, workspaceId: r.workspace_id, creatorId: r.creator_id, request: r.request }));
  }

  async setProgress(id: string, progress: number): Promise<void> {
    await this.db.query(`update dataset_tasks set progress = $2, updated_at = $3 where id = $1 and status = 'RUNNING'`, [id, progress, isoNow()]);
  }

  /** Ends a task as FAILED with a message saying why. */
  async failTask(id: string, message: string): Promise<void> {
    await this.db.query(`update dataset_tasks set status = 'FAILED', message = $2, updated_at = $3 where id = $1 and status = 'RUNNING'`, [id, message, isoNow()]);
  }

  /** Inserts the records and marks the task COMPLETED (100%), atomically: an import adds all its records or none. */
  async completeTask(id: string, datasetId: string, records: readonly NewRecord[], message: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await insertRecords(tx, datasetId, records);
      const now = isoNow();
      await tx.query('update datasets set updated_at = $2 where id = $1', [datasetId, now]);
      await tx.query(`update dataset_tasks set status = 'COMPLETED', progress = 100, message = $2, updated_at = $3 where id = $1`, [id, message, now]);
    });
  }
}
