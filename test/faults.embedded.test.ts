/**
 * A short run of the crash scenario on the embedded database (the full report: `npm run
 * test:faults`): kill -9 under write load. Collected in the embedded pass only (vitest.config.ts);
 * the PostgreSQL scenarios are in test/faults.pg.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killDuringWrites, type ScenarioResult } from '../scripts/faults/scenarios.ts';

const expectPass = (r: ScenarioResult) => expect(r.pass, `${r.name}\n${r.lines.join('\n')}`).toBe(true);

describe('faults on the embedded database', () => {
  it('kill -9 under write load loses no acknowledged cart, order or token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-faults-'));
    try {
      expectPass(await killDuringWrites({ label: 'embedded', env: { DATA_DIR: join(dir, 'data') } }, { seconds: 2 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
