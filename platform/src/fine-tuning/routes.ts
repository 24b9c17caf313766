/**
 * Fine-tuning on the local platform (the platform's `/v1/fine_tuning/*`; answers as its OpenAPI spec and SDK
 * `@mistralai/mistralai` 2.7.0 `models.update/archive/unarchive` expect):
 *
 * | route | answer |
 * |---|---|
 * | `GET /v1/fine_tuning/jobs` (`page` from 0, `page_size` =100, `model`, `created_after`, `created_before`, `created_by_me`, `status`, `wandb_project`, `wandb_name`, `suffix`) | 200 `{data, object:"list", total}` (jobs without `events`/`checkpoints`, newest first) |
 * | `POST /v1/fine_tuning/jobs` (`dry_run`) | 200 job (QUEUED), or with `dry_run=true` 200 `{object:"job.metadata", …}` |
 * | `GET /v1/fine_tuning/jobs/{job_id}` | 200 job with `events` and `checkpoints` |
 * | `POST /v1/fine_tuning/jobs/{job_id}/cancel` | 200 job (CANCELLED); 409 for a finished job |
 * | `POST /v1/fine_tuning/jobs/{job_id}/start` | 200 job (STARTED, then trained); 409 unless VALIDATED |
 * | `PATCH /v1/fine_tuning/models/{model_id}` (`name`, `description`) | 200 CompletionFineTunedModel |
 * | `POST` / `DELETE /v1/fine_tuning/models/{model_id}/archive` | 200 `{id, object:"model", archived}` |
 *
 * What training is here (the local chat model has no weights to tune): the job reads its training files
 * from the files API (purpose `fine-tune`, JSONL chat samples, every line checked) and builds an example
 * memory of (prompt → reply) pairs; the model `ft:<base>:<suffix>:<yyyymmdd>:<hash>` answers prompts similar
 * to a trained one with the trained reply and leaves every other prompt to the base model (see
 * fine-tuning/example-memory.ts). Fine-tuned models join `ctx.chat`, so conversations, chat completions and
 * `GET /v1/models` serve them; archived models stay listed (`archived: true`) and usable.
 * Hyperparameters: `epochs` (or `training_steps`, one example per step) sets the passes over the data (default
 * 3); `learning_rate`, `weight_decay`, `warmup_fraction`, `seq_len`, `fim_ratio` and a training file's
 * `weight` are checked and echoed but change nothing, since a memory has no weights.
 *
 * Refused with 422, with the reason: `job_type: "classifier"`, `integrations` (Weights & Biases needs the
 * network; the local platform runs offline), `repositories`, `invalid_sample_skip_percentage` above 0 (every
 * line is checked), a fine-tuned model as base. Unknown jobs and models → 404.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import { callerOf } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { genericError, invalidField, invalidModel, notFound } from '../http/errors.js';
import { getFile } from '../files/store.js';
import { FineTunedModels } from './fine-tuned-models.js';
import { FINAL_STATUSES, JOB_STATUSES, enterStatus, type DryRunAnswer, type FineTuningJob } from './jobs.js';
import { getJob, insertJob, listJobs, saveJob, type StoredJob } from './store.js';
import { FineTuningTrainer, jobPlan, readJobData } from './trainer.js';
import { TrainingDataError } from './training-data.js';
import { queryInt } from '../http/schemas.js';
import { readJson, validate } from '../http/validation.js';
import { isUuid } from '../http/ids.js';

const optionalNullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

const HyperparametersSchema = z.strictObject({
  training_steps: optionalNullable(z.number().int().min(1)),
  learning_rate: z.number().gt(0).max(1).optional(),
  weight_decay: optionalNullable(z.number().min(0)),
  warmup_fraction: optionalNullable(z.number().min(0).max(1)),
  epochs: optionalNullable(z.number().gt(0).max(100)),
  seq_len: optionalNullable(z.number().int().min(1)),
  fim_ratio: optionalNullable(z.number().min(0).max(1)),
});

/** `POST /v1/fine_tuning/jobs` (JobIn). */
const JobInSchema = z.strictObject({
  model: z.string().min(1),
  training_files: z.array(z.strictObject({ file_id: z.uuid(), weight: z.number().gt(0).optional() })).optional(),
  validation_files: optionalNullable(z.array(z.uuid())),
  suffix: optionalNullable(z.string().max(18).regex(/^[A-Za-z0-9_-]*$/, 'A suffix has at most 18 letters, digits, "-" or "_"')),
  integrations: optionalNullable(z.array(z.unknown())),
  auto_start: z.boolean().optional(),
  invalid_sample_skip_percentage: z.number().min(0).max(1).optional(),
  job_type: z.enum(['completion', 'classifier']).optional(),
  hyperparameters: HyperparametersSchema,
  repositories: optionalNullable(z.array(z.unknown())),
  classifier_targets: optionalNullable(z.array(z.unknown())),
});

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
const queryTime = z.iso.datetime({ offset: true }).transform((v) => Math.floor(Date.parse(v) / 1000));

const ListQuerySchema = z.object({
  page: queryInt(0, 0),
  page_size: queryInt(100, 1, 1000),
  model: z.string().optional(),
  created_after: queryTime.optional(),
  created_before: queryTime.optional(),
  created_by_me: queryBool.optional(),
  status: z.enum(JOB_STATUSES).optional(),
  wandb_project: z.string().optional(),
  wandb_name: z.string().optional(),
  suffix: z.string().optional(),
});

const UpdateModelSchema = z.strictObject({ name: optionalNullable(z.string()), description: optionalNullable(z.string()) });


/** The list view of a job (CompletionFineTuningJob: the details without events and checkpoints). */
function listed({ events: _events, checkpoints: _checkpoints, ...job }: FineTuningJob): Omit<FineTuningJob, 'events' | 'checkpoints'> {
  return job;
}

const conflict = (message: string) => genericError(409, message, 'invalid_request_error', 'conflict');

/** The fine-tuning routes; also attaches the fine-tuned models to `ctx.chat` and resumes unfinished jobs. */
export function fineTuningRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const models = new FineTunedModels(ctx.db, ctx.chat);
  ctx.chat.attach(models);
  const trainer = new FineTuningTrainer(ctx.db, models);
  // Models load with the first query after the database opened, so they are in memory before any request
  // is authenticated (PGlite runs queries in order); jobs in progress resume after.
  const ready = models.load().then(() => trainer.resume());
  // A failure is answered by every fine-tuning request, which awaits `ready`.
  ready.catch(() => undefined);

  app.use('/*', async (_c, next) => {
    await ready;
    await next();
  });

  const jobOf = async (c: Context): Promise<StoredJob> => {
    const id = c.req.param('job_id') ?? '';
    if (!isUuid(id)) throw invalidField(['path', 'job_id'], 'Input should be a valid UUID', 'uuid_parsing', id);
    const found = await getJob(ctx.db, callerOf(c).workspaceId, id);
    if (!found) throw notFound(`Fine-tuning job '${id}' not found`);
    return found;
  };

  app.get('/jobs', async (c) => {
    const q = validate(ListQuerySchema, c.req.query(), ['query']);
    const caller = callerOf(c);
    // No job has a Weights & Biases integration here, so a filter on one matches nothing.
    if (q.wandb_project !== undefined || q.wandb_name !== undefined) return c.json({ data: [], object: 'list', total: 0 });
    const page = await listJobs(ctx.db, caller.workspaceId, {
      model: q.model, status: q.status, suffix: q.suffix, createdAfter: q.created_after, createdBefore: q.created_before,
      userId: q.created_by_me ? caller.userId : undefined,
    }, q.page, q.page_size);
    return c.json({ data: page.data.map(listed), object: 'list', total: page.total });
  });

  app.post('/jobs', async (c) => {
    const { dry_run: dryRun } = validate(z.object({ dry_run: queryBool.optional() }), c.req.query(), ['query']);
    const body = await readJson(c, JobInSchema, ctx.limits.maxJsonBytes);
    const caller = callerOf(c);
    if (body.job_type === 'classifier' || body.classifier_targets?.length) {
      throw invalidField(['body', 'job_type'], 'The local platform fine-tunes completion (chat) models only; classifier fine-tuning is not available', 'value_error', body.job_type);
    }
    if (body.integrations?.length) {
      throw invalidField(['body', 'integrations'], 'Integrations (Weights & Biases) need network access; the local platform runs offline and reports progress in the job\'s events and checkpoints', 'value_error');
    }
    if (body.repositories?.length) throw invalidField(['body', 'repositories'], 'Repositories need network access; the local platform runs offline', 'value_error');
    if (body.invalid_sample_skip_percentage) {
      throw invalidField(['body', 'invalid_sample_skip_percentage'], 'The local trainer checks every line and skips none; use 0', 'value_error', body.invalid_sample_skip_percentage);
    }
    if (!models.baseOf(body.model)) {
      throw body.model.startsWith('ft:')
        ? invalidModel(body.model, { why: 'Fine-tuning a fine-tuned model is not supported; name its base model' })
        : invalidModel(body.model, { kind: 'a chat model' });
    }
    const training = (body.training_files ?? []).map((f) => f.file_id);
    if (training.length === 0) throw invalidField(['body', 'training_files'], 'At least one training file is required', 'value_error', []);
    const validation = body.validation_files ?? [];
    for (const [field, ids] of [['training_files', training], ['validation_files', validation]] as const) {
      for (const [i, id] of ids.entries()) {
        const file = await getFile(ctx.db, caller, id);
        const loc = field === 'training_files' ? ['body', field, i, 'file_id'] : ['body', field, i];
        if (!file) throw invalidField(loc, `File '${id}' not found`, 'value_error', id);
        if (file.purpose !== 'fine-tune') throw invalidField(loc, `File '${id}' has purpose '${file.purpose}'; fine-tuning takes files uploaded with purpose 'fine-tune'`, 'value_error', id);
      }
    }
    const now = Math.floor(Date.now() / 1000);
    const job: FineTuningJob = {
      id: crypto.randomUUID(), auto_start: body.auto_start ?? true, model: body.model, status: 'QUEUED', created_at: now, modified_at: now,
      training_files: training, validation_files: body.validation_files ?? null, object: 'job', fine_tuned_model: null, suffix: body.suffix ?? null,
      integrations: [], trained_tokens: null, metadata: null, job_type: 'completion',
      hyperparameters: {
        training_steps: body.hyperparameters.training_steps ?? null, learning_rate: body.hyperparameters.learning_rate ?? 0.0001,
        weight_decay: body.hyperparameters.weight_decay ?? null, warmup_fraction: body.hyperparameters.warmup_fraction ?? null,
        epochs: body.hyperparameters.epochs ?? null, seq_len: body.hyperparameters.seq_len ?? null, fim_ratio: body.hyperparameters.fim_ratio ?? null,
      },
      repositories: [], events: [{ name: 'status-updated', data: { status: 'QUEUED' }, created_at: now }], checkpoints: [],
    };
    if (dryRun) {
      let data;
      try {
        data = await readJobData(ctx.db, caller, { training, validation });
      } catch (error) {
        if (error instanceof TrainingDataError) throw invalidField(['body', 'training_files'], error.message, 'value_error');
        throw error;
      }
      const plan = jobPlan(job, data);
      const answer: DryRunAnswer = {
        ...plan.metadata, deprecated: true, epochs: plan.epochs, training_steps: plan.steps, object: 'job.metadata',
        details: `${data.samples} samples, ${data.examples.length} (prompt → reply) examples, ${data.tokens} tokens; ${plan.epochs} epochs of ${data.examples.length} steps`,
      };
      return c.json(answer);
    }
    await insertJob(ctx.db, caller, job);
    trainer.schedule({ job: structuredClone(job), workspaceId: caller.workspaceId, userId: caller.userId });
    return c.json(job);
  });

  app.get('/jobs/:job_id', async (c) => c.json((await jobOf(c)).job));

  app.post('/jobs/:job_id/cancel', async (c) => {
    const { job } = await jobOf(c);
    if (FINAL_STATUSES.has(job.status)) throw conflict(`Fine-tuning job '${job.id}' is ${job.status}; only a job in progress can be cancelled`);
    enterStatus(job, 'CANCELLED');
    await saveJob(ctx.db, job, true);
    return c.json(job);
  });

  app.post('/jobs/:job_id/start', async (c) => {
    const stored = await jobOf(c);
    const { job } = stored;
    if (job.status !== 'VALIDATED') throw conflict(`Fine-tuning job '${job.id}' is ${job.status}; only a VALIDATED job can be started`);
    enterStatus(job, 'STARTED');
    if (!(await saveJob(ctx.db, job))) throw conflict(`Fine-tuning job '${job.id}' was cancelled`);
    trainer.schedule(structuredClone(stored));
    return c.json(job);
  });

  const modelOf = (c: Context) => {
    const id = c.req.param('model_id') ?? '';
    const found = models.get(callerOf(c).workspaceId, id);
    if (!found) throw notFound(`Fine-tuned model '${id}' not found`);
    return found;
  };

  app.patch('/models/:model_id', async (c) => {
    const { id } = modelOf(c);
    const body = await readJson(c, UpdateModelSchema, ctx.limits.maxJsonBytes);
    const change = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
    };
    const updated = await models.update(callerOf(c).workspaceId, id, change);
    if (!updated) throw notFound(`Fine-tuned model '${id}' not found`);
    return c.json(updated);
  });

  const setArchived = (archived: boolean) => async (c: Context) => {
    const { id } = modelOf(c);
    const updated = await models.update(callerOf(c).workspaceId, id, { archived });
    if (!updated) throw notFound(`Fine-tuned model '${id}' not found`);
    return c.json({ id, object: 'model', archived });
  };
  app.post('/models/:model_id/archive', setArchived(true));
  app.delete('/models/:model_id/archive', setArchived(false));

  return app;
}
