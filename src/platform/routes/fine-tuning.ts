/** Fine-tuning jobs and fine-tuned models (update, archive, unarchive). */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function fineTuningRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
