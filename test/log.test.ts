/**
 * The server's logger (server/lib/log.ts): every line timestamped, JSON in production and with the
 * access log, and a failure that repeats every second written once and then as a count. The last
 * case runs the real webhook worker against a database that is gone.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureLog, flushRepeats, log, resetLog, type Level } from '../server/lib/log.ts';
import { databaseRecovered, inOutage, requestUnavailable } from '../server/lib/outage.ts';
import { logJson, loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/db/index.ts';
import { startWebhookWorker } from '../server/core/orders/webhooks.ts';
import { startTestServer } from './support/server.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function capture(json: boolean, repeatWindowMs = 60_000) {
  const lines: Array<{ level: Level; line: string }> = [];
  configureLog({ json, repeatWindowMs, write: (level, line) => lines.push({ level, line }) });
  return lines;
}

afterEach(() => {
  vi.useRealTimers();
  resetLog();
});

describe('log lines', () => {
  it('text: an ISO timestamp first, then level, scope, message, fields and the error', () => {
    const lines = capture(false);
    log.error('webhooks', 'worker pass failed', { err: new Error('connect ECONNREFUSED 127.0.0.1:5432') });
    log.info('search-index', 'built', { shop: 'shop_demo' });
    expect(lines).toHaveLength(2);
    const [t, level, scope, ...rest] = lines[0].line.split(' ');
    expect(t).toMatch(ISO);
    expect([level, scope]).toEqual(['error', '[webhooks]']);
    expect(rest.join(' ')).toMatch(/^worker pass failed: Error: connect ECONNREFUSED 127\.0\.0\.1:5432\n\s+at /); // the stack, first time
    expect(lines[0].level).toBe('error');
    expect(lines[1].line).toMatch(/^\S+Z info \[search-index\] built \{"shop":"shop_demo"\}$/);
  });

  it('JSON: one object a line with t, level, scope, msg, fields and err {message, code, stack}', () => {
    const lines = capture(true);
    log.warn('db', 'connection lost', { err: Object.assign(new Error('terminating connection'), { code: '57P01' }), pool: 'main' });
    const entry = JSON.parse(lines[0].line);
    expect(Object.keys(entry)).toEqual(['t', 'level', 'scope', 'msg', 'pool', 'err']);
    expect(entry.t).toMatch(ISO);
    expect(entry).toMatchObject({ level: 'warn', scope: 'db', msg: 'connection lost', pool: 'main', err: { message: 'terminating connection', code: '57P01' } });
    expect(entry.err.stack).toContain('terminating connection');
    expect(lines[0].line).not.toContain('\n');
  });

  it('JSON when ACCESS_LOG=1 or NODE_ENV=production, text otherwise', () => {
    expect(logJson(loadConfig({}))).toBe(false);
    expect(logJson(loadConfig({ ACCESS_LOG: '1' }))).toBe(true);
    expect(logJson(loadConfig({ NODE_ENV: 'production' }))).toBe(true);
  });

  it('the startup banner is timestamped too', () => {
    const lines = capture(false);
    log.plain('UCP storefront listening on http://127.0.0.1:8080');
    expect(lines[0].line).toMatch(/^\S+Z UCP storefront listening on http:\/\/127\.0\.0\.1:8080$/);
  });
});

describe('a repeating failure', () => {
  it('is written once, then once with its count per window, then forgotten when it stops', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-27T05:00:00.000Z') });
    const lines = capture(false, 60_000);
    const fail = () => log.error('webhooks', 'worker pass failed', { err: new Error('connect ECONNREFUSED') });
    fail();
    for (let i = 0; i < 57; i++) {
      vi.advanceTimersByTime(1000);
      fail();
    }
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(3000); // the window ends: 57 more in the last 60 s
    expect(lines).toHaveLength(2);
    expect(lines[1].line).toMatch(/^2026-11-27T05:01:00\.000Z error \[webhooks\] worker pass failed: connect ECONNREFUSED \(repeated 57 times in the last 60 s\)$/);
    fail(); // still failing: counted in the next window
    vi.advanceTimersByTime(60_000);
    expect(lines.map((l) => l.line.match(/repeated (\d+) time/)?.[1])).toEqual([undefined, '57', '1']);
    vi.advanceTimersByTime(60_000); // a quiet window: nothing written, the site forgotten
    expect(lines).toHaveLength(3);
    fail();
    expect(lines).toHaveLength(4);
    expect(lines[3].line).not.toContain('repeated');
  });

  it('a change of error writes the old count first, then the new line', () => {
    vi.useFakeTimers();
    const lines = capture(true, 60_000);
    for (let i = 0; i < 5; i++) log.error('rest', 'unavailable', { err: new Error('connect ECONNREFUSED') });
    log.error('rest', 'unavailable', { err: new Error('the database system is starting up') });
    const entries = lines.map((l) => JSON.parse(l.line));
    expect(entries.map((e) => [e.err.message, e.repeated])).toEqual([
      ['connect ECONNREFUSED', undefined],
      ['connect ECONNREFUSED', 4],
      ['the database system is starting up', undefined],
    ]);
    expect(entries[1].window_s).toBeGreaterThanOrEqual(1);
    // Other sites are not held back by this one.
    log.error('webhooks', 'worker pass failed', { err: new Error('connect ECONNREFUSED') });
    expect(lines).toHaveLength(4);
  });

  it('the webhook worker against a database that is gone: one line, then the count, not a line a second', async () => {
    const lines = capture(false, 400);
    const db = await openDatabase({ dataDir: 'memory://' });
    await db.destroy(); // every pass now fails
    const worker = startWebhookWorker(db, { intervalMs: 20 });
    const ours = () => lines.filter((l) => l.line.includes('[webhooks] worker pass failed'));
    // Until the first window's count is written (400 ms after the first failure; later on a busy machine).
    for (let waited = 0; waited < 10_000 && ours().length < 2; waited += 50) await new Promise((r) => setTimeout(r, 50));
    await worker.stop();
    expect(ours().length).toBe(2);
    expect(ours()[0].line).not.toContain('repeated');
    expect(ours()[1].line).toMatch(/\(repeated (\d+) times in the last \d+ s\)$/);
    expect(Number(ours()[1].line.match(/repeated (\d+)/)![1])).toBeGreaterThanOrEqual(5);
  });

});

describe('requests while the database is gone', () => {
  it('each failing site writes one line and then its count, whatever the number of requests', async () => {
    const lines = capture(false, 400);
    const s = await startTestServer();
    const destroy = s.db.destroy.bind(s.db);
    try {
      expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).status).toBe(200); // the shop is cached
      await destroy();
      configureLog({ json: false, repeatWindowMs: 400, write: (level, line) => lines.push({ level, line }) });
      lines.length = 0;
      for (let i = 0; i < 12; i++) {
        const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
        // Destroying the Kysely instance is how a test takes the database away; what is asserted here is the log.
        expect(r.status).toBeGreaterThanOrEqual(500);
      }
      await new Promise((r) => setTimeout(r, 600));
      const sites = new Map<string, string[]>();
      for (const { line } of lines) {
        const site = line.split(' ').slice(1, 4).join(' ');
        sites.set(site, [...(sites.get(site) ?? []), line]);
      }
      expect(lines.length).toBeGreaterThan(0);
      for (const [site, written] of sites) {
        expect(written.length, `${site}: ${written.join('\n')}`).toBeLessThanOrEqual(3);
      }
      expect(lines.some((l) => /repeated \d+ times/.test(l.line))).toBe(true);
    } finally {
      s.db.destroy = async () => {};
      await s.close().catch(() => {});
    }
  }, 90_000);
});

describe('an outage told in the log (issue 39 point 17)', () => {
  it('503s counted, then at recovery their last count at once (not a window later) and one line saying it is over', () => {
    // The outage state is the process's: close one an earlier case left open (its stopped database's 503s).
    databaseRecovered('an earlier case');
    vi.useFakeTimers({ now: Date.parse('2026-11-27T05:00:00.000Z') });
    const lines = capture(true, 60_000);
    databaseRecovered('a new connection'); // no outage open: nothing to say
    expect(lines).toHaveLength(0);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 9; i++) {
      requestUnavailable('rest', refused);
      vi.advanceTimersByTime(500);
    }
    expect(inOutage()).toBe(true);
    expect(lines).toHaveLength(1);
    databaseRecovered('a new connection', { host: 'db2:5432' });
    const entries = lines.map((l) => JSON.parse(l.line));
    expect(entries).toEqual([
      expect.objectContaining({ level: 'error', scope: 'rest', msg: 'database unavailable: answered 503', err: expect.objectContaining({ code: 'ECONNREFUSED' }) }),
      expect.objectContaining({ scope: 'rest', msg: 'database unavailable: answered 503', repeated: 8, t: '2026-11-27T05:00:04.500Z' }),
      expect.objectContaining({ level: 'info', scope: 'db', msg: 'database reachable again', how: 'a new connection', host: 'db2:5432', outage_s: 4.5, requests_answered_503: 9 }),
    ]);
    expect(inOutage()).toBe(false);
    databaseRecovered('a new connection'); // once per outage
    vi.advanceTimersByTime(120_000); // nothing left to flush at the window's end either
    expect(lines).toHaveLength(3);
  });

  it('flushRepeats writes every pending count now and forgets the sites', () => {
    vi.useFakeTimers();
    const lines = capture(false, 60_000);
    for (let i = 0; i < 3; i++) log.error('webhooks', 'worker pass failed', { err: new Error('x') });
    for (let i = 0; i < 2; i++) log.warn('metrics', 'slow', {});
    flushRepeats();
    expect(lines.map((l) => l.line.match(/repeated (\d+) time/)?.[1])).toEqual([undefined, undefined, '2', '1']);
    log.error('webhooks', 'worker pass failed', { err: new Error('x') });
    expect(lines).toHaveLength(5); // written again: the site was forgotten
  });
});
