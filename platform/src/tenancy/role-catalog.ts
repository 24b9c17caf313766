/**
 * The roles of the organization (built-in and custom) in PGlite, and how request bodies name them:
 * exactly one of `role` (deprecated; code, UUID or name), `roles` (codes or UUIDs), `role_name`
 * (deprecated) or `role_names`. Several at once, an unknown role or a role of the wrong scope → 422.
 */
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { genericError, invalidField, notFound } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { BUILTIN_ROLES, ORGANIZATION_PERMISSIONS, WORKSPACE_PERMISSIONS, builtinRoleId, type RoleScope } from './roles.js';

export interface Role {
  uuid: string;
  name: string;
  /** Empty when the role was created without one. */
  description: string;
  /** Whether an administrator created the role (`POST /v1/admin/roles`), as opposed to a built-in role. */
  is_custom_role: boolean;
  scope: RoleScope;
  permissions: string[];
  builtin: boolean;
  /** `A`/`M` for the built-in admin/member role of a scope, else null. */
  code: 'A' | 'M' | null;
  created_at: string;
}

/** The role fields of users, invitations and group provisioning bodies (at most one may be given). */
export const RoleFieldsSchema = {
  role: z.string().min(1).nullish(),
  roles: z.array(z.string().min(1)).min(1).nullish(),
  role_name: z.string().min(1).nullish(),
  role_names: z.array(z.string().min(1)).min(1).nullish(),
};

export interface RoleFields {
  role?: string | null;
  roles?: string[] | null;
  role_name?: string | null;
  role_names?: string[] | null;
}

const FIELDS = ['role', 'roles', 'role_name', 'role_names'] as const;

/** Custom role body of `POST /v1/admin/roles`. */
export const CreateRoleSchema = z.strictObject({
  name: z.string().min(1).max(100),
  description: z.string().max(500).nullish(),
  scope: z.enum(['organization', 'workspace']),
  permissions: z.array(z.string()).min(1),
});

interface RoleRow { id: string; name: string; description: string | null; scope: RoleScope; permissions: string[]; builtin: boolean; created_at: string }

export class RoleCatalog {
  constructor(private readonly db: Db) {}

  /** Inserts the built-in roles that are missing (first start, or a newer version added one). */
  async seed(): Promise<void> {
    for (const r of BUILTIN_ROLES) {
      await this.db.query(
        `insert into tenancy_roles (id, name, description, scope, permissions, builtin, created_at)
         values ($1, $2, $3, $4, $5, true, $6) on conflict (id) do nothing`,
        [builtinRoleId(r.name), r.name, r.description, r.scope, JSON.stringify(r.permissions), isoNow()],
      );
    }
  }

  async list(): Promise<Role[]> {
    const { rows } = await this.db.query<RoleRow>('select * from tenancy_roles order by builtin desc, created_at, name');
    return rows.map(toRole);
  }

  async get(id: string): Promise<Role> {
    const { rows } = await this.db.query<RoleRow>('select * from tenancy_roles where id = $1', [id]);
    if (!rows[0]) throw notFound(`Role ${id} not found`);
    return toRole(rows[0]);
  }

  async create(body: z.output<typeof CreateRoleSchema>): Promise<Role> {
    const known: readonly string[] = body.scope === 'workspace' ? WORKSPACE_PERMISSIONS : ORGANIZATION_PERMISSIONS;
    body.permissions.forEach((p, i) => {
      if (!known.includes(p)) throw invalidField(['body', 'permissions', i], `Unknown ${body.scope} permission; expected one of ${known.join(', ')}`, 'value_error', p);
    });
    const { rows: taken } = await this.db.query('select 1 from tenancy_roles where name = $1', [body.name]);
    if (taken.length) throw genericError(409, `A role named ${body.name} already exists`, 'invalid_request_error', 'conflict', 'name');
    const id = crypto.randomUUID();
    await this.db.query(
      `insert into tenancy_roles (id, name, description, scope, permissions, builtin, created_at) values ($1, $2, $3, $4, $5, false, $6)`,
      [id, body.name, body.description ?? null, body.scope, JSON.stringify([...new Set(body.permissions)]), isoNow()],
    );
    return this.get(id);
  }

  /** Deletes a custom role; built-in roles and roles still assigned are refused (409). */
  async delete(id: string): Promise<void> {
    const role = await this.get(id);
    if (role.builtin) throw genericError(409, `Built-in role ${role.name} cannot be deleted`, 'invalid_request_error', 'conflict');
    const { rows } = await this.db.query(
      `select 1 from tenancy_users where role_ids ? $1
       union all select 1 from tenancy_invites where role_ids ? $1
       union all select 1 from tenancy_workspace_members where role_ids ? $1
       union all select 1 from tenancy_group_workspaces where role_ids ? $1
       union all select 1 from tenancy_groups where organization_role_id = $1 limit 1`,
      [id],
    );
    if (rows.length) throw genericError(409, `Role ${role.name} is still assigned; remove its assignments first`, 'invalid_request_error', 'conflict');
    await this.db.query('delete from tenancy_roles where id = $1', [id]);
  }

  /**
   * The role ids a body names, for roles of `scope`; `undefined` when it names none.
   * Several role fields at once, unknown roles and roles of the other scope → 422 at the field.
   */
  async resolve(body: RoleFields, scope: RoleScope, loc: Array<string | number> = ['body']): Promise<string[] | undefined> {
    const given = FIELDS.filter((f) => body[f] !== undefined && body[f] !== null);
    if (given.length > 1) {
      throw invalidField(loc, `Only one of ${FIELDS.join(', ')} may be given (got ${given.join(', ')})`, 'value_error', Object.fromEntries(given.map((f) => [f, body[f]])));
    }
    const field = given[0];
    if (!field) return undefined;
    const value = body[field]!;
    const values = Array.isArray(value) ? value : [value];
    const roles = await this.list();
    const ids: string[] = [];
    values.forEach((v, i) => {
      const at = Array.isArray(value) ? [...loc, field, i] : [...loc, field];
      const byName = field === 'role_name' || field === 'role_names';
      const found = roles.find((r) =>
        r.scope === scope && (byName ? r.name === v : r.uuid === v || r.code === v || (field === 'role' && r.name === v)));
      if (!found) {
        const other = roles.find((r) => r.uuid === v || r.name === v);
        throw invalidField(at, other ? `Role ${v} is an ${other.scope} role; a ${scope} role is required` : `Unknown ${scope} role ${v}`, 'value_error', v);
      }
      if (!ids.includes(found.uuid)) ids.push(found.uuid);
    });
    return ids;
  }

  /** How a role id is shown in `raw_roles`: its code for built-in admin/member roles, else its UUID. */
  rawRoles(ids: string[], roles: Role[]): string[] {
    return ids.map((id) => roles.find((r) => r.uuid === id)?.code ?? id);
  }
}

function toRole(row: RoleRow): Role {
  const builtin = BUILTIN_ROLES.find((b) => builtinRoleId(b.name) === row.id);
  return {
    uuid: row.id,
    name: row.name,
    description: row.description ?? '',
    is_custom_role: !row.builtin,
    scope: row.scope,
    permissions: row.permissions,
    builtin: row.builtin,
    code: builtin?.code ?? null,
    created_at: row.created_at,
  };
}
