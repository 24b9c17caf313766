import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'platform',
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    // Generous: restart and engine tests take seconds on a quiet machine and several times that on a loaded one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file opens its own in-memory database; two workers suit a 2-core machine.
    maxWorkers: 2,
  },
});
