/**
 * A bug that escapes every handler ends the process through the log (server/main.ts
 * logFatalErrors): in production one JSON line with the stack, never raw text in the JSON stream
 * a log collector reads; exit 1 so a process manager restarts it (issue 39 gap: uncaught
 * exceptions were Node's raw text). Run in a child process: the case ends it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs `code` after the handlers are installed with the log in JSON (`json`) or text. */
function crash(code: string, json: boolean): Promise<{ status: number | null; out: string; err: string }> {
  const script = `import { logFatalErrors } from './server/main.ts'; import { configureLog } from './server/lib/log.ts'; configureLog({ json: ${json} }); logFatalErrors(); ${code}`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' } }, (e, out, err) =>
      resolve({ status: e ? ((e as { code?: number }).code ?? null) : 0, out, err }),
    );
  });
}

/** Every non-empty line of both streams. */
const linesOf = (r: { out: string; err: string }) => `${r.out}\n${r.err}`.split('\n').filter((l) => l.trim());

describe('fatal errors go through the log', () => {
  it('an uncaught exception in production: one JSON line (scope process, cause bug, the stack), exit 1', async () => {
    const r = await crash(`setTimeout(() => { throw new Error('kaboom in a timer'); }, 1);`, true);
    expect(r.status).toBe(1);
    const lines = linesOf(r);
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ level: 'error', scope: 'process', msg: 'uncaught exception: exiting', cause: 'bug' });
    expect(entry.err.message).toBe('kaboom in a timer');
    expect(entry.err.stack).toContain('kaboom in a timer');
  });

  it('an unhandled rejection in production: the same, named as a rejection', async () => {
    const r = await crash(`Promise.reject(new Error('nobody awaited me'));`, true);
    expect(r.status).toBe(1);
    const [line, ...more] = linesOf(r);
    expect(more).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({ scope: 'process', msg: 'unhandled promise rejection: exiting', err: { message: 'nobody awaited me' } });
  });

  it('in development: a timestamped text line with the stack, exit 1', async () => {
    const r = await crash(`setTimeout(() => { throw new TypeError('bad thing'); }, 1);`, false);
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z error \[process\] uncaught exception: exiting \{"cause":"bug"\}: TypeError: bad thing\n\s+at /);
  });
});
