import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { AREA_MIGRATIONS, createPlatform, type Platform, type PlatformOptions } from '../../src/app.js';
import type { Db } from '../../src/store/db.js';
import { openDb, type DbOptions } from '../../src/store/open-db.js';
import { freshDatabase } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of the `platform-pg` project (test/postgres-setup.ts). */
    parleyPostgresUrl: string;
  }
}

/**
 * In the `platform-pg` project (vitest.pg.config.ts) the platforms and stores of the tests run on PostgreSQL:
 * each on a new database, or one database per `dataDir` (a test that reopens a directory reopens its database).
 */
export const ON_POSTGRES = process.env.PARLEY_TEST_DB === 'postgres';

/** The database URL a test platform or store uses (undefined: PGlite, in memory or in `dataDir`). */
export async function testDatabaseUrl(dataDir?: string): Promise<string | undefined> {
  if (!ON_POSTGRES) return undefined;
  const server = inject('parleyPostgresUrl');
  return dataDir ? freshDatabase(server, `parley_d_${createHash('sha256').update(dataDir).digest('hex').slice(0, 20)}`) : freshDatabase(server);
}

/** A database with every area's schema, as createPlatform opens it: in memory, in `dataDir`, or on `databaseUrl`. */
export function openPlatformDb(options: Omit<DbOptions, 'areas'> = {}): Promise<Db> {
  return openDb({ ...options, areas: AREA_MIGRATIONS });
}

/** A store test's database: in memory, or a new PostgreSQL database in the `platform-pg` project. */
export async function openTestDb(): Promise<Db> {
  return openPlatformDb({ databaseUrl: await testDatabaseUrl() });
}

export const API_KEY = 'test-key';
export const ADMIN_KEY = 'test-admin-key';
export const BASE = 'http://platform.test';

/** A platform with an in-memory database, called directly through its fetch handler (no port). */
export async function startPlatform(options: Partial<PlatformOptions> = {}): Promise<Platform> {
  const databaseUrl = options.databaseUrl ?? await testDatabaseUrl(options.dataDir);
  const platform = createPlatform({ apiKey: API_KEY, adminKey: ADMIN_KEY, onError: (e) => { throw e; }, ...options, databaseUrl });
  await platform.ready();
  return platform;
}

export interface CallOptions { method?: string; body?: unknown; rawBody?: BodyInit; key?: string | null; headers?: Record<string, string>; signal?: AbortSignal }

/** Calls the platform and returns status, parsed JSON (or text) and the response. */
export async function call(platform: Platform, path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? API_KEY}`;
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const method = options.method ?? (body !== undefined ? 'POST' : 'GET');
  const response = await platform.fetch(new Request(BASE + path, { method, body, headers, signal: options.signal }));
  const text = await response.text();
  let json: any = undefined;
  try { json = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
  return { status: response.status, json, text, headers: response.headers };
}

export interface SseEvent { event: string; data: any }

/** Parses a whole SSE body into events (each must have an `event:` line and JSON data). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n+/)) {
    if (!block.trim()) continue;
    let event = '';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (!data.length) continue;
    events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}

/** A streamed call: asserts the content type and returns the events. */
export async function stream(platform: Platform, path: string, body: Record<string, unknown>) {
  const res = await call(platform, path, { body: { ...body, stream: true } });
  return { status: res.status, contentType: res.headers.get('content-type'), events: res.status === 200 ? parseSse(res.text) : [], json: res.json };
}

export const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const HEX32 = '[0-9a-f]{32}';

/** A function tool definition for tests. */
export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};
