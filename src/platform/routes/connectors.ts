/** Connectors (MCP servers): CRUD, sharing, activation, credentials, tools. */
import { Hono } from 'hono';
import type { PlatformContext } from '../context.js';

export function connectorRoutes(_ctx: PlatformContext): Hono {
  const app = new Hono();
  return app;
}
