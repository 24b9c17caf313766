/**
 * Batch jobs: JSONL input files (and inline requests) run line by line through the platform's own endpoints,
 * results written back as files of the files API (batch/runner.ts). Jobs belong to the creator's workspace.
 *
 * - `POST /v1/batch/jobs` `{input_files?, requests?, endpoint, model?, agent_id?, metadata?, timeout_hours=24}`
 *   → the job, QUEUED. `endpoint` is one of the SDK's ApiEndpoint values (others → 422); an unknown input file
 *   → 404; a file of another purpose, a malformed line, no request at all, `model` with `agent_id`, or
 *   `agent_id` for an endpoint other than chat completions or conversations → 422; an unknown agent → 404.
 * - `GET /v1/batch/jobs` (`page` from 0, `page_size` (=100, ≤1000), `model`, `agent_id`, `metadata` (a JSON
 *   object; the SDK spreads its pairs as query parameters of their own, which are read the same way),
 *   `created_after` (date-time), `created_by_me`, `status` (repeatable), `order_by` = -created | created)
 *   → `{data, object:"list", total}`.
 * - `GET /v1/batch/jobs/{job_id}?inline=true` → the job, with `outputs` (every result so far, in line order) when inline.
 * - `POST /v1/batch/jobs/{job_id}/cancel` → the job: QUEUED → CANCELLED at once; RUNNING → CANCELLATION_REQUESTED,
 *   then CANCELLED before its next request; already cancelled → unchanged; otherwise finished → 400.
 * - `DELETE /v1/batch/jobs/{job_id}` → `{id, object:"batch", deleted:true}` (a running job stops; result files stay).
 * A malformed `job_id` → 422 (uuid_parsing); another workspace's job → 404, as an unknown id.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { badRequest, invalidField, notFound } from '../http/errors.js';
import { pathUuid, readJson, validate } from '../http/validation.js';
import { AGENT_ENDPOINTS, BATCH_ENDPOINTS, type Dispatch } from './dispatch.js';
import { readBatchInput } from './input.js';
import { BatchRunner } from './runner.js';
import {
  BATCH_STATUSES, FINAL_STATUSES, allResults, createBatchJob, deleteBatchJob, getBatchJob, listBatchJobs, requestCancel,
} from './store.js';
import { parseJsonDocument } from '../http/input-guard.js';

export interface BatchRouteOptions {
  /** How a request of a job reaches the platform: its own app, as the job's creator. */
  dispatch: Dispatch;
  /** Given the runner's stop, which the platform awaits on close before stopping its engines. */
  onStop?: (stop: () => Promise<void>) => void;
  /** Where unexpected errors of the background runner are reported (default: console.error). */
  report?: (error: unknown) => void;
}

const CreateBatchJobSchema = z.object({
  input_files: z.array(z.string().min(1)).nullable().optional(),
  requests: z.array(z.object({ custom_id: z.string().nullable().optional(), body: z.record(z.string(), z.unknown()) })).nullable().optional(),
  endpoint: z.enum(BATCH_ENDPOINTS),
  model: z.string().min(1).nullable().optional(),
  agent_id: z.string().min(1).nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  timeout_hours: z.int().min(1).max(168).default(24),
});

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

const ListQuerySchema = z.object({
  page: z.coerce.number().int().min(0).default(0),
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
  model: z.string().optional(),
  agent_id: z.string().optional(),
  metadata: z.string().optional(),
  created_after: z.iso.datetime({ offset: true, local: true }).optional(),
  created_by_me: queryBool.default(false),
  status: z.array(z.enum(BATCH_STATUSES)).optional(),
  order_by: z.enum(['created', '-created']).default('-created'),
});
const LIST_PARAMS = new Set(Object.keys(ListQuerySchema.shape));

const GetQuerySchema = z.object({ inline: queryBool.optional() });

const jobNotFound = (id: string) => notFound(`Batch job '${id}' not found`);

/** The metadata filter: `metadata` as a JSON object, plus the pairs the SDK spreads as parameters of their own. */
function metadataFilter(c: Context, json: string | undefined): Record<string, string> {
  const filter: Record<string, string> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseJsonDocument(json);
    } catch { /* reported below */ }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw invalidField(['query', 'metadata'], 'Input should be a JSON object', 'dict_type', json);
    }
    for (const [k, v] of Object.entries(parsed)) filter[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  for (const [k, v] of Object.entries(c.req.query())) if (!LIST_PARAMS.has(k)) filter[k] = v;
  return filter;
}

export function batchRoutes(ctx: PlatformContext, options: BatchRouteOptions): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const report = options.report ?? ((e: unknown) => console.error('[parley platform] batch', e));
  const runner = new BatchRunner(ctx.db, options.dispatch, report);
  options.onStop?.(() => runner.stop());
  // Jobs left QUEUED or RUNNING by the previous run continue now.
  runner.wake();

  app.post('/jobs', async (c) => {
    const body = await readJson(c, CreateBatchJobSchema, ctx.limits.maxJsonBytes);
    const caller = callerOf(c);
    if (body.model && body.agent_id) throw invalidField(['body', 'agent_id'], 'Give model or agent_id, not both', 'value_error', body.agent_id);
    if (body.agent_id) {
      if (!AGENT_ENDPOINTS.includes(body.endpoint)) {
        throw invalidField(['body', 'agent_id'], `agent_id is only for the endpoints ${AGENT_ENDPOINTS.join(' and ')}`, 'value_error', body.agent_id);
      }
      if (!(await ctx.agents.get(body.agent_id))) throw notFound(`Agent '${body.agent_id}' not found`);
    }
    const inline = (body.requests ?? []).map((r) => ({ customId: r.custom_id ?? null, body: r.body }));
    const inputFiles = body.input_files ?? [];
    if (!inputFiles.length && !inline.length) {
      throw invalidField(['body', 'input_files'], 'Give input_files (JSONL files of purpose batch) or requests: a batch job needs at least one request', 'missing');
    }
    const input = await readBatchInput(ctx.db, caller, inputFiles, inline);
    if (!input.lines.length) throw invalidField(['body', 'input_files'], 'The input files hold no request', 'value_error', inputFiles);
    const job = await createBatchJob(ctx.db, caller, {
      inputFiles, endpoint: body.endpoint, model: body.model ?? null, agentId: body.agent_id ?? null, metadata: body.metadata ?? null,
      timeoutHours: body.timeout_hours, privateOutput: input.privateInput, lines: input.lines,
    });
    runner.wake();
    return c.json(job.record);
  });

  app.get('/jobs', async (c) => {
    const q = validate(ListQuerySchema, { ...c.req.query(), status: c.req.queries('status') }, ['query']);
    const caller = callerOf(c);
    const { data, total } = await listBatchJobs(ctx.db, caller.workspaceId, {
      page: q.page,
      pageSize: q.page_size,
      model: q.model,
      agentId: q.agent_id,
      metadata: metadataFilter(c, q.metadata),
      createdAfter: q.created_after === undefined ? undefined : Math.floor(Date.parse(q.created_after) / 1000),
      userId: q.created_by_me ? caller.userId : undefined,
      statuses: q.status,
      newestFirst: q.order_by === '-created',
    });
    return c.json({ data, object: 'list', total });
  });

  app.get('/jobs/:job_id', async (c) => {
    const id = pathUuid(c, 'job_id');
    const q = validate(GetQuerySchema, c.req.query(), ['query']);
    const job = await getBatchJob(ctx.db, callerOf(c).workspaceId, id);
    if (!job) throw jobNotFound(id);
    return c.json(q.inline ? { ...job.record, outputs: await allResults(ctx.db, id) } : job.record);
  });

  app.post('/jobs/:job_id/cancel', async (c) => {
    const id = pathUuid(c, 'job_id');
    const { workspaceId } = callerOf(c);
    const before = await getBatchJob(ctx.db, workspaceId, id);
    if (!before) throw jobNotFound(id);
    const { status } = before.record;
    if (FINAL_STATUSES.includes(status) && status !== 'CANCELLED') {
      throw badRequest(`Batch job '${id}' is already ${status}; only QUEUED or RUNNING jobs can be cancelled`, 'job_id');
    }
    const job = await requestCancel(ctx.db, workspaceId, id);
    if (!job) throw jobNotFound(id);
    return c.json(job.record);
  });

  app.delete('/jobs/:job_id', async (c) => {
    const id = pathUuid(c, 'job_id');
    if (!(await deleteBatchJob(ctx.db, callerOf(c).workspaceId, id))) throw jobNotFound(id);
    return c.json({ id, object: 'batch', deleted: true });
  });

  return app;
}
