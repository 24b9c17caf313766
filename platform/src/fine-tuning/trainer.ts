/**
 * Runs fine-tuning jobs in the background, in this process: QUEUED → VALIDATING → VALIDATED (→ waits for
 * `/start` unless `auto_start`) → RUNNING (one checkpoint per epoch) → SUCCESS, or FAILED_VALIDATION (a bad
 * training file, with the line in the event's `error`), FAILED (anything else) or CANCELLED. Every step is
 * saved before the next, and a cancellation saved in between wins (store.saveJob).
 *
 * At start-up, jobs that were in progress when the platform stopped are resumed: validation and training
 * are deterministic and read only the stored files, so running them again from the start gives the model
 * the interrupted run would have given (an event `resumed` records it).
 *
 * Each job is run under a lease (store/leases.ts): processes sharing a PostgreSQL database run it once, and
 * one whose process died is resumed by another (looking every few seconds) once its lease runs out.
 */
import { readFileBytes } from '../files/store.js';
import type { Db } from '../store/db.js';
import { claim, pollForWork, type JobQueue, type Lease } from '../store/leases.js';
import { ExampleMemory, trainEpoch } from './example-memory.js';
import type { FineTunedModels } from './fine-tuned-models.js';
import { enterStatus, epochsOf, fineTunedModelId, type FineTuningJob, type JobMetadata, type JobStatus } from './jobs.js';
import { saveJob, unfinishedJobs, type StoredJob } from './store.js';
import { TrainingDataError, parseTrainingFile, type TrainingExample } from './training-data.js';

/** The data of a job, read from its files. */
export interface JobData { examples: TrainingExample[]; samples: number; tokens: number; validation: TrainingExample[] }

/** Reads and checks a job's training and validation files; throws {@link TrainingDataError} naming the file and line. */
export async function readJobData(db: Db, owner: { workspaceId: string; userId: string }, files: { training: string[]; validation: string[] }): Promise<JobData> {
  const read = async (fileId: string) => {
    const found = await readFileBytes(db, owner.workspaceId, fileId, owner.userId);
    if (!found) throw new TrainingDataError(`File ${fileId} does not exist (any more)`);
    return parseTrainingFile(found.bytes, fileId);
  };
  const data: JobData = { examples: [], samples: 0, tokens: 0, validation: [] };
  for (const id of files.training) {
    const set = await read(id);
    data.examples.push(...set.examples);
    data.samples += set.samples;
    data.tokens += set.tokens;
  }
  for (const id of files.validation) data.validation.push(...(await read(id)).examples);
  if (data.examples.length === 0) throw new TrainingDataError('The training files hold no assistant reply that follows a user message; there is nothing to learn');
  return data;
}

/** What a job will do with its data: epochs, steps (one example per step) and token counts. */
export function jobPlan(job: Pick<FineTuningJob, 'hyperparameters'>, data: JobData): { epochs: number; steps: number; metadata: JobMetadata } {
  const epochs = epochsOf(job.hyperparameters, data.examples.length);
  return {
    epochs,
    steps: epochs * data.examples.length,
    metadata: {
      // Measured locally: a few milliseconds per thousand examples and epoch; one second is the floor.
      expected_duration_seconds: Math.max(1, Math.ceil((epochs * data.examples.length) / 2000)),
      cost: 0,
      cost_currency: null,
      train_tokens_per_step: Math.round(data.tokens / Math.max(data.examples.length, 1)),
      train_tokens: data.tokens * epochs,
      data_tokens: data.tokens,
      estimated_start_time: null,
    },
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Thrown when a save finds the job cancelled: the run stops there. */
class JobCancelled extends Error {}

/** Jobs the trainer has work on: those of store.unfinishedJobs. */
const QUEUE: JobQueue = {
  table: 'fine_tuning_jobs',
  pending: `status in ('QUEUED', 'STARTED', 'VALIDATING', 'RUNNING', 'CANCELLATION_REQUESTED') or (status = 'VALIDATED' and (record->>'auto_start')::boolean)`,
  order: 'seq',
};

/** The background trainer of one platform. */
export class FineTuningTrainer {
  private readonly active = new Map<string, Promise<void>>();
  private readonly leases = new Map<string, Lease>();
  private polling = false;
  private scanning = false;

  constructor(private readonly db: Db, private readonly models: FineTunedModels) {}

  /**
   * Resumes the jobs that were in progress when the platform last stopped (or whose process stopped, on
   * PostgreSQL, where this then runs every few seconds).
   */
  async resume(): Promise<void> {
    if (!this.polling) {
      this.polling = true;
      // On PostgreSQL: jobs of a process that died, and the models other processes trained.
      pollForWork(this.db, () => {
        void this.resume().catch(() => undefined);
        void this.models.refresh().catch(() => undefined);
      });
    }
    if (this.scanning) return;
    this.scanning = true;
    try {
      for (const stored of await unfinishedJobs(this.db)) {
        if (this.active.has(stored.job.id)) continue;
        stored.job.events.push({ name: 'resumed', data: { status: stored.job.status }, created_at: nowSeconds() });
        this.schedule(stored);
      }
    } finally {
      this.scanning = false;
    }
  }

  /** Runs (or goes on with) a job in the background; a job already running here or in another process is left alone. */
  schedule(stored: StoredJob): void {
    const { id } = stored.job;
    if (this.active.has(id)) return;
    const run = claim(this.db, QUEUE, id)
      .then(async (lease) => {
        if (!lease) return;
        this.leases.set(id, lease);
        try {
          await this.run(stored);
        } finally {
          this.leases.delete(id);
          await lease.release();
        }
      })
      // Only a database failure while recording a failure gets here; the job stays as last saved and resumes at the next start.
      .catch((error: unknown) => { if (!this.db.closed) console.error('[parley fine-tuning]', error); })
      .finally(() => this.active.delete(id));
    this.active.set(id, run);
  }

  /** Throws {@link JobCancelled} when another process took the job over (this one was too slow to renew its lease). */
  private checkLease(job: FineTuningJob): void {
    if (this.leases.get(job.id)?.lost) throw new JobCancelled();
  }

  private async run(stored: StoredJob): Promise<void> {
    const { job } = stored;
    try {
      await this.steps(stored);
    } catch (error) {
      if (error instanceof JobCancelled) return;
      // The platform is closing under the job: it is resumed at the next start.
      if (this.db.closed) return;
      const validation = error instanceof TrainingDataError;
      await this.enter(job, validation ? 'FAILED_VALIDATION' : 'FAILED', { error: error instanceof Error ? error.message : String(error) }).catch((e: unknown) => {
        if (!(e instanceof JobCancelled) && !this.db.closed) throw e;
      });
    }
  }

  /** Saves the job in `status` with a `status-updated` event (extra event data merged in). */
  private async enter(job: FineTuningJob, status: JobStatus, data: Record<string, unknown> = {}): Promise<void> {
    this.checkLease(job);
    enterStatus(job, status, data);
    if (!(await saveJob(this.db, job))) throw new JobCancelled();
  }

  private async steps({ job, workspaceId, userId }: StoredJob): Promise<void> {
    const files = { training: job.training_files, validation: job.validation_files ?? [] };
    await new Promise((resolve) => setImmediate(resolve));
    // Read once: a job that validates and goes straight on trains on the data it just validated.
    let data: JobData | undefined;
    if (job.status === 'QUEUED' || job.status === 'VALIDATING') {
      await this.enter(job, 'VALIDATING');
      data = await readJobData(this.db, { workspaceId, userId }, files);
      const plan = jobPlan(job, data);
      job.metadata = plan.metadata;
      job.hyperparameters = { ...job.hyperparameters, epochs: plan.epochs, training_steps: plan.steps };
      await this.enter(job, 'VALIDATED');
      if (!job.auto_start) return;
    }
    const rootVersion = this.models.baseOf(job.model);
    if (!rootVersion) throw new Error(`The base model ${job.model} is not served by this platform any more`);
    data ??= await readJobData(this.db, { workspaceId, userId }, files);
    const { epochs } = jobPlan(job, data);
    job.checkpoints = [];
    await this.enter(job, 'RUNNING');
    const memory = new ExampleMemory();
    for (let epoch = 1; epoch <= epochs; epoch++) {
      const trainLoss = await trainEpoch(memory, data.examples);
      const validLoss = data.validation.length ? memory.loss(data.validation) : null;
      const at = nowSeconds();
      job.checkpoints.push({
        metrics: { train_loss: trainLoss, valid_loss: validLoss, valid_mean_token_accuracy: null },
        step_number: epoch * data.examples.length,
        created_at: at,
      });
      job.modified_at = at;
      this.checkLease(job);
      if (!(await saveJob(this.db, job))) throw new JobCancelled();
    }
    const created = nowSeconds();
    const id = fineTunedModelId(job.model, job.suffix, job.id, created);
    await this.models.add({
      record: {
        id, created, owned_by: workspaceId, workspace_id: workspaceId, root: job.model, root_version: rootVersion, job: job.id,
        archived: false, name: null, max_context_length: 32768,
        description: `Fine-tuned locally from ${job.model} by job ${job.id}: an example memory of ${memory.examples.length} (prompt → reply) pairs ` +
          'kept from the training data. A prompt similar to a remembered one (cosine ≥ 0.5 over hashed lexical embeddings) gets its trained reply; ' +
          `every other prompt is answered by ${job.model}.`,
      },
      examples: memory.examples,
    });
    job.fine_tuned_model = id;
    job.trained_tokens = data.tokens * epochs;
    try {
      await this.enter(job, 'SUCCESS');
    } catch (error) {
      await this.models.delete(id);
      throw error;
    }
  }
}
