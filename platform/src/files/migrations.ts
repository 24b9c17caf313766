/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: files (metadata), their bytes in 1 MiB chunks, the secret that signs download URLs
  `
  create table files (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    user_id text not null,
    visibility text not null,
    filename text not null,
    purpose text not null,
    sample_type text not null,
    source text not null,
    mimetype text,
    bytes bigint not null,
    num_lines integer,
    signature text not null,
    created_at bigint not null,
    expires_at bigint
  );
  create index files_workspace on files (workspace_id, seq);
  create table file_chunks (
    file_id text not null references files(id) on delete cascade,
    position integer not null,
    data bytea not null,
    primary key (file_id, position)
  );
  create table file_url_secret (
    id integer primary key check (id = 1),
    secret bytea not null
  );
  `,
  // 2: uploads stream into their chunks before they are acknowledged (files/upload.ts): a file is `pending`,
  // and seen by no one, until its last chunk is stored and its fields are checked
  `
  alter table files add column pending boolean not null default false;
  `,
];
