import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Every answer of an app served in a test is checked against its OpenAPI document (test/support/openapi-conformance.ts).
    setupFiles: ['test/support/openapi-conformance.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites share one PostgreSQL; each file gets its own schema (see test/support/db.ts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
