/** Durable fine-tuning jobs and fine-tuned models (tables of migrations.ts). */
import type { Db } from '../store/db.js';
import type { FineTuningJob, FineTunedModelRecord, JobStatus } from './jobs.js';
import type { TrainingExample } from './training-data.js';

/** A job with the workspace and user that created it. */
export interface StoredJob { job: FineTuningJob; workspaceId: string; userId: string }

/** Filters of `GET /v1/fine_tuning/jobs`. */
export interface JobFilter {
  model?: string;
  status?: JobStatus;
  suffix?: string;
  createdAfter?: number;
  createdBefore?: number;
  /** Only the jobs of this user. */
  userId?: string;
}

type JobRow = { record: FineTuningJob; workspace_id: string; user_id: string };
const toStored = (row: JobRow): StoredJob => ({ job: row.record, workspaceId: row.workspace_id, userId: row.user_id });

export async function insertJob(db: Db, owner: { workspaceId: string; userId: string }, job: FineTuningJob): Promise<void> {
  await db.query('insert into fine_tuning_jobs (id, workspace_id, user_id, status, created_at, record) values ($1, $2, $3, $4, $5, $6)',
    [job.id, owner.workspaceId, owner.userId, job.status, job.created_at, JSON.stringify(job)]);
}

/**
 * Saves a job; unless `force`, a job already CANCELLED in the database is left alone (the trainer's writes
 * lose to a cancellation that came in between). Returns whether the job was saved.
 */
export async function saveJob(db: Db, job: FineTuningJob, force = false): Promise<boolean> {
  const { affectedRows } = await db.query(
    `update fine_tuning_jobs set status = $2, record = $3 where id = $1 ${force ? '' : "and status <> 'CANCELLED'"}`, [job.id, job.status, JSON.stringify(job)]);
  return (affectedRows ?? 0) > 0;
}

export async function getJob(db: Db, workspaceId: string, id: string): Promise<StoredJob | undefined> {
  const { rows } = await db.query<JobRow>('select record, workspace_id, user_id from fine_tuning_jobs where id = $1 and workspace_id = $2', [id, workspaceId]);
  return rows[0] && toStored(rows[0]);
}

/** A page of a workspace's jobs, newest first, and how many match. */
export async function listJobs(db: Db, workspaceId: string, filter: JobFilter, page: number, pageSize: number): Promise<{ data: FineTuningJob[]; total: number }> {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.model !== undefined) add("record->>'model' = ?", filter.model);
  if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.suffix !== undefined) add("record->>'suffix' = ?", filter.suffix);
  if (filter.createdAfter !== undefined) add('created_at >= ?', filter.createdAfter);
  if (filter.createdBefore !== undefined) add('created_at <= ?', filter.createdBefore);
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  const clause = where.join(' and ');
  const total = await db.query<{ n: number }>(`select count(*)::int as n from fine_tuning_jobs where ${clause}`, params);
  const { rows } = await db.query<{ record: FineTuningJob }>(
    `select record from fine_tuning_jobs where ${clause} order by seq desc limit ${pageSize} offset ${page * pageSize}`, params);
  return { data: rows.map((r) => r.record), total: total.rows[0].n };
}

/** Jobs the trainer still has work on (not final, and not waiting for `/start`). */
export async function unfinishedJobs(db: Db): Promise<StoredJob[]> {
  const { rows } = await db.query<JobRow>(
    `select record, workspace_id, user_id from fine_tuning_jobs
     where status in ('QUEUED', 'STARTED', 'VALIDATING', 'RUNNING', 'CANCELLATION_REQUESTED')
        or (status = 'VALIDATED' and (record->>'auto_start')::boolean)
     order by seq`);
  return rows.map(toStored);
}

/** A fine-tuned model with its adapter's examples. */
export interface StoredModel { record: FineTunedModelRecord; examples: TrainingExample[] }

export async function insertModel(db: Db, model: StoredModel): Promise<void> {
  await db.query('insert into fine_tuned_models (id, workspace_id, job_id, record, examples) values ($1, $2, $3, $4, $5)',
    [model.record.id, model.record.workspace_id, model.record.job, JSON.stringify(model.record), JSON.stringify(model.examples)]);
}

export async function saveModelRecord(db: Db, record: FineTunedModelRecord): Promise<void> {
  await db.query('update fine_tuned_models set record = $2 where id = $1', [record.id, JSON.stringify(record)]);
}

export async function deleteModel(db: Db, id: string): Promise<boolean> {
  const { affectedRows } = await db.query('delete from fine_tuned_models where id = $1', [id]);
  return (affectedRows ?? 0) > 0;
}

export async function allModels(db: Db): Promise<StoredModel[]> {
  const { rows } = await db.query<StoredModel>('select record, examples from fine_tuned_models order by seq');
  return rows;
}
