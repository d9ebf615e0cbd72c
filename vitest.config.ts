import { defineConfig } from 'vitest/config';

// Suites that exist for one database only are named for it and are not collected in the other
// pass (scripts/test-all.sh runs the suite on the embedded database, then again on PostgreSQL):
// `*.pg.test.ts` need a PostgreSQL server, `*.embedded.test.ts` the embedded database's own files.
const onPostgres = !!process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['**/node_modules/**', onPostgres ? 'test/**/*.embedded.test.ts' : 'test/**/*.pg.test.ts'],
    globalSetup: ['test/support/build-host.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
