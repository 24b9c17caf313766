/**
 * The local platform's directory, durable in PGlite: one organization with a default workspace, the
 * user of the API key (organization admin, workspace admin), the organization owner behind the admin key
 * (the same user), and optional member users with their own keys (organization and workspace members:
 * no share permission until a role or a group gives it). Seeding runs on every start and is idempotent;
 * seeded ids are stable UUIDs, so they survive restarts. Keys are stored hashed and re-issued from the
 * options on every start (a key removed from the options stops working).
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../http/caller.js';
import type { KeyDirectory } from '../http/auth.js';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';
import { RoleCatalog } from './role-catalog.js';
import { OrganizationMembers, insertUser } from './members.js';
import { UserGroups } from './groups.js';
import { OrganizationLimits } from './limits.js';
import { builtinRoleId, stableUuid } from './roles.js';

export interface MemberKey {
  apiKey: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface DirectoryOptions {
  apiKey: string;
  adminKey?: string;
  members?: MemberKey[];
  /** Clock of the rate and spend limits (tests). */
  now?: () => number;
}

/** Users, organizations, workspaces, roles and the limits enforced on callers. */
export interface Directory extends KeyDirectory {
  /** Whether the caller holds a workspace permission (e.g. `ShareConnectorToWorkspace`) through its roles and groups. */
  hasWorkspacePermission(caller: Caller, permission: string): Promise<boolean>;
  /** The organization's members, invitations, groups, roles and limits (admin API) and the caller's identity. */
  readonly tenancy: Tenancy;
}

/** The organization's people, groups, roles and limits, and the identity of callers. */
export interface Tenancy {
  organizationId: string;
  roles: RoleCatalog;
  members: OrganizationMembers;
  groups: UserGroups;
  limits: OrganizationLimits;
  /** `GET /v1/users/me`. */
  identity(caller: Caller): Promise<Identity>;
  /** The organizations of the caller's user. */
  organizations(caller: Caller): Promise<Array<{ id: string; name: string }>>;
  /** The workspaces the caller's user belongs to (directly or through groups; all of them for organization admins). */
  workspaces(caller: Caller): Promise<Array<{ id: string; name: string; organization_id: string }>>;
}

export interface Identity {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  workspace: { id: string; name: string } | null;
  organization: { id: string; name: string } | null;
  api_key: { id: string; name: string | null } | null;
}

export const ORGANIZATION_NAME = 'Local organization';
export const DEFAULT_WORKSPACE_NAME = 'Default workspace';
export const OWNER_EMAIL = 'owner@parley.local';

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Effective groups of a user ($1): its groups and every group enclosing them. */
const EFFECTIVE_GROUPS = `with recursive g(id) as (
  select group_id from tenancy_group_members where user_id = $1
  union select c.parent_id from tenancy_group_children c join g on c.child_id = g.id)`;

export async function createDirectory(db: Db, options: DirectoryOptions): Promise<Directory> {
  const organizationId = stableUuid('organization');
  const workspaceId = stableUuid('workspace:default');
  const ownerId = stableUuid('user:owner');
  const roles = new RoleCatalog(db);
  const limits = new OrganizationLimits(db, organizationId, options.now);

  await db.transaction(async (tx) => {
    const now = isoNow();
    await tx.query('insert into tenancy_organizations (id, name, created_at) values ($1, $2, $3) on conflict do nothing', [organizationId, ORGANIZATION_NAME, now]);
    await tx.query('insert into tenancy_workspaces (id, organization_id, name, is_default, created_at) values ($1, $2, $3, true, $4) on conflict do nothing',
      [workspaceId, organizationId, DEFAULT_WORKSPACE_NAME, now]);
  });
  await roles.seed();
  await limits.load();

  const seedUser = async (id: string, email: string, first: string | null, last: string | null, admin: boolean): Promise<string> => {
    const { rows } = await db.query<{ id: string }>('select id from tenancy_users where email = $1', [email]);
    if (rows[0]) return rows[0].id;
    await insertUser(db, { id, organizationId, email, firstName: first, lastName: last, roleIds: [builtinRoleId(admin ? 'organization_admin' : 'member')], subscriptionTypes: [] });
    await db.query('insert into tenancy_workspace_members (workspace_id, user_id, role_ids) values ($1, $2, $3) on conflict do nothing',
      [workspaceId, id, JSON.stringify([builtinRoleId(admin ? 'workspace_admin' : 'workspace_member')])]);
    return id;
  };
  const owner = await seedUser(ownerId, OWNER_EMAIL, 'Local', 'Owner', true);
  const keys: Array<{ key: string; kind: 'user' | 'admin'; userId: string; name: string }> = [{ key: options.apiKey, kind: 'user', userId: owner, name: 'Default API key' }];
  if (options.adminKey) keys.push({ key: options.adminKey, kind: 'admin', userId: owner, name: 'Admin API key' });
  for (const m of options.members ?? []) {
    const email = m.email.toLowerCase();
    const userId = await seedUser(stableUuid(`user:${email}`), email, m.firstName ?? null, m.lastName ?? null, false);
    keys.push({ key: m.apiKey, kind: 'user', userId, name: `API key of ${email}` });
  }
  await db.transaction(async (tx) => {
    await tx.query('delete from tenancy_api_keys');
    for (const k of keys) {
      await tx.query(
        `insert into tenancy_api_keys (key_hash, id, name, kind, user_id, workspace_id, created_at) values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (key_hash) do nothing`,
        [hashKey(k.key), stableUuid(`key:${k.kind}:${k.userId}:${k.name}`), k.name, k.kind, k.userId, workspaceId, isoNow()],
      );
    }
  });

  /**
   * Callers by key hash, so a request costs no query to authenticate. Keys only change at start (seeding) and
   * when a user is deleted, which clears this; unknown keys are not cached.
   */
  const callers = new Map<string, Caller>();
  const tenancy: Tenancy = {
    organizationId,
    roles,
    members: new OrganizationMembers(db, roles, organizationId, workspaceId, new Set([owner]), () => callers.clear()),
    groups: new UserGroups(db, roles, organizationId),
    limits,
    async identity(caller) {
      const { rows: users } = await db.query<{ id: string; email: string; first_name: string | null; last_name: string | null }>(
        'select id, email, first_name, last_name from tenancy_users where id = $1', [caller.userId]);
      const { rows: ws } = await db.query<{ id: string; name: string }>('select id, name from tenancy_workspaces where id = $1', [caller.workspaceId]);
      const { rows: orgs } = await db.query<{ id: string; name: string }>('select id, name from tenancy_organizations where id = $1', [caller.organizationId]);
      const { rows: apiKeys } = await db.query<{ id: string; name: string | null }>('select id, name from tenancy_api_keys where id = $1', [caller.apiKeyId ?? '']);
      const u = users[0];
      return {
        id: caller.userId, email: u?.email ?? null, first_name: u?.first_name ?? null, last_name: u?.last_name ?? null,
        workspace: ws[0] ?? null, organization: orgs[0] ?? null, api_key: apiKeys[0] ?? null,
      };
    },
    async organizations(caller) {
      const { rows } = await db.query<{ id: string; name: string }>(
        'select o.id, o.name from tenancy_organizations o join tenancy_users u on u.organization_id = o.id where u.id = $1', [caller.userId]);
      return rows;
    },
    async workspaces(caller) {
      const all = caller.kind === 'admin' || (await isOrganizationAdmin(db, caller.userId));
      type Row = { id: string; name: string; organization_id: string };
      if (all) {
        return (await db.query<Row>('select id, name, organization_id from tenancy_workspaces where organization_id = $1 order by created_at, id', [caller.organizationId])).rows;
      }
      const { rows } = await db.query<Row>(
        `${EFFECTIVE_GROUPS}
         select id, name, organization_id from tenancy_workspaces where organization_id = $2 and (
           id in (select workspace_id from tenancy_workspace_members where user_id = $1)
           or id in (select workspace_id from tenancy_group_workspaces where group_id in (select id from g)))
         order by created_at, id`,
        [caller.userId, caller.organizationId],
      );
      return rows;
    },
  };

  return {
    tenancy,
    async authenticate(key) {
      const hash = hashKey(key);
      const known = callers.get(hash);
      // On PostgreSQL another process may delete the key's user (and clear only its own cache): read the key each time.
      if (known && db.kind === 'pglite') return known;
      const { rows } = await db.query<{ id: string; kind: 'user' | 'admin'; user_id: string; workspace_id: string }>(
        'select id, kind, user_id, workspace_id from tenancy_api_keys where key_hash = $1', [hash]);
      const k = rows[0];
      if (!k) return null;
      const caller: Caller = { kind: k.kind, userId: k.user_id, organizationId, workspaceId: k.workspace_id, apiKeyId: k.id };
      callers.set(hash, caller);
      return caller;
    },
    async hasWorkspacePermission(caller, permission) {
      if (caller.kind === 'admin') return true;
      const { rows } = await db.query(
        `${EFFECTIVE_GROUPS}, held(id) as (
           select jsonb_array_elements_text(role_ids) from tenancy_users where id = $1
           union select organization_role_id from tenancy_groups where id in (select id from g) and organization_role_id is not null
           union select jsonb_array_elements_text(role_ids) from tenancy_workspace_members where user_id = $1 and workspace_id = $2
           union select jsonb_array_elements_text(role_ids) from tenancy_group_workspaces where workspace_id = $2 and group_id in (select id from g))
         select 1 from tenancy_roles r where r.id in (select id from held)
           and ((r.scope = 'workspace' and r.permissions ? $3) or (r.scope = 'organization' and r.permissions ? 'ManageOrganization'))
         limit 1`,
        [caller.userId, caller.workspaceId, permission],
      );
      return rows.length > 0;
    },
    async admit(path) {
      if (path.startsWith('/v1/admin/')) return;
      await limits.admit();
    },
  };
}

/** Whether a user holds an organization role that manages the organization (directly or through a group). */
async function isOrganizationAdmin(db: Db, userId: string): Promise<boolean> {
  const { rows } = await db.query(
    `${EFFECTIVE_GROUPS}, held(id) as (
       select jsonb_array_elements_text(role_ids) from tenancy_users where id = $1
       union select organization_role_id from tenancy_groups where id in (select id from g) and organization_role_id is not null)
     select 1 from tenancy_roles r where r.id in (select id from held) and r.scope = 'organization' and r.permissions ? 'ManageOrganization' limit 1`,
    [userId],
  );
  return rows.length > 0;
}
