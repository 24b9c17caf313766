/** Identity of the caller: /v1/users/me, its organizations and workspaces. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function identityRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
