/**
 * User groups, durable in PGlite: members, nested groups (a group inside a group; its members count as
 * members of every enclosing group, so they inherit its workspace roles and organization role), workspace
 * assignments with roles (`provision-workspace`) and an optional organization role. A nesting that would
 * make a cycle is refused with 422.
 */
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { invalidField, notFound } from '../errors.js';
import { isoNow } from '../ids.js';
import { RoleFieldsSchema, type Role, type RoleCatalog } from './role-catalog.js';
import { builtinRoleId } from './roles.js';

export const CreateGroupSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(1000).nullish(),
  target_type: z.enum(['W', 'O']).nullish(),
  /** Organization role (name or UUID) every member of the group gets. */
  organization_role: z.string().min(1).nullish(),
});

export const UpdateGroupSchema = z.object({
  name: z.string().min(1).max(200).nullish(),
  description: z.string().max(1000).nullish(),
  target_type: z.enum(['W', 'O']).nullish(),
  /** A role name or UUID; `null` removes the group's organization role. */
  organization_role: z.string().min(1).nullable().optional(),
});

export const UserUuidsSchema = z.object({ user_uuids: z.array(z.string().min(1)).min(1) });
export const GroupUuidsSchema = z.object({ group_uuids: z.array(z.string().min(1)).min(1) });
export const ProvisionWorkspaceSchema = z.object({ user_group_uuid: z.string().min(1), workspace_uuid: z.string().min(1), ...RoleFieldsSchema });

export interface Group {
  uuid: string;
  name: string;
  description: string | null;
  target_type: 'W' | 'O';
  organization_role: string | null;
  externally_managed: boolean;
  parent_group_uuids: string[];
  child_group_uuids: string[];
  created_at: string;
  updated_at: string;
}

export interface GroupWorkspace { user_group_uuid: string; workspace_uuid: string; workspace_name: string; raw_roles: string[]; roles: Array<{ uuid: string; name: string }> }

interface GroupRow { id: string; name: string; description: string | null; target_type: 'W' | 'O'; organization_role_id: string | null; created_at: string; updated_at: string }

export class UserGroups {
  constructor(private readonly db: Db, private readonly roles: RoleCatalog, private readonly organizationId: string) {}

  async list(query: { page: number; page_size: number; search?: string }) {
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
    const id = crypto.randomUUID();
    const now = isoNow();
    await this.db.query(
      `insert into tenancy_groups (id, organization_id, name, description, target_type, organization_role_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [id, this.organizationId, body.name, body.description ?? null, body.target_type ?? 'W', roleId, now],
    );
    return this.get(id);
  }

  async update(id: string, body: z.output<typeof UpdateGroupSchema>): Promise<Group> {
    const row = await this.row(id);
    const roleId = body.organization_role === undefined ? row.organization_role_id
      : body.organization_role === null ? null : await this.organizationRole(body.organization_role);
    await this.db.query(
      `update tenancy_groups set name = $2, description = $3, target_type = $4, organization_role_id = $5, updated_at = $6 where id = $1`,
      [id, body.name ?? row.name, body.description === undefined ? row.description : body.description, body.target_type ?? row.target_type, roleId, isoNow()],
    );
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    await this.row(id);
    await this.db.query('delete from tenancy_groups where id = $1', [id]);
  }

  /** Direct members of the group. */
  async members(id: string) {
    await this.row(id);
    const { rows } = await this.db.query<{ id: string; email: string; first_name: string | null; last_name: string | null }>(
      `select u.id, u.email, u.first_name, u.last_name from tenancy_group_members m join tenancy_users u on u.id = m.user_id
       where m.group_id = $1 order by u.seq`, [id]);
    return { items: rows.map((u) => ({ uuid: u.id, email: u.email, first_name: u.first_name, last_name: u.last_name })), total: rows.length };
  }

  async addMembers(id: string, userIds: string[]) {
    await this.row(id);
    const { rows } = await this.db.query<{ id: string }>('select id from tenancy_users where id = any($1)', [userIds]);
    userIds.forEach((u, i) => {
      if (!rows.some((r) => r.id === u)) throw invalidField(['body', 'user_uuids', i], `User ${u} not found`, 'value_error', u);
    });
    for (const u of userIds) {
      await this.db.query('insert into tenancy_group_members (group_id, user_id) values ($1, $2) on conflict do nothing', [id, u]);
    }
    return this.members(id);
  }

  async removeMembers(id: string, userIds: string[]) {
    await this.row(id);
    await this.db.query('delete from tenancy_group_members where group_id = $1 and user_id = any($2)', [id, userIds]);
    return this.members(id);
  }

  async children(id: string) {
    const group = await this.get(id);
    const roles = await this.roles.list();
    const { rows } = await this.db.query<GroupRow>('select * from tenancy_groups where id = any($1) order by seq', [group.child_group_uuids]);
    return { items: await Promise.all(rows.map((r) => this.group(r, roles))), total: rows.length };
  }

  /** Nests groups inside this one; a group that would end up inside itself → 422. */
  async addChildren(id: string, childIds: string[]) {
    await this.row(id);
    for (const [i, child] of childIds.entries()) {
      const { rows } = await this.db.query('select 1 from tenancy_groups where id = $1', [child]);
      if (!rows.length) throw invalidField(['body', 'group_uuids', i], `User group ${child} not found`, 'value_error', child);
      if (child === id || (await this.descendants(child)).includes(id)) {
        throw invalidField(['body', 'group_uuids', i], `Nesting user group ${child} inside ${id} would create a cycle`, 'value_error', child);
      }
    }
    await this.db.transaction(async (tx) => {
      for (const child of childIds) {
        await tx.query('insert into tenancy_group_children (parent_id, child_id) values ($1, $2) on conflict do nothing', [id, child]);
      }
    });
    return this.children(id);
  }

  async removeChildren(id: string, childIds: string[]) {
    await this.row(id);
    await this.db.query('delete from tenancy_group_children where parent_id = $1 and child_id = any($2)', [id, childIds]);
    return this.children(id);
  }

  /** Assigns the group to a workspace with workspace roles (default: workspace member); replaces an earlier assignment. */
  async provision(body: z.output<typeof ProvisionWorkspaceSchema>): Promise<GroupWorkspace> {
    const { rows: groups } = await this.db.query('select 1 from tenancy_groups where id = $1', [body.user_group_uuid]);
    if (!groups.length) throw notFound(`User group ${body.user_group_uuid} not found`);
    const { rows: workspaces } = await this.db.query('select 1 from tenancy_workspaces where id = $1', [body.workspace_uuid]);
    if (!workspaces.length) throw notFound(`Workspace ${body.workspace_uuid} not found`);
    const roleIds = (await this.roles.resolve(body, 'workspace')) ?? [builtinRoleId('workspace_member')];
    await this.db.query(
      `insert into tenancy_group_workspaces (group_id, workspace_id, role_ids) values ($1, $2, $3)
       on conflict (group_id, workspace_id) do update set role_ids = excluded.role_ids`,
      [body.user_group_uuid, body.workspace_uuid, JSON.stringify(roleIds)],
    );
    const all = await this.workspaces(body.user_group_uuid);
    return all.items.find((w) => w.workspace_uuid === body.workspace_uuid)!;
  }

  async workspaces(id: string): Promise<{ items: GroupWorkspace[]; total: number }> {
    await this.row(id);
    const roles = await this.roles.list();
    const { rows } = await this.db.query<{ workspace_id: string; name: string; role_ids: string[] }>(
      `select gw.workspace_id, w.name, gw.role_ids from tenancy_group_workspaces gw join tenancy_workspaces w on w.id = gw.workspace_id
       where gw.group_id = $1 order by w.created_at`, [id]);
    const items = rows.map((r) => ({
      user_group_uuid: id, workspace_uuid: r.workspace_id, workspace_name: r.name,
      raw_roles: this.roles.rawRoles(r.role_ids, roles), roles: r.role_ids.map((rid) => ({ uuid: rid, name: roles.find((x) => x.uuid === rid)?.name ?? rid })),
    }));
    return { items, total: items.length };
  }

  async unprovision(id: string, workspaceId: string): Promise<void> {
    await this.row(id);
    const { affectedRows } = await this.db.query('delete from tenancy_group_workspaces where group_id = $1 and workspace_id = $2', [id, workspaceId]);
    if (!affectedRows) throw notFound(`User group ${id} is not assigned to workspace ${workspaceId}`);
  }

  private async descendants(id: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
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
      uuid: r.id, name: r.name, description: r.description, target_type: r.target_type,
      organization_role: r.organization_role_id ? (roles.find((x) => x.uuid === r.organization_role_id)?.name ?? r.organization_role_id) : null,
      externally_managed: false,
      parent_group_uuids: rows.filter((x) => x.child_id === r.id).map((x) => x.parent_id),
      child_group_uuids: rows.filter((x) => x.parent_id === r.id).map((x) => x.child_id),
      created_at: r.created_at, updated_at: r.updated_at,
    };
  }
}
