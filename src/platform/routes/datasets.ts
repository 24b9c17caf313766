/** Observability datasets and records, imports, live judging. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function datasetRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
