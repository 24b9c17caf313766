/**
 * Administration (`/v1/admin/*`, the admin key only: any other key → 403). Paths and shapes follow the
 * platform's Admin API reference (documented there under `/api/admin/*`); it is not in the SDK.
 *
 * | route | answer |
 * |---|---|
 * | `GET /v1/admin/users?page&page_size&email` | 200 `{members, invites, page, page_size, total}` |
 * | `POST /v1/admin/users` (array of `{email, first_name, last_name, role fields, subscription_types}`) | 200 `{email_to_user_id, invalid_emails}` |
 * | `GET` / `PATCH` / `DELETE /v1/admin/users/{user_id}` | 200 member / 200 member / 204 |
 * | `GET /v1/admin/users-invite` · `POST` (`{email: "a@x,b@y", role fields}`) | 200 `{invites}` |
 * | `DELETE /v1/admin/users-invite/{invite_id}` | 204 |
 * | `GET /v1/admin/roles` · `POST` (custom role) · `GET` / `DELETE /v1/admin/roles/{role_id}` | 200 `{items}` · 200 role · 200 role / 204 |
 * | `GET /v1/admin/user-groups?page&page_size&search` · `POST` | 200 `{items, page, page_size, total}` · 200 group |
 * | `GET` / `PATCH` / `DELETE /v1/admin/user-groups/{id}` | 200 group / 200 group / 204 |
 * | `GET` / `POST` / `DELETE /v1/admin/user-groups/{id}/members` (`{user_uuids}`) | 200 `{items, total}` |
 * | `GET` / `POST` / `DELETE /v1/admin/user-groups/{id}/child-groups` (`{group_uuids}`) | 200 `{items, total}`; a cycle → 422 |
 * | `POST /v1/admin/user-groups/provision-workspace` (`{user_group_uuid, workspace_uuid, role fields}`) | 200 assignment |
 * | `GET /v1/admin/user-groups/{id}/workspaces` · `DELETE …/workspaces/{workspace_id}` | 200 `{items, total}` · 204 |
 * | `GET` / `POST /v1/admin/rate-limit` (`{requests_per_second, tokens_limits_by_model}`) | 200 record |
 * | `GET` / `POST /v1/admin/spend-limit` (`{amount, no_monthly_limit}`) | 200 `{limits}` |
 * | `GET /v1/admin/usage?month&year&workspace_id` | 200 report computed from the usage ledger |
 *
 * Role fields: at most one of `role`, `roles`, `role_name`, `role_names` (several → 422).
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../context.js';
import { callerOf } from '../caller.js';
import { forbidden } from '../errors.js';
import { queryInt } from '../schemas.js';
import { readJson, validate } from '../validation.js';
import { CreateUsersSchema, InviteSchema, UpdateUserSchema } from '../tenancy/members.js';
import { CreateRoleSchema } from '../tenancy/role-catalog.js';
import { CreateGroupSchema, GroupUuidsSchema, ProvisionWorkspaceSchema, UpdateGroupSchema, UserUuidsSchema } from '../tenancy/groups.js';
import { RateLimitSchema, SpendLimitSchema } from '../tenancy/limits.js';
import { usageReport } from '../tenancy/usage.js';

const UsersQuery = z.object({ page: queryInt(1, 1), page_size: queryInt(100, 1, 1000), email: z.string().optional() });
const GroupsQuery = z.object({ page: queryInt(1, 1), page_size: queryInt(100, 1, 1000), search: z.string().optional() });
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

  app.use('/v1/admin/*', async (c, next) => {
    if (callerOf(c).kind !== 'admin') throw forbidden('The admin API requires an admin API key');
    await next();
  });

  app.get('/v1/admin/users', async (c) => c.json(await t.members.list(query(c, UsersQuery))));
  app.post('/v1/admin/users', async (c) => c.json(await t.members.create(await json(c, CreateUsersSchema))));
  app.get('/v1/admin/users/:user_id', async (c) => c.json(await t.members.get(c.req.param('user_id'))));
  app.patch('/v1/admin/users/:user_id', async (c) => c.json(await t.members.update(c.req.param('user_id'), await json(c, UpdateUserSchema))));
  app.delete('/v1/admin/users/:user_id', async (c) => {
    await t.members.delete(c.req.param('user_id'));
    return c.body(null, 204);
  });

  app.get('/v1/admin/users-invite', async (c) => c.json(await t.members.listInvites()));
  app.post('/v1/admin/users-invite', async (c) => c.json(await t.members.invite(await json(c, InviteSchema))));
  app.delete('/v1/admin/users-invite/:invite_id', async (c) => {
    await t.members.deleteInvite(c.req.param('invite_id'));
    return c.body(null, 204);
  });

  app.get('/v1/admin/roles', async (c) => c.json({ items: await t.roles.list() }));
  app.post('/v1/admin/roles', async (c) => c.json(await t.roles.create(await json(c, CreateRoleSchema))));
  app.get('/v1/admin/roles/:role_id', async (c) => c.json(await t.roles.get(c.req.param('role_id'))));
  app.delete('/v1/admin/roles/:role_id', async (c) => {
    await t.roles.delete(c.req.param('role_id'));
    return c.body(null, 204);
  });

  app.get('/v1/admin/user-groups', async (c) => c.json(await t.groups.list(query(c, GroupsQuery))));
  app.post('/v1/admin/user-groups', async (c) => c.json(await t.groups.create(await json(c, CreateGroupSchema))));
  app.post('/v1/admin/user-groups/provision-workspace', async (c) => c.json(await t.groups.provision(await json(c, ProvisionWorkspaceSchema))));
  app.get('/v1/admin/user-groups/:group_id', async (c) => c.json(await t.groups.get(c.req.param('group_id'))));
  app.patch('/v1/admin/user-groups/:group_id', async (c) => c.json(await t.groups.update(c.req.param('group_id'), await json(c, UpdateGroupSchema))));
  app.delete('/v1/admin/user-groups/:group_id', async (c) => {
    await t.groups.delete(c.req.param('group_id'));
    return c.body(null, 204);
  });
  app.get('/v1/admin/user-groups/:group_id/members', async (c) => c.json(await t.groups.members(c.req.param('group_id'))));
  app.post('/v1/admin/user-groups/:group_id/members', async (c) =>
    c.json(await t.groups.addMembers(c.req.param('group_id'), (await json(c, UserUuidsSchema)).user_uuids)));
  app.delete('/v1/admin/user-groups/:group_id/members', async (c) =>
    c.json(await t.groups.removeMembers(c.req.param('group_id'), (await json(c, UserUuidsSchema)).user_uuids)));
  app.get('/v1/admin/user-groups/:group_id/child-groups', async (c) => c.json(await t.groups.children(c.req.param('group_id'))));
  app.post('/v1/admin/user-groups/:group_id/child-groups', async (c) =>
    c.json(await t.groups.addChildren(c.req.param('group_id'), (await json(c, GroupUuidsSchema)).group_uuids)));
  app.delete('/v1/admin/user-groups/:group_id/child-groups', async (c) =>
    c.json(await t.groups.removeChildren(c.req.param('group_id'), (await json(c, GroupUuidsSchema)).group_uuids)));
  app.get('/v1/admin/user-groups/:group_id/workspaces', async (c) => c.json(await t.groups.workspaces(c.req.param('group_id'))));
  app.delete('/v1/admin/user-groups/:group_id/workspaces/:workspace_id', async (c) => {
    await t.groups.unprovision(c.req.param('group_id'), c.req.param('workspace_id'));
    return c.body(null, 204);
  });

  app.get('/v1/admin/rate-limit', (c) => c.json(t.limits.rateLimit()));
  app.post('/v1/admin/rate-limit', async (c) => c.json(await t.limits.setRateLimit(await json(c, RateLimitSchema))));
  app.get('/v1/admin/spend-limit', async (c) => c.json(await t.limits.spendLimit()));
  app.post('/v1/admin/spend-limit', async (c) => c.json(await t.limits.setSpendLimit(await json(c, SpendLimitSchema))));

  app.get('/v1/admin/usage', async (c) => {
    const q = query(c, UsageQuery);
    const now = new Date();
    return c.json(await usageReport(ctx.db, { year: q.year ?? now.getUTCFullYear(), month: q.month ?? now.getUTCMonth() + 1, workspaceId: q.workspace_id }));
  });
  return app;
}
