/**
 * The routes a test platform answers, for tests that walk every route: read from the Hono app createPlatform
 * mounts its areas on. A spy on Hono's `route` sees every app that mounts another while the platform starts;
 * the platform's own app is the one holding all their routes.
 */
import { Hono } from 'hono';
import { vi } from 'vitest';
import type { Platform, PlatformOptions } from '../../src/app.js';
import { startPlatform } from './helpers.js';

export interface PlatformRoute { method: string; path: string }

/** A platform (startPlatform) and its routes (`method` upper case, `path` with `:param`s), without middleware and wildcards. */
export async function startPlatformWithRoutes(options: Partial<PlatformOptions> = {}): Promise<{ platform: Platform; routes: PlatformRoute[] }> {
  const mount = vi.spyOn(Hono.prototype, 'route');
  let platform: Platform;
  let apps: Hono[];
  try {
    platform = await startPlatform(options);
  } finally {
    apps = [...mount.mock.contexts] as Hono[];
    mount.mockRestore();
  }
  if (!apps.length) throw new Error('The platform mounted no routes');
  const app = apps.reduce((most, next) => (next.routes.length > most.routes.length ? next : most));
  const seen = new Map<string, PlatformRoute>();
  for (const { method, path } of app.routes) {
    if (path.includes('*') || method === 'ALL') continue;
    seen.set(`${method} ${path}`, { method, path });
  }
  return { platform, routes: [...seen.values()] };
}
