// Global setup of the platform-pg project: one PostgreSQL server for every test file (each makes its own
// databases on it, see test/unit/helpers.ts), stopped at the end.
import type { TestProject } from 'vitest/node';
import { startPostgres } from './unit/postgres-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('parleyPostgresUrl', server.url);
  return () => server.dispose();
}
