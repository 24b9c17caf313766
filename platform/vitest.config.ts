import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'platform',
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file opens its own in-memory database; two workers suit a 2-core machine.
    maxWorkers: 2,
  },
});
