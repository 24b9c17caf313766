/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: fine-tuning jobs (the whole job answer as JSON, plus the columns lists filter on) and fine-tuned models
  //    (card fields plus the adapter: the example memory the training kept)
  `
  create table fine_tuning_jobs (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    user_id text not null,
    status text not null,
    created_at bigint not null,
    record jsonb not null
  );
  create index fine_tuning_jobs_workspace on fine_tuning_jobs (workspace_id, seq);
  create table fine_tuned_models (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    job_id text not null,
    record jsonb not null,
    examples jsonb not null
  );
  `,
];
