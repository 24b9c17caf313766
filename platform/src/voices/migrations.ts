/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: custom voices of a workspace, with their sample (WAV) and its measured pitch
  `
  create table custom_voices (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    user_id text not null,
    created_at text not null,
    record jsonb not null,
    pitch_hz real not null,
    sample_wav bytea not null
  );
  create index custom_voices_workspace on custom_voices (workspace_id, seq);
  create unique index custom_voices_slug on custom_voices (workspace_id, (record->>'slug')) where record->>'slug' is not null;
  `,
];
