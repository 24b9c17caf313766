import { defineConfig } from 'vitest/config';

// One run for both packages of the workspace: parley-kit's unit tests (client, relay, store, audio)
// and the local platform's (platform/vitest.config.ts). The platform is imported by parley-kit's
// integration tests through its package exports, so `npm run build` comes first (`npm test` does).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'kit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      'platform/vitest.config.ts',
      // The platform's store, SDK and durability suites again on PostgreSQL (a throwaway server, or PARLEY_TEST_DATABASE_URL).
      'platform/vitest.pg.config.ts',
    ],
    // Each file opens its own in-memory database; two workers suit a 2-core machine.
    maxWorkers: 2,
  },
});
