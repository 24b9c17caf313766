/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: connectors (MCP servers), their per-consumer activation switches and stored credentials
  `
  create table connectors (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    name text not null,
    record jsonb not null,
    unique (workspace_id, name)
  );
  create index connectors_seq on connectors (seq);
  create table connector_activations (
    connector_id text not null references connectors(id) on delete cascade,
    scope text not null,
    consumer_id text not null,
    active boolean not null,
    primary key (connector_id, scope, consumer_id)
  );
  create table connector_credentials (
    connector_id text not null references connectors(id) on delete cascade,
    scope text not null,
    consumer_id text not null,
    name text not null,
    record jsonb not null,
    primary key (connector_id, scope, consumer_id, name)
  );
  `,
];
