/**
 * Runs batch jobs in the background, one at a time, oldest first, one request at a time through the platform's
 * own routes ({@link Dispatch}). Between requests it re-reads the job: a cancellation ends it CANCELLED, a
 * passed deadline (`created_at` + `timeout_hours`) ends it TIMEOUT_EXCEEDED, a deleted job is dropped.
 * At the end the results become files of the files API (purpose `batch`): successes in the output file, failures
 * in the error file, each line `{id, custom_id, response: {status_code, body}, error}`.
 *
 * Restart: a job found RUNNING resumes at its first request without a result (results are durable per request);
 * one found CANCELLATION_REQUESTED is ended CANCELLED. The runner starts when the routes are built (platform open).
 *
 * Several processes on one PostgreSQL database: a job is claimed with a lease (store/leases.ts), so each runs in
 * one process at a time; a job whose process died is taken over, at its first request without a result, once
 * its lease runs out. Each runner also looks for such work every few seconds.
 */
import type { Db } from '../store/db.js';
import { claimNext, pollForWork, type JobQueue, type Lease } from '../store/leases.js';
import { genericError } from '../http/errors.js';
import { storeUpload } from '../files/upload.js';
import { lineRequest, type BatchEndpoint, type Dispatch } from './dispatch.js';
import {
  errorSummary, finishJob, getStoredJob, markStarted, nowSeconds, pendingLines, recordResult, resultPages,
  type BatchResult, type BatchStatus, type StoredBatchJob,
} from './store.js';

/** Requests read from the database at a time. */
const PAGE = 100;

/** Jobs with work left, running ones first (they resume), then queued ones, oldest first. */
const QUEUE: JobQueue = { table: 'batch_jobs', pending: `status in ('RUNNING', 'CANCELLATION_REQUESTED', 'QUEUED')`, order: `(status = 'QUEUED'), seq` };

export class BatchRunner {
  private running: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  private stopPolling: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly dispatch: Dispatch,
    private readonly report: (error: unknown) => void,
  ) {}

  /**
   * Stops after the line in flight (before the platform closes its engines): the job stays RUNNING and
   * resumes at its next line on the next start.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopPolling?.();
    await this.running;
  }

  /** Starts working through the pending jobs unless already doing so (then looks again when done). */
  wake(): void {
    if (this.stopping) return;
    this.stopPolling ??= pollForWork(this.db, () => this.wake());
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again && !this.db.closed && !this.stopping) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.db.closed || this.stopping) return;
      let job: StoredBatchJob | undefined;
      let lease: Lease | undefined;
      try {
        lease = await claimNext(this.db, QUEUE);
        if (!lease) return;
        job = await getStoredJob(this.db, lease.id);
        if (job) await this.run(job, lease);
      } catch (err) {
        // The database closed under a job (shutdown): it resumes on the next start.
        if (this.db.closed) return;
        this.report(err);
        if (!job) return;
        try {
          await finishJob(this.db, job.record.id, 'FAILED', { outputFile: null, errorFile: null, errors: [{ message: `The job stopped on an internal error: ${messageOf(err)}`, count: 1 }] });
        } catch (again) {
          this.report(again);
          return;
        }
      } finally {
        await lease?.release();
      }
    }
  }

  private async run(job: StoredBatchJob, lease: Lease): Promise<void> {
    const { id } = job.record;
    if (job.record.status === 'QUEUED' && !(await markStarted(this.db, id))) return;
    const deadline = job.record.created_at + job.timeoutHours * 3600;
    const target = { model: job.record.model, agentId: job.record.agent_id };
    for (;;) {
      const lines = await pendingLines(this.db, id, PAGE);
      if (!lines.length) return this.finish(job, 'SUCCESS');
      for (const line of lines) {
        // Stopping: the job stays RUNNING for the next start (or another process). Lease lost: another process has it.
        if (this.stopping || lease.lost) return;
        const current = await getStoredJob(this.db, id);
        if (!current) return;
        if (current.record.status === 'CANCELLATION_REQUESTED') return this.finish(job, 'CANCELLED');
        if (nowSeconds() >= deadline) return this.finish(job, 'TIMEOUT_EXCEEDED');
        const resultId = `batch-${id}-${line.line}`;
        const { ok, result } = line.body.stream === true
          ? failure(resultId, line.customId, 400, 'Streaming is not available in batch jobs: remove "stream" from the request body', 'bad_request')
          : await this.send(resultId, line.customId, lineRequest(job.record.endpoint as BatchEndpoint, target, line.body), job);
        await recordResult(this.db, id, line.line, ok, result);
      }
    }
  }

  /** One request through the platform; its answer, whatever the status, is the line's result. */
  private async send(resultId: string, customId: string | null, request: Request, job: StoredBatchJob): Promise<{ ok: boolean; result: BatchResult }> {
    const response = await this.dispatch(job.creator, request);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch { /* kept as text */ }
    const result: BatchResult = { id: resultId, custom_id: customId, response: { status_code: response.status, body }, error: null };
    if (response.ok) return { ok: true, result };
    return { ok: false, result: { ...result, error: errorOf(response.status, body) } };
  }

  /** Writes the result files and ends the job with `status` (FAILED instead of SUCCESS when every request failed). */
  private async finish(job: StoredBatchJob, status: BatchStatus): Promise<void> {
    const { id } = job.record;
    const owner = { workspaceId: job.creator.workspaceId, userId: job.creator.userId };
    const visibility = job.privateOutput ? 'user' as const : 'workspace' as const;
    // Each file streams from the stored results page by page into 1 MiB chunks (files/upload.ts): a job of a
    // million lines never holds its results in memory, and the file is visible only once complete.
    const db = this.db;
    const encoder = new TextEncoder();
    const write = async (ok: boolean) => {
      const kind = ok ? 'output' : 'error';
      const pages = resultPages(db, id, ok);
      let page = await pages.next();
      if (page.done) return { file: null, lines: 0 }; // no such results: no file (and no pending row to write and delete)
      let lines = 0;
      async function* jsonl() {
        for (; !page.done; page = await pages.next()) {
          lines += page.value.length;
          yield encoder.encode(page.value.map((r) => `${JSON.stringify(r)}\n`).join(''));
        }
      }
      const stored = await storeUpload(db, owner, jsonl());
      const file = await stored.finish({
        filename: `batch_${kind}_${id}.jsonl`, purpose: 'batch', sampleType: `batch_${ok ? 'result' : 'error'}`, mimetype: 'application/jsonl',
        numLines: lines, visibility, expiryHours: null,
      });
      return { file: file.id, lines };
    };
    if (!(await getStoredJob(this.db, id))) return;
    const output = await write(true);
    const error = await write(false);
    const final = status === 'SUCCESS' && error.lines > 0 && output.lines === 0 ? 'FAILED' : status;
    const errors = await errorSummary(this.db, id);
    if (status === 'TIMEOUT_EXCEEDED') errors.unshift({ message: `The job did not finish within its timeout of ${job.timeoutHours} hours`, count: 1 });
    await finishJob(this.db, id, final, { outputFile: output.file, errorFile: error.file, errors });
  }
}

function failure(id: string, customId: string | null, status: number, message: string, code: string): { ok: false; result: BatchResult } {
  return { ok: false, result: { id, custom_id: customId, response: { status_code: status, body: genericError(status, message, 'invalid_request_error', code).body }, error: { message, code } } };
}

/** The `error` of a failed line, from the route's answer: its message (422: every detail) and code. */
function errorOf(status: number, body: unknown): { message: string; code: string | null } {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; code?: unknown; detail?: unknown };
    if (typeof b.message === 'string') return { message: b.message, code: typeof b.code === 'string' ? b.code : null };
    if (Array.isArray(b.detail)) {
      const message = b.detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; ');
      return { message, code: 'validation_error' };
    }
  }
  return { message: `HTTP ${status}: ${typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body).slice(0, 200)}`, code: null };
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
