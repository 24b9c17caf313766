/** Migrations of the realtime area (see store/open-db.ts): never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: `rt_` client secrets, by the SHA-256 of their value, so every process on the database accepts them.
  `
  create table realtime_client_secrets (
    secret_hash text primary key,
    model text not null,
    expires_at bigint not null
  );
  create index realtime_client_secrets_expiry on realtime_client_secrets (expires_at);
  `,
];
