/** Administration (admin key only): users, invitations, groups, roles, rate and spend limits, usage. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function adminRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
