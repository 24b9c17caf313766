/** Moderations and classifications by the local classifier engine. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function classifierRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
