/**
 * Opens PGlite (the embedded database) in memory or in a directory, in as little memory as it runs in:
 * - `shared_buffers` is {@link PGLITE_SHARED_BUFFERS}, not Postgres's 128 MB: PGlite touches all of its
 *   shared buffers when it starts, so they were resident from the first second whether or not the data
 *   needed them. Pages past them are read from the data directory's files (the OS caches those).
 * - A fresh directory is made (initdb) by a short-lived child process: PGlite makes a directory with a
 *   second Postgres instance and the initdb program, each with its own wasm memory, which this process
 *   would keep (garbage its collector does not hurry to free) long after they closed (about 430 MB).
 *   The database then opens here as it does on every later start.
 * Durability is PGlite's own either way (nothing here relaxes it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/** Postgres's buffer pool inside PGlite's wasm memory (Postgres's default is 128MB). */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters (fsync and the rest as it ships them) with the smaller buffer pool. */
export function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
}

/** PGlite in `dataDir` (made first in a child process when it holds no database yet), or in memory. */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  const startParams = pgliteStartParams();
  if (!dataDir) return PGlite.create({ startParams });
  mkdirSync(dataDir, { recursive: true });
  // A child that could not make it leaves the work to PGlite here, which then says why it cannot.
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initDataDirInChild(dataDir, startParams).catch(() => {});
  return PGlite.create(dataDir, { startParams });
}

/** The child: opens PGlite on `dataDir` (which runs initdb there) and closes it. */
const CHILD = `
const [url, dir, params] = process.argv.slice(1);
const { PGlite } = await import(url);
const db = await PGlite.create(dir, { startParams: JSON.parse(params) });
await db.close();
`;

function initDataDirInChild(dataDir: string, startParams: string[]): Promise<void> {
  const pgliteUrl = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, pgliteUrl, dataDir, JSON.stringify(startParams)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => { if (stderr.length < 4096) stderr += s; });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0 && existsSync(join(dataDir, 'PG_VERSION'))) resolve();
      else reject(new Error(`PGlite could not make ${dataDir} (exit ${code ?? signal}): ${stderr.trim()}`));
    });
  });
}
