/** v2 registries: prompts and skills with versions and aliases (camelCase JSON). */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function registryRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
