/**
 * Administration (`/v1/admin/*`, the admin key only: any other key → 403; also served at `/api/admin/*`).
 * Paths and shapes follow the seed's "Administration" section; it is not in the SDK. Every success is 200
 * (general rule 2). Where the seed shows no body, the answer is the changed record (or `{message}` for a
 * deletion). Paged listings take `page` (default 1) and `page_size` (default 100, at most 1000).
 *
 * | route | answer |
 * |---|---|
 * | `GET /v1/admin/users?page&page_size&email` | `{members, invites, page, page_size, total}` |
 * | `POST /v1/admin/users` (array of `{email, first_name, last_name, role fields, subscription_types}`) | `{email_to_user_id, invalid_emails}` |
 * | `GET` / `PATCH` / `DELETE /v1/admin/users/{user_id}` | member / member / `{message}` |
 * | `GET /v1/admin/users-invite` | bare array of `{invite_uuid, email, role, roles}` |
 * | `POST /v1/admin/users-invite` (`{email: "a@x,b@y", role fields, subscription_types, workspace_uuids…}`) | `{already_members, invalid_emails, invited_members_count}` |
 * | `DELETE /v1/admin/users-invite/{invite_uuid}` | `{message}` |
 * | `GET /v1/admin/roles` | `{organization_roles, workspace_roles}` (`{uuid, name, description, is_custom_role, …}`) |
 * | `POST /v1/admin/roles` (custom role) · `GET` / `DELETE /v1/admin/roles/{role_id}` (local extensions) | role · role / `{message}` |
 * | `GET /v1/admin/user-groups?page&page_size&search` · `POST` | `{items, page, page_size, total}` · group |
 * | `GET` / `PATCH` / `DELETE /v1/admin/user-groups/{group_uuid}` | group / group / `{message}` |
 * | `GET` / `POST` / `DELETE /v1/admin/user-groups/{group_uuid}/members` (`{user_uuids}`) | `{members: [{user_uuid, email, name}], page, page_size, total}` |
 * | `POST /v1/admin/user-groups/provision-workspace` (`{user_group_uuid, workspace_uuid, role fields}`) | assignment |
 * | `GET` / `POST /v1/admin/user-groups/{group_uuid}/workspaces` (`{workspace_uuid, role fields}`; assigned already → 409) | `{items, page, page_size, total}` / assignment |
 * | `PATCH` / `DELETE /v1/admin/user-groups/{group_uuid}/workspaces/{workspace_uuid}` (role fields) | assignment / `{message}` |
 * | `PATCH /v1/admin/user-groups/{group_uuid}/organization-role` (`{organization_role}`) | group |
 * | `GET` / `PATCH /v1/admin/user-groups/{group_uuid}/nested` (`{child_group_uuids}` replaces the set; a cycle → 422) | `{children: [{name, uuid}]}` |
 * | `GET /v1/admin/rate-limit` · `POST` (local extension) | `{requests_per_second, tokens_limits_by_model: [{model, tokens_per_minute, tokens_per_month}]}` |
 * | `GET` / `POST /v1/admin/spend-limit` (`{amount, no_monthly_limit}`) | `{limits}` |
 * | `GET /v1/admin/usage?month&year&workspace_id` | report computed from the usage ledger |
 *
 * Role fields: at most one of `role`, `roles`, `role_name`, `role_names` (several → 422).
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { forbidden } from '../http/errors.js';
import { queryInt } from '../http/schemas.js';
import { readJson, validate } from '../http/validation.js';
import { CreateUsersSchema, InviteSchema, UpdateUserSchema } from './members.js';
import { CreateRoleSchema } from './role-catalog.js';
import {
  AssignWorkspaceSchema, CreateGroupSchema, NestedGroupsSchema, OrganizationRoleSchema, ProvisionWorkspaceSchema,
  UpdateAssignmentSchema, UpdateGroupSchema, UserUuidsSchema,
} from './groups.js';
import { RateLimitSchema, SpendLimitSchema } from './limits.js';
import { usageReport } from './usage.js';

const PagedQuery = z.object({ page: queryInt(1, 1), page_size: queryInt(100, 1, 1000) });
const UsersQuery = PagedQuery.extend({ email: z.string().optional() });
const GroupsQuery = PagedQuery.extend({ search: z.string().optional() });
const UsageQuery = z.object({
  month: z.coerce.number().int().min(1).max(12).optional(),
  year: z.coerce.number().int().min(2000).max(9999).optional(),
  workspace_id: z.string().min(1).optional(),
});

export function adminRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const t = ctx.directory.tenancy;
  const json = <S extends z.ZodType>(c: Context, schema: S) => readJson(c, schema, ctx.limits.maxJsonBytes);
  const query = <S extends z.ZodType>(c: Context, schema: S): z.output<S> => validate(schema, c.req.query(), ['query']);

  app.use('/*', async (c, next) => {
    if (callerOf(c).kind !== 'admin') throw forbidden('The admin API requires an admin API key');
    await next();
  });

  const gid = (c: Context) => c.req.param('group_uuid')!;
  const deleted = (c: Context, message: string) => c.json({ message });

  app.get('/users', async (c) => c.json(await t.members.list(query(c, UsersQuery))));
  app.post('/users', async (c) => c.json(await t.members.create(await json(c, CreateUsersSchema))));
  app.get('/users/:user_id', async (c) => c.json(await t.members.get(c.req.param('user_id'))));
  app.patch('/users/:user_id', async (c) => c.json(await t.members.update(c.req.param('user_id'), await json(c, UpdateUserSchema))));
  app.delete('/users/:user_id', async (c) => {
    await t.members.delete(c.req.param('user_id'));
    return deleted(c, 'Organization member deleted successfully');
  });

  app.get('/users-invite', async (c) => c.json(await t.members.listInvites()));
  app.post('/users-invite', async (c) => c.json(await t.members.invite(await json(c, InviteSchema))));
  app.delete('/users-invite/:invite_uuid', async (c) => {
    await t.members.deleteInvite(c.req.param('invite_uuid'));
    return deleted(c, 'Organization invitation deleted successfully');
  });

  app.get('/roles', async (c) => {
    const roles = await t.roles.list();
    return c.json({ organization_roles: roles.filter((r) => r.scope === 'organization'), workspace_roles: roles.filter((r) => r.scope === 'workspace') });
  });
  app.post('/roles', async (c) => c.json(await t.roles.create(await json(c, CreateRoleSchema))));
  app.get('/roles/:role_id', async (c) => c.json(await t.roles.get(c.req.param('role_id'))));
  app.delete('/roles/:role_id', async (c) => {
    await t.roles.delete(c.req.param('role_id'));
    return deleted(c, 'Role deleted successfully');
  });

  app.get('/user-groups', async (c) => c.json(await t.groups.list(query(c, GroupsQuery))));
  app.post('/user-groups', async (c) => c.json(await t.groups.create(await json(c, CreateGroupSchema))));
  app.post('/user-groups/provision-workspace', async (c) => c.json(await t.groups.provision(await json(c, ProvisionWorkspaceSchema))));
  app.get('/user-groups/:group_uuid', async (c) => c.json(await t.groups.get(gid(c))));
  app.patch('/user-groups/:group_uuid', async (c) => c.json(await t.groups.update(gid(c), await json(c, UpdateGroupSchema))));
  app.delete('/user-groups/:group_uuid', async (c) => {
    await t.groups.delete(gid(c));
    return deleted(c, 'User group deleted successfully');
  });
  app.get('/user-groups/:group_uuid/members', async (c) => c.json(await t.groups.members(gid(c), query(c, PagedQuery))));
  app.post('/user-groups/:group_uuid/members', async (c) =>
    c.json(await t.groups.addMembers(gid(c), (await json(c, UserUuidsSchema)).user_uuids)));
  app.delete('/user-groups/:group_uuid/members', async (c) =>
    c.json(await t.groups.removeMembers(gid(c), (await json(c, UserUuidsSchema)).user_uuids)));
  app.get('/user-groups/:group_uuid/workspaces', async (c) => c.json(await t.groups.workspaces(gid(c), query(c, PagedQuery))));
  app.post('/user-groups/:group_uuid/workspaces', async (c) => c.json(await t.groups.assign(gid(c), await json(c, AssignWorkspaceSchema))));
  app.patch('/user-groups/:group_uuid/workspaces/:workspace_uuid', async (c) =>
    c.json(await t.groups.updateAssignment(gid(c), c.req.param('workspace_uuid'), await json(c, UpdateAssignmentSchema))));
  app.delete('/user-groups/:group_uuid/workspaces/:workspace_uuid', async (c) => {
    await t.groups.unprovision(gid(c), c.req.param('workspace_uuid'));
    return deleted(c, 'Workspace assignment deleted successfully');
  });
  app.patch('/user-groups/:group_uuid/organization-role', async (c) =>
    c.json(await t.groups.setOrganizationRole(gid(c), (await json(c, OrganizationRoleSchema)).organization_role)));
  app.get('/user-groups/:group_uuid/nested', async (c) => c.json(await t.groups.nested(gid(c))));
  app.patch('/user-groups/:group_uuid/nested', async (c) =>
    c.json(await t.groups.setNested(gid(c), (await json(c, NestedGroupsSchema)).child_group_uuids)));

  app.get('/rate-limit', (c) => c.json(t.limits.rateLimit()));
  app.post('/rate-limit', async (c) => c.json(await t.limits.setRateLimit(await json(c, RateLimitSchema))));
  app.get('/spend-limit', async (c) => c.json(await t.limits.spendLimit()));
  app.post('/spend-limit', async (c) => c.json(await t.limits.setSpendLimit(await json(c, SpendLimitSchema))));

  app.get('/usage', async (c) => {
    const q = query(c, UsageQuery);
    const now = new Date();
    return c.json(await usageReport(ctx.db, { year: q.year ?? now.getUTCFullYear(), month: q.month ?? now.getUTCMonth() + 1, workspaceId: q.workspace_id }));
  });
  return app;
}
