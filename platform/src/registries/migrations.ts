/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: prompts and skills (one table per concept, `kind` tells them apart), their versions and aliases.
  `
  create table registry_objects (
    id text primary key,
    kind text not null check (kind in ('prompt', 'skill')),
    workspace_id text not null,
    created_by text not null,
    name text not null,
    title text,
    description text,
    sharing_scope text not null check (sharing_scope in ('private', 'workspace')),
    workspace_relation text not null check (workspace_relation in ('reader', 'writer')),
    latest_version integer not null,
    created_at text not null,
    updated_at text not null,
    unique (kind, workspace_id, name)
  );
  create index registry_objects_listing on registry_objects (kind, workspace_id, created_at);
  create table registry_versions (
    object_id text not null references registry_objects(id) on delete cascade,
    version integer not null,
    definition jsonb not null,
    notes text,
    created_at text not null,
    primary key (object_id, version)
  );
  create table registry_aliases (
    object_id text not null,
    alias text not null,
    version integer not null,
    primary key (object_id, alias),
    foreign key (object_id, version) references registry_versions(object_id, version) on delete cascade
  );
  `,
];
