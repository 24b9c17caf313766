// Global setup of the platform-pg project: one PostgreSQL server for every test file (each makes its own
// databases on it, see test/unit/helpers.ts), stopped at the end; on a server given by
// PARLEY_TEST_DATABASE_URL the tests' databases are dropped instead.
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startPostgres } from './unit/postgres-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('parleyPostgresUrl', server.url);
  return async () => {
    if (process.env.PARLEY_TEST_DATABASE_URL) await dropTestDatabases(server.url);
    await server.dispose();
  };
}

async function dropTestDatabases(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like 'parley\\_t\\_%' or datname like 'parley\\_d\\_%'`);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
  } finally {
    await client.end();
  }
}
