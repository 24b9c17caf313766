/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [
  // 1: organization, workspaces, users and their keys, roles, invitations, groups (nested), limits, usage ledger
  `
  create table tenancy_organizations (
    id text primary key,
    name text not null,
    created_at text not null
  );
  create table tenancy_workspaces (
    id text primary key,
    organization_id text not null references tenancy_organizations(id) on delete cascade,
    name text not null,
    is_default boolean not null,
    created_at text not null
  );
  create table tenancy_roles (
    id text primary key,
    name text not null unique,
    description text,
    scope text not null,
    permissions jsonb not null,
    builtin boolean not null,
    created_at text not null
  );
  create table tenancy_users (
    id text primary key,
    seq bigserial,
    organization_id text not null references tenancy_organizations(id) on delete cascade,
    email text not null unique,
    first_name text,
    last_name text,
    role_ids jsonb not null,
    subscription_types jsonb not null,
    created_at text not null
  );
  create table tenancy_api_keys (
    key_hash text primary key,
    id text not null unique,
    name text,
    kind text not null,
    user_id text not null references tenancy_users(id) on delete cascade,
    workspace_id text not null references tenancy_workspaces(id) on delete cascade,
    created_at text not null
  );
  create table tenancy_workspace_members (
    workspace_id text not null references tenancy_workspaces(id) on delete cascade,
    user_id text not null references tenancy_users(id) on delete cascade,
    role_ids jsonb not null,
    primary key (workspace_id, user_id)
  );
  create table tenancy_invites (
    id text primary key,
    seq bigserial,
    organization_id text not null references tenancy_organizations(id) on delete cascade,
    email text not null unique,
    role_ids jsonb not null,
    created_at text not null
  );
  create table tenancy_groups (
    id text primary key,
    seq bigserial,
    organization_id text not null references tenancy_organizations(id) on delete cascade,
    name text not null,
    description text,
    target_type text not null,
    organization_role_id text references tenancy_roles(id),
    created_at text not null,
    updated_at text not null
  );
  create table tenancy_group_members (
    group_id text not null references tenancy_groups(id) on delete cascade,
    user_id text not null references tenancy_users(id) on delete cascade,
    primary key (group_id, user_id)
  );
  create table tenancy_group_children (
    parent_id text not null references tenancy_groups(id) on delete cascade,
    child_id text not null references tenancy_groups(id) on delete cascade,
    primary key (parent_id, child_id)
  );
  create table tenancy_group_workspaces (
    group_id text not null references tenancy_groups(id) on delete cascade,
    workspace_id text not null references tenancy_workspaces(id) on delete cascade,
    role_ids jsonb not null,
    primary key (group_id, workspace_id)
  );
  create table tenancy_limits (
    organization_id text primary key references tenancy_organizations(id) on delete cascade,
    requests_per_second integer not null,
    tokens_limits_by_model jsonb not null,
    monthly_spend_limit double precision
  );
  create table tenancy_usage (
    seq bigserial primary key,
    user_id text not null,
    workspace_id text not null,
    model text not null,
    endpoint text not null,
    prompt_tokens integer not null,
    completion_tokens integer not null,
    unit text,
    quantity double precision not null,
    cost double precision not null,
    at text not null
  );
  create index tenancy_usage_at on tenancy_usage (at);
  `,
  // 2: when a group was assigned to a workspace; what an invitation grants besides roles; externally managed groups
  `
  alter table tenancy_groups add column externally_managed boolean not null default false;
  alter table tenancy_group_workspaces add column created_at text;
  update tenancy_group_workspaces set created_at = to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
  alter table tenancy_group_workspaces alter column created_at set not null;
  alter table tenancy_invites add column subscription_types jsonb not null default '[]';
  alter table tenancy_invites add column workspace_uuids jsonb not null default '[]';
  `,
  // 3: the organization's request bucket, shared by every platform process on one PostgreSQL database
  // (tokens left, and when it was last taken from, in ms of the server's clock; null = full)
  `
  alter table tenancy_limits add column bucket_tokens double precision;
  alter table tenancy_limits add column bucket_at double precision;
  `,
];
