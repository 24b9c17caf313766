/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: batch jobs and their requests (snapshotted at creation, results written line by line so a restart resumes)
  `
  create table batch_jobs (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    user_id text not null,
    creator jsonb not null,
    input_files jsonb not null,
    endpoint text not null,
    model text,
    agent_id text,
    metadata jsonb,
    timeout_hours integer not null,
    status text not null,
    private_output boolean not null,
    output_file text,
    error_file text,
    errors jsonb not null default '[]',
    total_requests integer not null,
    completed_requests integer not null default 0,
    succeeded_requests integer not null default 0,
    failed_requests integer not null default 0,
    created_at bigint not null,
    started_at bigint,
    completed_at bigint
  );
  create index batch_jobs_workspace on batch_jobs (workspace_id, seq);
  create index batch_jobs_pending on batch_jobs (status, seq);
  create table batch_requests (
    job_id text not null references batch_jobs(id) on delete cascade,
    line integer not null,
    custom_id text,
    body jsonb not null,
    done boolean not null default false,
    ok boolean,
    result jsonb,
    primary key (job_id, line)
  );
  `,
];
