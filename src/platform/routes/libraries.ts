/** Document libraries: libraries, their documents (upload, processing, text), sharing. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function libraryRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
