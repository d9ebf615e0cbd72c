/**
 * A short run of the crash and fault scenarios on PostgreSQL (the full report: `npm run
 * test:faults`): kill -9 under write load and a database restart mid-load, on a throwaway local
 * server of this test's own (the restart needs control of the server). Collected in the PostgreSQL
 * pass only (vitest.config.ts); the embedded scenario is in test/faults.embedded.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseRestartDuringWrites, killDuringWrites, type ScenarioResult } from '../scripts/faults/scenarios.ts';
import { createTestDatabase, startTempPostgres, type TempPostgres } from './support/postgres.ts';

const expectPass = (r: ScenarioResult) => expect(r.pass, `${r.name}\n${r.lines.join('\n')}`).toBe(true);

describe('faults on PostgreSQL', () => {
  let pg: TempPostgres;
  beforeAll(async () => {
    pg = await startTempPostgres();
  }, 300_000);
  afterAll(() => pg?.stop());

  it('kill -9 under write load loses no acknowledged cart, order or token', async () => {
    const db = await createTestDatabase(pg.url);
    expectPass(await killDuringWrites({ label: 'PostgreSQL', env: { DATABASE_URL: db.url } }, { seconds: 2 }));
  }, 120_000);

  it('a database restart mid-load answers 2xx or 503 + Retry-After, resumes by itself, loses nothing', async () => {
    const db = await createTestDatabase(pg.url);
    expectPass(await databaseRestartDuringWrites(db.url, () => pg.restart('immediate'), { seconds: 2 }));
  }, 120_000);
});
