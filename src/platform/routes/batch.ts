/** Batch jobs: JSONL input files run line by line through the platform's own endpoints, results written back as files. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function batchRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
