/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: observability datasets, their records, their import tasks, and judges
  `
  create table datasets (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    owner_id text not null,
    name text not null,
    description text not null,
    created_at text not null,
    updated_at text not null
  );
  create index datasets_workspace on datasets (workspace_id, seq);
  create table dataset_records (
    id text primary key,
    seq bigserial,
    dataset_id text not null references datasets(id) on delete cascade,
    payload jsonb not null,
    properties jsonb not null,
    source text not null,
    created_at text not null,
    updated_at text not null
  );
  create index dataset_records_dataset on dataset_records (dataset_id, seq);
  create table dataset_tasks (
    id text primary key,
    seq bigserial,
    dataset_id text not null references datasets(id) on delete cascade,
    workspace_id text not null,
    creator_id text not null,
    kind text not null,
    request jsonb not null,
    status text not null,
    progress integer,
    message text,
    created_at text not null,
    updated_at text not null
  );
  create index dataset_tasks_dataset on dataset_tasks (dataset_id, seq);
  create index dataset_tasks_status on dataset_tasks (status);
  create table judges (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    owner_id text not null,
    name text not null,
    record jsonb not null,
    created_at text not null,
    updated_at text not null,
    unique (workspace_id, name)
  );
  create index judges_workspace on judges (workspace_id, seq);
  `,
];
