/**
 * The organization's users and pending invitations, durable in PGlite, in the admin API's shapes
 * (`uuid`, `raw_role`/`raw_roles`, `email_to_user_id`…). Emails are validated; an invitation body may
 * carry several emails separated by commas or new lines. New users join the default workspace as
 * workspace members.
 */
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { genericError, invalidField, notFound } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { RoleFieldsSchema, type Role, type RoleCatalog } from './role-catalog.js';
import { builtinRoleId } from './roles.js';

const Email = z.email();
const SubscriptionTypes = z.array(z.enum(['CHAT', 'MISTRAL_CODE']));
const PlanType = z.enum(['API', 'CHAT', 'ON_PREMISE', 'LICENSE', 'MISTRAL_CODE']);

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

/** `POST /v1/admin/users-invite`: `email` may list several addresses separated by commas (or new lines). */
export const InviteSchema = z.object({
  email: z.string().min(1),
  email_language: z.enum(['en', 'fr', 'es', 'de', 'it', 'pt_br', 'pl', 'ar', 'nl']).nullish(),
  subscription_seat_automatic_granting: z.boolean().default(false),
  /** Deprecated single seat (exclusive with `subscription_types`). */
  subscription_type: PlanType.nullish(),
  subscription_types: z.array(PlanType).nullish(),
  workspace_uuids: z.array(z.string().min(1)).nullish(),
  ...RoleFieldsSchema,
});

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
  /** Members come from the local directory, never from an SSO domain. */
  is_sso_outsider: boolean;
  created_at: string;
}

/** An invitation as the users listing shows it. */
export interface Invite {
  uuid: string;
  email: string;
  expired: boolean;
  raw_role: string;
  raw_roles: string[];
  roles: Array<{ uuid: string; name: string }>;
  workspace_uuids: string[];
  subscription_types: string[];
  created_at: string;
}

/** An invitation as `GET /v1/admin/users-invite` lists it. */
export interface PendingInvite {
  invite_uuid: string;
  email: string | null;
  /** Deprecated single role (`A`/`M` code or role UUID); use `roles`. */
  role: string;
  roles: string[];
  created_at: string;
}

interface UserRow { id: string; email: string; first_name: string | null; last_name: string | null; role_ids: string[]; subscription_types: string[]; created_at: string }
interface InviteRow { id: string; email: string; role_ids: string[]; subscription_types: string[]; workspace_uuids: string[]; created_at: string }

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
    let email_to_user_id: Record<string, string> = {};
    let invalid_emails: string[] = [];
    await this.db.transaction(async (tx) => {
      // On PostgreSQL a transaction may run again after a serialization failure: each run starts afresh.
      email_to_user_id = {};
      invalid_emails = [];
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

  /** `GET /v1/admin/users-invite`: the pending invitations, oldest first. */
  async listInvites(): Promise<PendingInvite[]> {
    const roles = await this.roles.list();
    const rows = (await this.db.query<InviteRow>('select * from tenancy_invites order by seq')).rows;
    return rows.map((r) => {
      const raw = this.roles.rawRoles(r.role_ids, roles);
      return { invite_uuid: r.id, email: r.email, role: legacyRole(raw), roles: raw, created_at: r.created_at };
    });
  }

  /**
   * `POST /v1/admin/users-invite`: one invitation per address (separated by commas or new lines). Malformed
   * addresses are reported in `invalid_emails` and addresses of members in `already_members`; the others are
   * invited (a pending invitation for the same address is renewed with the new roles). Bad role fields,
   * unknown workspaces or no address at all → 422 and nothing is invited.
   */
  async invite(body: z.output<typeof InviteSchema>) {
    const given = [...new Set(body.email.split(/[,\n\r]/).map((e) => e.trim()).filter(Boolean))];
    if (!given.length) throw invalidField(['body', 'email'], 'No email address given', 'value_error', body.email);
    if (body.subscription_type && body.subscription_types) {
      throw invalidField(['body'], 'Only one of subscription_type and subscription_types may be given', 'value_error');
    }
    const roleIds = (await this.roles.resolve(body, 'organization')) ?? [builtinRoleId('member')];
    const workspaceIds = [...new Set(body.workspace_uuids ?? [])];
    const { rows: workspaces } = await this.db.query<{ id: string }>('select id from tenancy_workspaces where id = any($1)', [workspaceIds]);
    (body.workspace_uuids ?? []).forEach((w, i) => {
      if (!workspaces.some((r) => r.id === w)) throw invalidField(['body', 'workspace_uuids', i], `Workspace ${w} not found`, 'value_error', w);
    });
    const invalid_emails = given.filter((e) => !Email.safeParse(e.toLowerCase()).success);
    const valid = [...new Set(given.filter((e) => !invalid_emails.includes(e)).map((e) => e.toLowerCase()))];
    const members = (await this.db.query<{ email: string }>('select email from tenancy_users where email = any($1)', [valid])).rows.map((m) => m.email);
    const already_members = valid.filter((e) => members.includes(e));
    const invited = valid.filter((e) => !members.includes(e));
    const seats = body.subscription_types ?? (body.subscription_type ? [body.subscription_type] : []);
    await this.db.transaction(async (tx) => {
      for (const email of invited) {
        await tx.query(
          `insert into tenancy_invites (id, organization_id, email, role_ids, subscription_types, workspace_uuids, created_at) values ($1, $2, $3, $4, $5, $6, $7)
           on conflict (email) do update set role_ids = excluded.role_ids, subscription_types = excluded.subscription_types,
             workspace_uuids = excluded.workspace_uuids, created_at = excluded.created_at`,
          [crypto.randomUUID(), this.organizationId, email, JSON.stringify(roleIds), JSON.stringify(seats), JSON.stringify(workspaceIds), isoNow()],
        );
      }
    });
    return { already_members, invalid_emails, invited_members_count: invited.length };
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
      raw_role: legacyRole(raw), raw_roles: raw, roles: named(u.role_ids, roles),
      subscription_types: u.subscription_types, is_sso_outsider: false, created_at: u.created_at,
    };
  }

  private toInvite(i: InviteRow, roles: Role[]): Invite {
    const raw = this.roles.rawRoles(i.role_ids, roles);
    return {
      uuid: i.id, email: i.email, expired: false, raw_role: legacyRole(raw), raw_roles: raw,
      roles: named(i.role_ids, roles), workspace_uuids: i.workspace_uuids, subscription_types: i.subscription_types, created_at: i.created_at,
    };
  }
}

/** The deprecated single role of `raw_roles`: `A` for an administrator, else `M` for a member, else the first role's UUID. */
const legacyRole = (raw: string[]): string => (raw.includes('A') ? 'A' : raw.includes('M') ? 'M' : raw[0] ?? 'M');

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
