/**
 * What operators and load balancers need from every process, answered on the raw Node request on
 * any Host (before shop routing; load balancers probe by address):
 *   GET /livez   200 while the process serves requests at all.
 *   GET /readyz  200 when a write commits within 1.5 s (PostgreSQL: a transaction id's commit,
 *                which waits for a synchronous standby like any write; embedded: `select 1`) and
 *                the process is not shutting down; else 503 + Retry-After naming the cause, so the
 *                balancer stops sending it traffic.
 * And, with ACCESS_LOG=1, one JSON line per request on stdout when its response has been sent:
 *   {"t":"…","method":"GET","host":"demo.localhost:8080","path":"/api/ucp/carts/…","status":200,"ms":1.8,"request_id":"…"}
 * (the path without its query string, which can carry credentials such as `ep_auth`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DB } from '../db/index.ts';
import { checkCommits, type Probe } from '../db/commit-probe.ts';
import { flushRepeats, log } from '../lib/log.ts';
import { databaseRecovered } from '../lib/outage.ts';

function answer(res: ServerResponse, status: number, body: object, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

/**
 * Readiness of the database: does a write commit (db/commit-probe.ts)? A failing probe is logged
 * with its cause (the logger counts repeats), and the first success after it says so, once.
 */
function readiness(db: DB) {
  let down: string | undefined;
  return async (): Promise<Probe> => {
    const p = await checkCommits(db);
    if (!p.ok) {
      down = p.cause;
      log.error('readiness', 'not ready: writes do not commit', { cause: p.cause, detail: p.detail });
    } else if (down) {
      flushRepeats();
      log.info('readiness', 'ready again: writes commit', { after: down });
      down = undefined;
    }
    if (p.ok) databaseRecovered('the readiness probe committed');
    return p;
  };
}
/**
 * The probes: returns true when it answered the request. `stopping()` says the process is shutting
 * down (readiness fails first, so traffic moves elsewhere while requests in flight finish).
 */
export function healthProbes(db: DB, stopping: () => boolean) {
  const ready = readiness(db);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (req.url === '/livez') {
      answer(res, 200, { status: 'ok' });
      return true;
    }
    if (req.url !== '/readyz') return false;
    if (stopping()) {
      answer(res, 503, { status: 'stopping' }, { 'Retry-After': '5' });
      return true;
    }
    void ready().then((p) => (p.ok ? answer(res, 200, { status: 'ok' }) : answer(res, 503, { status: p.cause === 'database_unavailable' ? p.cause : 'writes_blocked', cause: p.cause }, { 'Retry-After': '2' })));
    return true;
  };
}

/** Logs the request as one JSON line once its response is finished (ACCESS_LOG=1). */
export function logWhenDone(req: IncomingMessage, res: ServerResponse, write: (line: string) => void = (l) => process.stdout.write(l)): void {
  const start = performance.now();
  res.once('finish', () => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    write(
      `${JSON.stringify({
        t: new Date().toISOString(),
        method: req.method,
        host: req.headers.host,
        path: q < 0 ? url : url.slice(0, q),
        status: res.statusCode,
        ms: Math.round((performance.now() - start) * 10) / 10,
        // UCP's tracing header, when the agent sent one (bounded: it is the client's text).
        ...(typeof req.headers['request-id'] === 'string' ? { request_id: req.headers['request-id'].slice(0, 128) } : {}),
      })}\n`,
    );
  });
}
