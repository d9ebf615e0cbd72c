/**
 * `npm run test:faults`: crash and fault scenarios on the embedded database and on PostgreSQL,
 * with a PASS/FAIL report (scripts/faults/scenarios.ts). Exit status 1 when anything failed.
 *
 *   npm run test:faults                       # a throwaway local PostgreSQL (installed when missing)
 *   FAULT_SECONDS=10 npm run test:faults      # longer load before each fault
 *   FAULTS=embedded npm run test:faults       # only the embedded database
 *   FAULTS=failover npm run test:faults       # only the primary/standby failover (sync, then async)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, startTempPostgres } from '../../test/support/postgres.ts';
import { failoverDuringWrites } from './failover.ts';
import { databaseRestartDuringWrites, killDuringWrites, printReport, type ScenarioResult } from './scenarios.ts';

const seconds = Number(process.env.FAULT_SECONDS ?? 3);
const only = process.env.FAULTS ?? 'embedded,postgres,failover';
const results: ScenarioResult[] = [];

if (only.includes('embedded')) {
  const dir = mkdtempSync(join(tmpdir(), 'ucp-faults-'));
  try {
    results.push(await killDuringWrites({ label: 'embedded', env: { DATA_DIR: join(dir, 'data') } }, { seconds }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (only.includes('postgres')) {
  // Our own server: the restart scenario must be able to stop and start it.
  let pg;
  try {
    pg = await startTempPostgres();
  } catch (e) {
    results.push({ name: 'PostgreSQL server for the fault tests', pass: false, lines: [`FAIL ${(e as Error).message}`] });
  }
  if (pg) {
    try {
      const a = await createTestDatabase(pg.url);
      results.push(await killDuringWrites({ label: 'PostgreSQL', env: { DATABASE_URL: a.url } }, { seconds }));
      const b = await createTestDatabase(pg.url);
      results.push(await databaseRestartDuringWrites(b.url, () => pg.restart('immediate'), { seconds }));
    } finally {
      await pg.stop();
    }
  }
}

if (only.includes('failover')) {
  // A pair of its own each time (primary + hot standby): the scenario kills one and promotes the other.
  results.push(await failoverDuringWrites({ sync: true, seconds }));
  results.push(await failoverDuringWrites({ sync: false, seconds }));
}

process.exit(printReport(results) ? 0 : 1);
