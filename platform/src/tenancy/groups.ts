/**
 * User groups, durable in PGlite: members, nested groups (a group inside a group; its members count as
 * members of every enclosing group, so they inherit its workspace roles and organization role), workspace
 * assignments with roles and an optional organization role. A nesting that would make a cycle is refused
 * with 422. Shapes follow the seed's "User group" table and page wrappers: groups and assignments in
 * `items`, members in `members`, each with `page`, `page_size` and `total`.
 */
import { z } from 'zod';
import type { Db, Queryable } from '../store/db.js';
import { genericError, invalidField, notFound } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { RoleFieldsSchema, type Role, type RoleCatalog, type RoleFields } from './role-catalog.js';
import { builtinRoleId } from './roles.js';

const GroupIds = z.array(z.string().min(1));

export const CreateGroupSchema = z.object({
  name: z.string().min(1).max(255),
  description: z.string().max(255).nullish(),
  target_type: z.enum(['W', 'O']).nullish(),
  /** Organization role (code, name or UUID) every member of the group gets. */
  organization_role: z.string().min(1).nullish(),
  /** Existing groups to nest the new group inside. */
  parent_group_ids: GroupIds.nullish(),
  /** Recorded and shown; the local platform has no external directory that would manage it. */
  externally_managed: z.boolean().nullish(),
});

export const UpdateGroupSchema = z.object({
  name: z.string().min(1).max(255).nullish(),
  description: z.string().max(255).nullish(),
  target_type: z.enum(['W', 'O']).nullish(),
  /** A role code, name or UUID; `null` removes the group's organization role. */
  organization_role: z.string().min(1).nullable().optional(),
  /** Replaces the groups this group is directly nested inside (`[]`: none; omitted or null: unchanged). */
  parent_group_ids: GroupIds.nullish(),
  externally_managed: z.boolean().nullish(),
});

export const UserUuidsSchema = z.object({ user_uuids: z.array(z.string().min(1)).min(1) });
/** `PATCH …/nested`: the full set of groups directly nested inside this one (`[]` empties it). */
export const NestedGroupsSchema = z.object({ child_group_uuids: GroupIds });
/** `PATCH …/organization-role`. */
export const OrganizationRoleSchema = z.object({ organization_role: z.string().min(1) });

/** `workspace_role` / `workspace_role_name` are the provisioning body's own names for `role` / `role_name`. */
const WorkspaceRoleAliases = { workspace_role: z.string().min(1).nullish(), workspace_role_name: z.string().min(1).nullish() };
export const ProvisionWorkspaceSchema = z.object({
  user_group_uuid: z.string().min(1), workspace_uuid: z.string().min(1), ...RoleFieldsSchema, ...WorkspaceRoleAliases,
});
/** `POST …/workspaces`. */
export const AssignWorkspaceSchema = z.object({ workspace_uuid: z.string().min(1), ...RoleFieldsSchema });
/** `PATCH …/workspaces/{workspace_uuid}`: the role assignment body (one role field required). */
export const UpdateAssignmentSchema = z.object(RoleFieldsSchema);

/** Which page of a listing (`page` from 1). */
export type Page = { page: number; page_size: number };

export interface Group {
  uuid: string;
  name: string;
  description: string | null;
  externally_managed: boolean;
  organization_role: string | null;
  parent_group_ids: string[];
  target_type: 'W' | 'O';
  /** Groups directly nested inside this one (also `GET …/nested`). */
  child_group_uuids: string[];
  created_at: string;
  updated_at: string;
}

export interface GroupMember { user_uuid: string; email: string | null; name: string | null }

export interface GroupWorkspace {
  workspace_uuid: string;
  workspace_name: string;
  created: string;
  roles: Array<{ name: string; uuid: string }>;
  role_uuid: string | null;
  role_name: string | null;
  user_group_uuid: string;
  raw_roles: string[];
}

interface GroupRow {
  id: string; name: string; description: string | null; target_type: 'W' | 'O'; organization_role_id: string | null; externally_managed: boolean;
  created_at: string; updated_at: string;
}

export class UserGroups {
  constructor(private readonly db: Db, private readonly roles: RoleCatalog, private readonly organizationId: string) {}

  async list(query: Page & { search?: string }) {
    const search = query.search?.trim();
    const where = search ? `where name ilike '%' || $1 || '%'` : '';
    const params = search ? [search] : [];
    const total = Number((await this.db.query<{ n: number }>(`select count(*)::int as n from tenancy_groups ${where}`, params)).rows[0].n);
    const { rows } = await this.db.query<GroupRow>(
      `select * from tenancy_groups ${where} order by seq limit ${query.page_size} offset ${(query.page - 1) * query.page_size}`, params);
    const roles = await this.roles.list();
    return { items: await Promise.all(rows.map((r) => this.group(r, roles))), page: query.page, page_size: query.page_size, total };
  }

  async get(id: string): Promise<Group> {
    return this.group(await this.row(id), await this.roles.list());
  }

  async create(body: z.output<typeof CreateGroupSchema>): Promise<Group> {
    const roleId = body.organization_role ? await this.organizationRole(body.organization_role) : null;
    const parents = body.parent_group_ids ?? [];
    const id = crypto.randomUUID();
    const now = isoNow();
    await this.db.transaction(async (tx) => {
      await this.checkExisting(tx, parents, ['body', 'parent_group_ids']);
      await tx.query(
        `insert into tenancy_groups (id, organization_id, name, description, target_type, organization_role_id, externally_managed, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
        [id, this.organizationId, body.name, body.description ?? null, body.target_type ?? 'W', roleId, body.externally_managed ?? false, now],
      );
      for (const parent of new Set(parents)) {
        await tx.query('insert into tenancy_group_children (parent_id, child_id) values ($1, $2)', [parent, id]);
      }
    });
    return this.get(id);
  }

  async update(id: string, body: z.output<typeof UpdateGroupSchema>): Promise<Group> {
    const row = await this.row(id);
    const roleId = body.organization_role === undefined ? row.organization_role_id
      : body.organization_role === null ? null : await this.organizationRole(body.organization_role);
    const parents = body.parent_group_ids;
    await this.db.transaction(async (tx) => {
      if (parents) {
        await this.checkExisting(tx, parents, ['body', 'parent_group_ids']);
        await this.checkNoCycle(tx, parents.map((p) => ({ parent: p, child: id, input: p })), ['body', 'parent_group_ids']);
      }
      await tx.query(
        `update tenancy_groups set name = $2, description = $3, target_type = $4, organization_role_id = $5, externally_managed = $6, updated_at = $7 where id = $1`,
        [id, body.name ?? row.name, body.description === undefined ? row.description : body.description, body.target_type ?? row.target_type, roleId,
          body.externally_managed ?? row.externally_managed, isoNow()],
      );
      if (parents) {
        await tx.query('delete from tenancy_group_children where child_id = $1', [id]);
        for (const parent of new Set(parents)) {
          await tx.query('insert into tenancy_group_children (parent_id, child_id) values ($1, $2)', [parent, id]);
        }
      }
    });
    return this.get(id);
  }

  /** `PATCH …/organization-role`: a role code (`A`, `M`), name or UUID of the organization scope. */
  async setOrganizationRole(id: string, role: string): Promise<Group> {
    await this.row(id);
    const roleId = await this.organizationRole(role);
    await this.db.query('update tenancy_groups set organization_role_id = $2, updated_at = $3 where id = $1', [id, roleId, isoNow()]);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    await this.row(id);
    await this.db.query('delete from tenancy_groups where id = $1', [id]);
  }

  /** Direct members of the group, one page. */
  async members(id: string, page: Page = { page: 1, page_size: 100 }): Promise<Page & { total: number; members: GroupMember[] }> {
    await this.row(id);
    const total = Number((await this.db.query<{ n: number }>('select count(*)::int as n from tenancy_group_members where group_id = $1', [id])).rows[0].n);
    const { rows } = await this.db.query<{ id: string; email: string; first_name: string | null; last_name: string | null }>(
      `select u.id, u.email, u.first_name, u.last_name from tenancy_group_members m join tenancy_users u on u.id = m.user_id
       where m.group_id = $1 order by u.seq limit ${page.page_size} offset ${(page.page - 1) * page.page_size}`, [id]);
    return {
      page: page.page, page_size: page.page_size, total,
      members: rows.map((u) => ({ user_uuid: u.id, email: u.email, name: [u.first_name, u.last_name].filter(Boolean).join(' ') || null })),
    };
  }

  async addMembers(id: string, userIds: string[]) {
    await this.row(id);
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>('select id from tenancy_users where id = any($1)', [userIds]);
      userIds.forEach((u, i) => {
        if (!rows.some((r) => r.id === u)) throw invalidField(['body', 'user_uuids', i], `User ${u} not found`, 'value_error', u);
      });
      for (const u of new Set(userIds)) {
        await tx.query('insert into tenancy_group_members (group_id, user_id) values ($1, $2) on conflict do nothing', [id, u]);
      }
    });
    return this.members(id);
  }

  async removeMembers(id: string, userIds: string[]) {
    await this.row(id);
    await this.db.query('delete from tenancy_group_members where group_id = $1 and user_id = any($2)', [id, userIds]);
    return this.members(id);
  }

  /** `GET …/nested`: the groups directly nested inside this one. */
  async nested(id: string): Promise<{ children: Array<{ name: string; uuid: string }> }> {
    await this.row(id);
    const { rows } = await this.db.query<{ id: string; name: string }>(
      `select g.id, g.name from tenancy_group_children c join tenancy_groups g on g.id = c.child_id where c.parent_id = $1 order by g.seq`, [id]);
    return { children: rows.map((r) => ({ name: r.name, uuid: r.id })) };
  }

  /** `PATCH …/nested`: replaces the set of directly nested groups; unknown groups and cycles → 422, nothing changed. */
  async setNested(id: string, childIds: string[]) {
    await this.row(id);
    await this.db.transaction(async (tx) => {
      await this.checkExisting(tx, childIds, ['body', 'child_group_uuids']);
      await this.checkNoCycle(tx, childIds.map((c) => ({ parent: id, child: c, input: c })), ['body', 'child_group_uuids']);
      await tx.query('delete from tenancy_group_children where parent_id = $1', [id]);
      for (const child of new Set(childIds)) {
        await tx.query('insert into tenancy_group_children (parent_id, child_id) values ($1, $2)', [id, child]);
      }
    });
    return this.nested(id);
  }

  /** Nests groups inside this one (keeping the others); a group that would end up inside itself → 422. */
  async addChildren(id: string, childIds: string[]) {
    const current = (await this.nested(id)).children.map((c) => c.uuid);
    return this.setNested(id, [...current, ...childIds.filter((c) => !current.includes(c))]);
  }

  async removeChildren(id: string, childIds: string[]) {
    const current = (await this.nested(id)).children.map((c) => c.uuid);
    return this.setNested(id, current.filter((c) => !childIds.includes(c)));
  }

  /**
   * `POST /v1/admin/user-groups/provision-workspace`: assigns the group to a workspace with workspace roles
   * (default: workspace member), replacing an earlier assignment.
   */
  async provision(body: z.output<typeof ProvisionWorkspaceSchema>): Promise<GroupWorkspace> {
    const { rows: groups } = await this.db.query('select 1 from tenancy_groups where id = $1', [body.user_group_uuid]);
    if (!groups.length) throw notFound(`User group ${body.user_group_uuid} not found`);
    await this.workspaceName(body.workspace_uuid);
    const both = (['role', 'role_name'] as const).filter((f) => body[f] != null && body[`workspace_${f}`] != null);
    if (both.length) throw invalidField(['body'], `Only one of ${both[0]} and workspace_${both[0]} may be given`, 'value_error');
    const fields: RoleFields = { ...body, role: body.role ?? body.workspace_role, role_name: body.role_name ?? body.workspace_role_name };
    const roleIds = (await this.roles.resolve(fields, 'workspace')) ?? [builtinRoleId('workspace_member')];
    await this.db.query(
      `insert into tenancy_group_workspaces (group_id, workspace_id, role_ids, created_at) values ($1, $2, $3, $4)
       on conflict (group_id, workspace_id) do update set role_ids = excluded.role_ids`,
      [body.user_group_uuid, body.workspace_uuid, JSON.stringify(roleIds), isoNow()],
    );
    return this.assignment(body.user_group_uuid, body.workspace_uuid);
  }

  /** `POST …/workspaces`: a new assignment (default role: workspace member); an existing one → 409 (use PATCH). */
  async assign(id: string, body: z.output<typeof AssignWorkspaceSchema>): Promise<GroupWorkspace> {
    await this.row(id);
    await this.workspaceName(body.workspace_uuid);
    const roleIds = (await this.roles.resolve(body, 'workspace')) ?? [builtinRoleId('workspace_member')];
    const { affectedRows } = await this.db.query(
      `insert into tenancy_group_workspaces (group_id, workspace_id, role_ids, created_at) values ($1, $2, $3, $4) on conflict do nothing`,
      [id, body.workspace_uuid, JSON.stringify(roleIds), isoNow()],
    );
    if (!affectedRows) {
      throw genericError(409, `User group ${id} is already assigned to workspace ${body.workspace_uuid}; PATCH the assignment to change its roles`,
        'invalid_request_error', 'conflict', 'workspace_uuid');
    }
    return this.assignment(id, body.workspace_uuid);
  }

  /** `PATCH …/workspaces/{workspace_uuid}`: replaces the roles of an existing assignment. */
  async updateAssignment(id: string, workspaceId: string, body: z.output<typeof UpdateAssignmentSchema>): Promise<GroupWorkspace> {
    await this.row(id);
    const roleIds = await this.roles.resolve(body, 'workspace');
    if (!roleIds) throw invalidField(['body'], 'One of role, roles, role_name or role_names is required', 'missing');
    const { affectedRows } = await this.db.query('update tenancy_group_workspaces set role_ids = $3 where group_id = $1 and workspace_id = $2',
      [id, workspaceId, JSON.stringify(roleIds)]);
    if (!affectedRows) throw notFound(`User group ${id} is not assigned to workspace ${workspaceId}`);
    return this.assignment(id, workspaceId);
  }

  async workspaces(id: string, page: Page = { page: 1, page_size: 100 }): Promise<Page & { total: number; items: GroupWorkspace[] }> {
    await this.row(id);
    const total = Number((await this.db.query<{ n: number }>('select count(*)::int as n from tenancy_group_workspaces where group_id = $1', [id])).rows[0].n);
    const rows = await this.assignmentRows(id, `order by gw.created_at, gw.workspace_id limit ${page.page_size} offset ${(page.page - 1) * page.page_size}`);
    const roles = await this.roles.list();
    return { page: page.page, page_size: page.page_size, total, items: rows.map((r) => this.toAssignment(id, r, roles)) };
  }

  async unprovision(id: string, workspaceId: string): Promise<void> {
    await this.row(id);
    const { affectedRows } = await this.db.query('delete from tenancy_group_workspaces where group_id = $1 and workspace_id = $2', [id, workspaceId]);
    if (!affectedRows) throw notFound(`User group ${id} is not assigned to workspace ${workspaceId}`);
  }

  private async assignment(id: string, workspaceId: string): Promise<GroupWorkspace> {
    const [row] = await this.assignmentRows(id, 'and gw.workspace_id = $2', [workspaceId]);
    return this.toAssignment(id, row, await this.roles.list());
  }

  private async assignmentRows(id: string, tail: string, params: unknown[] = []) {
    const { rows } = await this.db.query<{ workspace_id: string; name: string; role_ids: string[]; created_at: string }>(
      `select gw.workspace_id, w.name, gw.role_ids, gw.created_at from tenancy_group_workspaces gw join tenancy_workspaces w on w.id = gw.workspace_id
       where gw.group_id = $1 ${tail}`, [id, ...params]);
    return rows;
  }

  private toAssignment(id: string, r: { workspace_id: string; name: string; role_ids: string[]; created_at: string }, roles: Role[]): GroupWorkspace {
    const named = r.role_ids.map((rid) => ({ name: roles.find((x) => x.uuid === rid)?.name ?? rid, uuid: rid }));
    return {
      workspace_uuid: r.workspace_id, workspace_name: r.name, created: r.created_at, roles: named,
      role_uuid: named[0]?.uuid ?? null, role_name: named[0]?.name ?? null,
      user_group_uuid: id, raw_roles: this.roles.rawRoles(r.role_ids, roles),
    };
  }

  private async workspaceName(id: string): Promise<string> {
    const { rows } = await this.db.query<{ name: string }>('select name from tenancy_workspaces where id = $1', [id]);
    if (!rows[0]) throw notFound(`Workspace ${id} not found`);
    return rows[0].name;
  }

  /** Every id names an existing group, else 422 at its index. */
  private async checkExisting(tx: Queryable, ids: string[], loc: Array<string | number>): Promise<void> {
    const { rows } = await tx.query<{ id: string }>('select id from tenancy_groups where id = any($1)', [ids]);
    ids.forEach((g, i) => {
      if (!rows.some((r) => r.id === g)) throw invalidField([...loc, i], `User group ${g} not found`, 'value_error', g);
    });
  }

  /** Refuses (422 at the index of the body value) a nesting of `child` inside `parent` that would put a group inside itself. */
  private async checkNoCycle(tx: Queryable, edges: Array<{ parent: string; child: string; input: string }>, loc: Array<string | number>): Promise<void> {
    for (const [i, { parent, child, input }] of edges.entries()) {
      if (parent === child || (await this.descendants(tx, child)).includes(parent)) {
        throw invalidField([...loc, i], `Nesting user group ${child} inside ${parent} would create a cycle`, 'value_error', input);
      }
    }
  }

  /** Groups nested (at any depth) inside `id`. */
  private async descendants(tx: Queryable, id: string): Promise<string[]> {
    const { rows } = await tx.query<{ id: string }>(
      `with recursive d(id) as (
         select child_id from tenancy_group_children where parent_id = $1
         union select c.child_id from tenancy_group_children c join d on c.parent_id = d.id)
       select id from d`, [id]);
    return rows.map((r) => r.id);
  }

  private async organizationRole(value: string): Promise<string> {
    const role = (await this.roles.list()).find((r) => r.scope === 'organization' && (r.uuid === value || r.name === value || r.code === value));
    if (!role) throw invalidField(['body', 'organization_role'], `Unknown organization role ${value}`, 'value_error', value);
    return role.uuid;
  }

  private async row(id: string): Promise<GroupRow> {
    const { rows } = await this.db.query<GroupRow>('select * from tenancy_groups where id = $1', [id]);
    if (!rows[0]) throw notFound(`User group ${id} not found`);
    return rows[0];
  }

  private async group(r: GroupRow, roles: Role[]): Promise<Group> {
    const { rows } = await this.db.query<{ parent_id: string; child_id: string }>(
      'select parent_id, child_id from tenancy_group_children where parent_id = $1 or child_id = $1', [r.id]);
    return {
      uuid: r.id, name: r.name, description: r.description, externally_managed: r.externally_managed,
      organization_role: r.organization_role_id ? (roles.find((x) => x.uuid === r.organization_role_id)?.name ?? r.organization_role_id) : null,
      parent_group_ids: rows.filter((x) => x.child_id === r.id).map((x) => x.parent_id),
      target_type: r.target_type,
      child_group_uuids: rows.filter((x) => x.parent_id === r.id).map((x) => x.child_id),
      created_at: r.created_at, updated_at: r.updated_at,
    };
  }
}
