/**
 * Identity of the caller, as SDK `beta.users.*` (2.7.0) expects:
 *
 * | route | answer |
 * |---|---|
 * | `GET /v1/users/me` | 200 `{id, email, first_name, last_name, workspace, organization, api_key}` |
 * | `GET /v1/users/me/organizations?offset&limit` | 200 `{organizations: [{id, name}]}` |
 * | `GET /v1/users/me/workspaces?organization_id&offset&limit` | 200 `{workspaces: [{id, name, organization_id}]}` |
 *
 * `offset` ≥ 0 (default 0), `limit` 1–100 (default 100); anything else → 422.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { queryInt } from '../http/schemas.js';
import { validate } from '../http/validation.js';

const Page = { offset: queryInt(0, 0), limit: queryInt(100, 1, 100) };
const OrganizationsQuery = z.object(Page);
const WorkspacesQuery = z.object({ ...Page, organization_id: z.string().min(1).optional() });

export function identityRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const t = ctx.directory.tenancy;

  app.get('/', async (c) => c.json(await t.identity(callerOf(c))));

  app.get('/organizations', async (c) => {
    const q = validate(OrganizationsQuery, c.req.query(), ['query']);
    const all = await t.organizations(callerOf(c));
    return c.json({ organizations: all.slice(q.offset, q.offset + q.limit) });
  });

  app.get('/workspaces', async (c) => {
    const q = validate(WorkspacesQuery, c.req.query(), ['query']);
    const all = (await t.workspaces(callerOf(c))).filter((w) => !q.organization_id || w.organization_id === q.organization_id);
    return c.json({ workspaces: all.slice(q.offset, q.offset + q.limit) });
  });
  return app;
}
