/**
 * Durable batch jobs, per workspace: the job (`batch_jobs`) and its requests (`batch_requests`), snapshotted at
 * creation so a job does not depend on its input files afterwards. Each request's result is written as soon as
 * it is known, with the job's counters, in one transaction: a job interrupted by a restart resumes at the first
 * request without a result.
 */
import type { Caller } from '../http/caller.js';
import type { Db } from '../store/db.js';

/** The SDK's BatchJobStatus. */
export const BATCH_STATUSES = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT_EXCEEDED', 'CANCELLATION_REQUESTED', 'CANCELLED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** Statuses a job never leaves. */
export const FINAL_STATUSES: readonly BatchStatus[] = ['SUCCESS', 'FAILED', 'TIMEOUT_EXCEEDED', 'CANCELLED'];

/** One request of a job: a JSONL line `{custom_id, body}` of an input file, or an inline request. */
export interface BatchLine { customId: string | null; body: Record<string, unknown> }

/** One line of an output or error file: `{id, custom_id, response: {status_code, body}, error}`. */
export interface BatchResult {
  id: string;
  custom_id: string | null;
  response: { status_code: number; body: unknown } | null;
  error: { message: string; code: string | null } | null;
}

/** The wire shape of a job (the SDK's BatchJob); `outputs` only with `?inline=true`. */
export interface BatchJobRecord {
  id: string;
  object: 'batch';
  input_files: string[];
  metadata: Record<string, string> | null;
  endpoint: string;
  model: string | null;
  agent_id: string | null;
  output_file: string | null;
  error_file: string | null;
  errors: Array<{ message: string; count: number }>;
  outputs?: BatchResult[] | null;
  status: BatchStatus;
  /** Unix seconds, as all the times of a job. */
  created_at: number;
  total_requests: number;
  completed_requests: number;
  succeeded_requests: number;
  failed_requests: number;
  started_at: number | null;
  completed_at: number | null;
}

/** A job as the runner needs it: the record plus who created it and where its results go. */
export interface StoredBatchJob {
  record: BatchJobRecord;
  creator: Caller;
  timeoutHours: number;
  /** Results are readable by the creator only (some input file was private to them). */
  privateOutput: boolean;
}

export interface NewBatchJob {
  inputFiles: string[];
  endpoint: string;
  model: string | null;
  agentId: string | null;
  metadata: Record<string, string> | null;
  timeoutHours: number;
  privateOutput: boolean;
  lines: BatchLine[];
}

/** Filters of `GET /v1/batch/jobs`. */
export interface BatchJobQuery {
  page: number;
  pageSize: number;
  model?: string;
  agentId?: string;
  /** Every pair must be in the job's metadata. */
  metadata?: Record<string, string>;
  /** Unix seconds; jobs created at or after it. */
  createdAfter?: number;
  /** Only the caller's own jobs. */
  userId?: string;
  statuses?: BatchStatus[];
  newestFirst: boolean;
}

interface JobRow {
  id: string;
  creator: Caller;
  input_files: string[];
  endpoint: string;
  model: string | null;
  agent_id: string | null;
  metadata: Record<string, string> | null;
  timeout_hours: number;
  status: BatchStatus;
  private_output: boolean;
  output_file: string | null;
  error_file: string | null;
  errors: Array<{ message: string; count: number }>;
  total_requests: number;
  completed_requests: number;
  succeeded_requests: number;
  failed_requests: number;
  created_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
}

const seconds = (v: number | string | null) => (v === null ? null : Number(v));
/** Now in Unix seconds. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

function toStored(r: JobRow): StoredBatchJob {
  return {
    creator: r.creator,
    timeoutHours: r.timeout_hours,
    privateOutput: r.private_output,
    record: {
      id: r.id,
      object: 'batch',
      input_files: r.input_files,
      metadata: r.metadata,
      endpoint: r.endpoint,
      model: r.model,
      agent_id: r.agent_id,
      output_file: r.output_file,
      error_file: r.error_file,
      errors: r.errors,
      status: r.status,
      created_at: Number(r.created_at),
      total_requests: r.total_requests,
      completed_requests: r.completed_requests,
      succeeded_requests: r.succeeded_requests,
      failed_requests: r.failed_requests,
      started_at: seconds(r.started_at),
      completed_at: seconds(r.completed_at),
    },
  };
}

/** Stores a new QUEUED job and its requests in one transaction. */
export async function createBatchJob(db: Db, creator: Caller, job: NewBatchJob): Promise<StoredBatchJob> {
  const id = crypto.randomUUID();
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into batch_jobs (id, workspace_id, user_id, creator, input_files, endpoint, model, agent_id, metadata, timeout_hours, status, private_output, total_requests, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'QUEUED', $11, $12, $13)`,
      [id, creator.workspaceId, creator.userId, JSON.stringify(creator), JSON.stringify(job.inputFiles), job.endpoint, job.model, job.agentId,
        job.metadata === null ? null : JSON.stringify(job.metadata), job.timeoutHours, job.privateOutput, job.lines.length, nowSeconds()],
    );
    // One parameter for all the requests: a batch may hold 100 000 of them.
    await tx.query(
      `insert into batch_requests (job_id, line, custom_id, body)
       select $1, (n - 1)::integer, e->>'custom_id', e->'body' from jsonb_array_elements($2::jsonb) with ordinality as t(e, n)`,
      [id, JSON.stringify(job.lines.map((l) => ({ custom_id: l.customId, body: l.body })))],
    );
  });
  return (await getStoredJob(db, id))!;
}

/** The job by id, whoever asks (the runner). */
export async function getStoredJob(db: Db, id: string): Promise<StoredBatchJob | undefined> {
  const { rows } = await db.query<JobRow>('select * from batch_jobs where id = $1', [id]);
  return rows[0] && toStored(rows[0]);
}

/** The job if it belongs to `workspaceId`, else undefined. */
export async function getBatchJob(db: Db, workspaceId: string, id: string): Promise<StoredBatchJob | undefined> {
  const { rows } = await db.query<JobRow>('select * from batch_jobs where id = $1 and workspace_id = $2', [id, workspaceId]);
  return rows[0] && toStored(rows[0]);
}

/** A page of the workspace's jobs and how many match in all. */
export async function listBatchJobs(db: Db, workspaceId: string, q: BatchJobQuery): Promise<{ data: BatchJobRecord[]; total: number }> {
  const params: unknown[] = [workspaceId];
  const where = ['workspace_id = $1'];
  const add = (clause: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (q.model) add((p) => `model = ${p}`, q.model);
  if (q.agentId) add((p) => `agent_id = ${p}`, q.agentId);
  if (q.metadata && Object.keys(q.metadata).length) add((p) => `metadata @> ${p}::jsonb`, JSON.stringify(q.metadata));
  if (q.createdAfter !== undefined) add((p) => `created_at >= ${p}`, q.createdAfter);
  if (q.userId) add((p) => `user_id = ${p}`, q.userId);
  if (q.statuses?.length) add((p) => `status = any(${p})`, q.statuses);
  const clause = where.join(' and ');
  const total = await db.query<{ n: number | string }>(`select count(*) as n from batch_jobs where ${clause}`, params);
  const { rows } = await db.query<JobRow>(
    `select * from batch_jobs where ${clause} order by seq ${q.newestFirst ? 'desc' : 'asc'} limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.pageSize, q.page * q.pageSize],
  );
  return { data: rows.map((r) => toStored(r).record), total: Number(total.rows[0].n) };
}

/**
 * Asks a job of `workspaceId` to stop: a QUEUED job is CANCELLED at once, a RUNNING one becomes
 * CANCELLATION_REQUESTED (the runner stops before its next request). Other statuses are left as they are.
 */
export async function requestCancel(db: Db, workspaceId: string, id: string): Promise<StoredBatchJob | undefined> {
  await db.query(
    `update batch_jobs set
       status = case status when 'QUEUED' then 'CANCELLED' else 'CANCELLATION_REQUESTED' end,
       completed_at = case status when 'QUEUED' then $3 else completed_at end
     where id = $1 and workspace_id = $2 and status in ('QUEUED', 'RUNNING')`,
    [id, workspaceId, nowSeconds()],
  );
  return getBatchJob(db, workspaceId, id);
}

/** Deletes a job of `workspaceId` and its requests (not its output files); false when there is none. */
export async function deleteBatchJob(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const { affectedRows } = await db.query('delete from batch_jobs where id = $1 and workspace_id = $2', [id, workspaceId]);
  return (affectedRows ?? 0) > 0;
}

/** Marks a QUEUED job RUNNING (started now); false if it is no longer QUEUED. */
export async function markStarted(db: Db, id: string): Promise<boolean> {
  const { affectedRows } = await db.query(`update batch_jobs set status = 'RUNNING', started_at = $2 where id = $1 and status = 'QUEUED'`, [id, nowSeconds()]);
  return (affectedRows ?? 0) > 0;
}

/** The job's requests that have no result yet, in order, `limit` at a time. */
export async function pendingLines(db: Db, jobId: string, limit: number): Promise<Array<BatchLine & { line: number }>> {
  const { rows } = await db.query<{ line: number; custom_id: string | null; body: Record<string, unknown> }>(
    'select line, custom_id, body from batch_requests where job_id = $1 and not done order by line limit $2',
    [jobId, limit],
  );
  return rows.map((r) => ({ line: r.line, customId: r.custom_id, body: r.body }));
}

/** Stores one request's result and counts it on the job, in one transaction. */
export async function recordResult(db: Db, jobId: string, line: number, ok: boolean, result: BatchResult): Promise<void> {
  await db.transaction(async (tx) => {
    const { affectedRows } = await tx.query(
      'update batch_requests set done = true, ok = $3, result = $4 where job_id = $1 and line = $2 and not done',
      [jobId, line, ok, JSON.stringify(result)],
    );
    if (!affectedRows) return;
    await tx.query(
      `update batch_jobs set completed_requests = completed_requests + 1,
         succeeded_requests = succeeded_requests + $2, failed_requests = failed_requests + $3 where id = $1`,
      [jobId, ok ? 1 : 0, ok ? 0 : 1],
    );
  });
}

/** The results that succeeded (or failed), in line order, `pageSize` at a time (keyset paging: each page one query). */
export async function* resultPages(db: Db, jobId: string, ok: boolean, pageSize = 500): AsyncGenerator<BatchResult[]> {
  let after = -1;
  for (;;) {
    const { rows } = await db.query<{ line: number; result: BatchResult }>(
      'select line, result from batch_requests where job_id = $1 and done and ok = $2 and line > $3 order by line limit $4', [jobId, ok, after, pageSize],
    );
    if (!rows.length) return;
    yield rows.map((r) => r.result);
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.line;
  }
}

/** Every result so far, in line order (`?inline=true`). */
export async function allResults(db: Db, jobId: string): Promise<BatchResult[]> {
  const { rows } = await db.query<{ result: BatchResult }>('select result from batch_requests where job_id = $1 and done order by line', [jobId]);
  return rows.map((r) => r.result);
}

/** The failures of a job grouped by message, most frequent first (the job's `errors`). */
export async function errorSummary(db: Db, jobId: string): Promise<Array<{ message: string; count: number }>> {
  const { rows } = await db.query<{ message: string; count: number | string }>(
    `select result->'error'->>'message' as message, count(*) as count from batch_requests
     where job_id = $1 and done and not ok group by 1 order by 2 desc, 1`,
    [jobId],
  );
  return rows.map((r) => ({ message: r.message, count: Number(r.count) }));
}

/** Ends a job: its final status, result files and error summary. */
export async function finishJob(
  db: Db, id: string, status: BatchStatus,
  outcome: { outputFile: string | null; errorFile: string | null; errors: Array<{ message: string; count: number }> },
): Promise<void> {
  await db.query(
    'update batch_jobs set status = $2, output_file = $3, error_file = $4, errors = $5, completed_at = $6 where id = $1',
    [id, status, outcome.outputFile, outcome.errorFile, JSON.stringify(outcome.errors), nowSeconds()],
  );
}
