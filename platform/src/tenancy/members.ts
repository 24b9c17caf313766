/**
 * The organization's users and pending invitations, durable in PGlite, in the admin API's shapes
 * (`uuid`, `raw_role`/`raw_roles`, `email_to_user_id`…). Emails are validated; an invitation body may
 * carry several comma-separated emails. New users join the default workspace as workspace members.
 */
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { genericError, invalidField, notFound } from '../errors.js';
import { isoNow } from '../ids.js';
import { RoleFieldsSchema, type Role, type RoleCatalog } from './role-catalog.js';
import { builtinRoleId } from './roles.js';

const Email = z.email();
const SubscriptionTypes = z.array(z.enum(['CHAT', 'MISTRAL_CODE']));

/** One entry of `POST /v1/admin/users` (OrganizationMemberCreate). */
export const CreateUsersSchema = z.array(z.object({
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  subscription_types: SubscriptionTypes.nullish(),
  ...RoleFieldsSchema,
})).min(1);

/** `PATCH /v1/admin/users/{user_id}`. */
export const UpdateUserSchema = z.object({
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  subscription_types: SubscriptionTypes.nullish(),
  ...RoleFieldsSchema,
});

/** `POST /v1/admin/users-invite`: `email` may list several addresses separated by commas. */
export const InviteSchema = z.object({ email: z.string().min(1), ...RoleFieldsSchema });

export interface Member {
  uuid: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  name: string | null;
  oid_id: null;
  raw_role: string;
  raw_roles: string[];
  roles: Array<{ uuid: string; name: string }>;
  subscription_types: string[];
  created_at: string;
}

export interface Invite {
  uuid: string;
  email: string;
  expired: boolean;
  raw_role: string;
  raw_roles: string[];
  roles: Array<{ uuid: string; name: string }>;
  created_at: string;
}

interface UserRow { id: string; email: string; first_name: string | null; last_name: string | null; role_ids: string[]; subscription_types: string[]; created_at: string }
interface InviteRow { id: string; email: string; role_ids: string[]; created_at: string }

export class OrganizationMembers {
  constructor(
    private readonly db: Db,
    private readonly roles: RoleCatalog,
    private readonly organizationId: string,
    private readonly defaultWorkspaceId: string,
    /** Users that cannot be deleted (the owner behind the admin key). */
    private readonly protectedUserIds: ReadonlySet<string>,
    /** Called after a user (and so their keys) is deleted. */
    private readonly onKeysChanged: () => void = () => {},
  ) {}

  /** `GET /v1/admin/users`: members first, then invitations, paginated together. */
  async list(query: { page: number; page_size: number; email?: string }) {
    const filter = query.email?.trim().toLowerCase();
    const where = filter ? 'where lower(email) = $1' : '';
    const params = filter ? [filter] : [];
    const users = (await this.db.query<UserRow>(`select * from tenancy_users ${where} order by seq`, params)).rows;
    const invites = (await this.db.query<InviteRow>(`select * from tenancy_invites ${where} order by seq`, params)).rows;
    const roles = await this.roles.list();
    const all = [...users.map((u) => ({ member: this.toMember(u, roles) })), ...invites.map((i) => ({ invite: this.toInvite(i, roles) }))];
    const start = (query.page - 1) * query.page_size;
    const slice = all.slice(start, start + query.page_size);
    return {
      members: slice.flatMap((x) => ('member' in x ? [x.member] : [])),
      invites: slice.flatMap((x) => ('invite' in x ? [x.invite] : [])),
      page: query.page,
      page_size: query.page_size,
      total: all.length,
    };
  }

  async get(id: string): Promise<Member> {
    return this.toMember(await this.row(id), await this.roles.list());
  }

  /** `POST /v1/admin/users`: invalid or taken emails are reported in `invalid_emails`, the rest created. */
  async create(entries: z.output<typeof CreateUsersSchema>) {
    const roleIds = await Promise.all(entries.map((e, i) => this.roles.resolve(e, 'organization', ['body', i])));
    const email_to_user_id: Record<string, string> = {};
    const invalid_emails: string[] = [];
    await this.db.transaction(async (tx) => {
      for (const [i, e] of entries.entries()) {
        const email = e.email.trim().toLowerCase();
        const taken = (await tx.query('select 1 from tenancy_users where email = $1', [email])).rows.length > 0;
        if (!Email.safeParse(email).success || taken || email in email_to_user_id) {
          invalid_emails.push(e.email);
          continue;
        }
        const id = crypto.randomUUID();
        await insertUser(tx, {
          id, organizationId: this.organizationId, email, firstName: e.first_name, lastName: e.last_name,
          roleIds: roleIds[i] ?? [builtinRoleId('member')], subscriptionTypes: e.subscription_types ?? [],
        });
        await tx.query(
          `insert into tenancy_workspace_members (workspace_id, user_id, role_ids) values ($1, $2, $3)`,
          [this.defaultWorkspaceId, id, JSON.stringify([builtinRoleId('workspace_member')])],
        );
        await tx.query('delete from tenancy_invites where email = $1', [email]);
        email_to_user_id[email] = id;
      }
    });
    return { email_to_user_id, invalid_emails };
  }

  async update(id: string, body: z.output<typeof UpdateUserSchema>): Promise<Member> {
    const row = await this.row(id);
    const roleIds = await this.roles.resolve(body, 'organization');
    await this.db.query(
      `update tenancy_users set first_name = $2, last_name = $3, role_ids = $4, subscription_types = $5 where id = $1`,
      [id, body.first_name ?? row.first_name, body.last_name ?? row.last_name, JSON.stringify(roleIds ?? row.role_ids),
        JSON.stringify(body.subscription_types ?? row.subscription_types)],
    );
    return this.get(id);
  }

  /** Deletes a user with its keys, memberships and group memberships; the organization owner is refused (409). */
  async delete(id: string): Promise<void> {
    await this.row(id);
    if (this.protectedUserIds.has(id)) throw genericError(409, 'The organization owner cannot be deleted', 'invalid_request_error', 'conflict');
    await this.db.query('delete from tenancy_users where id = $1', [id]);
    this.onKeysChanged();
  }

  async listInvites(): Promise<{ invites: Invite[] }> {
    const roles = await this.roles.list();
    const rows = (await this.db.query<InviteRow>('select * from tenancy_invites order by seq')).rows;
    return { invites: rows.map((r) => this.toInvite(r, roles)) };
  }

  /**
   * `POST /v1/admin/users-invite`: one invitation per comma-separated email; any invalid address or an
   * address that already belongs to a member → 422 and nothing is invited. A pending invitation for the
   * same address is renewed with the new roles.
   */
  async invite(body: z.output<typeof InviteSchema>): Promise<{ invites: Invite[] }> {
    const emails = [...new Set(body.email.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean))];
    const invalid = emails.filter((e) => !Email.safeParse(e).success);
    if (!emails.length || invalid.length) {
      throw invalidField(['body', 'email'], `Invalid email address${invalid.length === 1 ? '' : 'es'}: ${invalid.join(', ') || '(none given)'}`, 'value_error', body.email);
    }
    const members = (await this.db.query<{ email: string }>('select email from tenancy_users where email = any($1)', [emails])).rows;
    if (members.length) {
      throw invalidField(['body', 'email'], `Already members of the organization: ${members.map((m) => m.email).join(', ')}`, 'value_error', body.email);
    }
    const roleIds = (await this.roles.resolve(body, 'organization')) ?? [builtinRoleId('member')];
    const ids: string[] = [];
    await this.db.transaction(async (tx) => {
      for (const email of emails) {
        const { rows } = await tx.query<{ id: string }>(
          `insert into tenancy_invites (id, organization_id, email, role_ids, created_at) values ($1, $2, $3, $4, $5)
           on conflict (email) do update set role_ids = excluded.role_ids, created_at = excluded.created_at returning id`,
          [crypto.randomUUID(), this.organizationId, email, JSON.stringify(roleIds), isoNow()],
        );
        ids.push(rows[0].id);
      }
    });
    const roles = await this.roles.list();
    const rows = (await this.db.query<InviteRow>('select * from tenancy_invites where id = any($1) order by seq', [ids])).rows;
    return { invites: rows.map((r) => this.toInvite(r, roles)) };
  }

  async deleteInvite(id: string): Promise<void> {
    const { affectedRows } = await this.db.query('delete from tenancy_invites where id = $1', [id]);
    if (!affectedRows) throw notFound(`Invitation ${id} not found`);
  }

  private async row(id: string): Promise<UserRow> {
    const { rows } = await this.db.query<UserRow>('select * from tenancy_users where id = $1', [id]);
    if (!rows[0]) throw notFound(`User ${id} not found`);
    return rows[0];
  }

  private toMember(u: UserRow, roles: Role[]): Member {
    const raw = this.roles.rawRoles(u.role_ids, roles);
    const name = [u.first_name, u.last_name].filter(Boolean).join(' ') || null;
    return {
      uuid: u.id, email: u.email, first_name: u.first_name, last_name: u.last_name, name, oid_id: null,
      raw_role: raw.includes('A') ? 'A' : 'M', raw_roles: raw, roles: named(u.role_ids, roles),
      subscription_types: u.subscription_types, created_at: u.created_at,
    };
  }

  private toInvite(i: InviteRow, roles: Role[]): Invite {
    const raw = this.roles.rawRoles(i.role_ids, roles);
    return {
      uuid: i.id, email: i.email, expired: false, raw_role: raw.includes('A') ? 'A' : 'M', raw_roles: raw,
      roles: named(i.role_ids, roles), created_at: i.created_at,
    };
  }
}

const named = (ids: string[], roles: Role[]) => ids.map((id) => ({ uuid: id, name: roles.find((r) => r.uuid === id)?.name ?? id }));

type Queryable = Pick<Db, 'query'>;

/** Inserts a user row (shared by seeding and `POST /v1/admin/users`). */
export async function insertUser(db: Queryable, u: {
  id: string; organizationId: string; email: string; firstName: string | null; lastName: string | null; roleIds: string[]; subscriptionTypes: string[];
}): Promise<void> {
  await db.query(
    `insert into tenancy_users (id, organization_id, email, first_name, last_name, role_ids, subscription_types, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [u.id, u.organizationId, u.email, u.firstName, u.lastName, JSON.stringify(u.roleIds), JSON.stringify(u.subscriptionTypes), isoNow()],
  );
}
