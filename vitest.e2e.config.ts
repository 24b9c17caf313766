import { defineConfig } from 'vitest/config';

// End-to-end tests: `parley start` driven by playwright-core in Debian Chromium. Run after `npm run build`.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
