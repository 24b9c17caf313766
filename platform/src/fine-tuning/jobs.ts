/**
 * Wire shapes of fine-tuning jobs and fine-tuned models (the platform's `CompletionFineTuningJobDetails`,
 * `LegacyJobMetadataOut`, `CompletionFineTunedModel` and `FTModelCard`), and the small pure helpers that
 * derive one from another. Times are UNIX seconds, as on the platform.
 */
import { createHash } from 'node:crypto';
import type { FineTunedModelCard, ModelCapabilities, ModelCard } from 'parley-kit/types';

/** Statuses of a job (the platform's enum; the local trainer never sets STARTED or CANCELLATION_REQUESTED). */
export const JOB_STATUSES = [
  'QUEUED', 'STARTED', 'VALIDATING', 'VALIDATED', 'RUNNING', 'FAILED_VALIDATION', 'FAILED', 'SUCCESS', 'CANCELLED', 'CANCELLATION_REQUESTED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses after which a job never changes again. */
export const FINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['FAILED_VALIDATION', 'FAILED', 'SUCCESS', 'CANCELLED']);

export interface CompletionHyperparameters {
  training_steps: number | null;
  learning_rate: number;
  weight_decay: number | null;
  warmup_fraction: number | null;
  epochs: number | null;
  seq_len: number | null;
  fim_ratio: number | null;
}

export interface JobMetadata {
  expected_duration_seconds: number | null;
  cost: number | null;
  cost_currency: string | null;
  train_tokens_per_step: number | null;
  train_tokens: number | null;
  data_tokens: number | null;
  estimated_start_time: number | null;
}

/** A status change or a notable step; `data.status` is the status entered, `data.error` why a job failed. */
export interface JobEvent { name: string; data: Record<string, unknown> | null; created_at: number }

export interface JobCheckpoint {
  metrics: { train_loss: number | null; valid_loss: number | null; valid_mean_token_accuracy: number | null };
  step_number: number;
  created_at: number;
}

/** `GET /v1/fine_tuning/jobs/{id}` (CompletionFineTuningJobDetails); the list leaves out `events` and `checkpoints`. */
export interface FineTuningJob {
  id: string;
  auto_start: boolean;
  model: string;
  status: JobStatus;
  created_at: number;
  modified_at: number;
  training_files: string[];
  validation_files: string[] | null;
  object: 'job';
  fine_tuned_model: string | null;
  suffix: string | null;
  integrations: never[];
  trained_tokens: number | null;
  metadata: JobMetadata | null;
  job_type: 'completion';
  hyperparameters: CompletionHyperparameters;
  repositories: never[];
  events: JobEvent[];
  checkpoints: JobCheckpoint[];
}

/** `POST /v1/fine_tuning/jobs?dry_run=true` (LegacyJobMetadataOut). */
export interface DryRunAnswer extends JobMetadata {
  deprecated: boolean;
  details: string;
  epochs: number;
  training_steps: number;
  object: 'job.metadata';
}

/** What is kept of a fine-tuned model besides its adapter. */
export interface FineTunedModelRecord {
  id: string;
  created: number;
  owned_by: string;
  workspace_id: string;
  /** The base model as the job named it (e.g. `mistral-small-latest`). */
  root: string;
  /** The id of the engine model that serves the base (e.g. `parley-local`). */
  root_version: string;
  job: string;
  archived: boolean;
  name: string | null;
  description: string;
  max_context_length: number;
}

/** `PATCH /v1/fine_tuning/models/{id}` (CompletionFineTunedModel). */
export interface CompletionFineTunedModel extends FineTunedModelRecord {
  object: 'model';
  capabilities: { completion_chat: boolean; completion_fim: boolean; function_calling: boolean; fine_tuning: boolean; classification: boolean };
  aliases: string[];
  model_type: 'completion';
}

/** Puts `job` in `status` with a `status-updated` event (extra event data merged in), stamped now; the caller saves it. */
export function enterStatus(job: FineTuningJob, status: JobStatus, data: Record<string, unknown> = {}): void {
  const at = Math.floor(Date.now() / 1000);
  job.status = status;
  job.modified_at = at;
  job.events.push({ name: 'status-updated', data: { status, ...data }, created_at: at });
}

/** Epochs a job runs: `epochs` if given, else enough to cover `training_steps` over the samples, else 3 (1 to 100). */
export function epochsOf(hyper: Pick<CompletionHyperparameters, 'epochs' | 'training_steps'>, samples: number): number {
  const wanted = hyper.epochs ?? (hyper.training_steps ? hyper.training_steps / Math.max(samples, 1) : 3);
  return Math.min(100, Math.max(1, Math.ceil(wanted)));
}

/** `ft:<base>:<suffix>:<yyyymmdd>:<8 hex>`, the platform's fine-tuned model naming (the suffix part is omitted without one). */
export function fineTunedModelId(base: string, suffix: string | null, jobId: string, createdAt: number): string {
  const date = new Date(createdAt * 1000).toISOString().slice(0, 10).replace(/-/g, '');
  const hash = createHash('sha256').update(jobId).digest('hex').slice(0, 8);
  return ['ft', base, ...(suffix ? [suffix] : []), date, hash].join(':');
}

/** The PATCH answer of a model, its chat capabilities taken from the base model's card. */
export function completionModel(record: FineTunedModelRecord, base: ModelCapabilities): CompletionFineTunedModel {
  return {
    ...record,
    object: 'model',
    capabilities: { completion_chat: true, completion_fim: false, function_calling: base.function_calling, fine_tuning: false, classification: false },
    aliases: [],
    model_type: 'completion',
  };
}

/** The `GET /v1/models` card of a model, its capabilities those of the base model (it is served over it). */
export function fineTunedCard(record: FineTunedModelRecord, base: ModelCard): FineTunedModelCard {
  return {
    id: record.id,
    object: 'model',
    created: record.created,
    owned_by: record.owned_by,
    capabilities: { ...base.capabilities, fine_tuning: false },
    name: record.name,
    description: record.description,
    max_context_length: record.max_context_length,
    aliases: [],
    deprecation: null,
    deprecation_replacement_model: null,
    default_model_temperature: base.default_model_temperature,
    type: 'fine-tuned',
    job: record.job,
    root: record.root,
    archived: record.archived,
  };
}
