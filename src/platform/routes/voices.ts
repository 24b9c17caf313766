/** Custom voices: create, update, delete, sample audio (preset voices are listed by speech.ts). */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function voiceRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
