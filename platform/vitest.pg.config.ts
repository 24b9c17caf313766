import { defineConfig } from 'vitest/config';

// The platform's store and SDK suites (and the durability and memory-at-start tests) again, with every platform and store of
// them on PostgreSQL: a server started for the run (or PARLEY_TEST_DATABASE_URL's), a new database each.
export default defineConfig({
  test: {
    name: 'platform-pg',
    include: ['test/unit/*.sdk.test.ts', 'test/unit/*.store.test.ts', 'test/unit/durability.test.ts', 'test/unit/memory-at-start.test.ts'],
    environment: 'node',
    env: { PARLEY_TEST_DB: 'postgres' },
    globalSetup: ['test/postgres-setup.ts'],
    // Generous: restart and engine tests take seconds on a quiet machine and several times that on a loaded one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
