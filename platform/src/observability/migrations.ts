/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: completion events (what the explorer lists) and campaigns with the events each selected
  `
  create table completion_events (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    user_id text not null,
    correlation_id text not null,
    created_at text not null,
    record jsonb not null
  );
  create index completion_events_workspace on completion_events (workspace_id, seq);
  create table campaigns (
    id text primary key,
    seq bigserial,
    workspace_id text not null,
    owner_id text not null,
    name text not null,
    description text not null,
    record jsonb not null,
    created_at text not null,
    updated_at text not null
  );
  create index campaigns_workspace on campaigns (workspace_id, seq);
  create table campaign_events (
    campaign_id text not null references campaigns(id) on delete cascade,
    position integer not null,
    event_id text not null,
    primary key (campaign_id, position)
  );
  `,
];
