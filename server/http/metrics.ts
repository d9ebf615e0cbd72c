/**
 * Prometheus metrics at the HTTP edge (docs/deploy.md "Metrics"):
 * - every request is timed and counted on the raw Node request (`observeRequest`, from the request
 *   listener in server/app.ts), so the discovery fast path, body-limit refusals and errors count
 *   like the rest, with the status that was actually sent;
 * - its operation label is named by whoever routed it (`nameRoute`: the Hono route template;
 *   `nameOperation`: the MCP method and tool). A raw path or id never becomes a label: a request
 *   nobody named is `unmatched`, so the series stay bounded whatever clients send;
 * - the transport is read off the path's first segment;
 * - `ucp_requests_total` also says which UCP version answered (`nameVersion`, told by the REST access
 *   middleware and the MCP dispatcher once negotiation decided it): one of the served versions, or
 *   `none` (discovery, non-UCP routes, refusals before negotiation), so the label stays bounded;
 * - the gauges (database load, search indexes, webhook queue) are read when scraped.
 * `GET /metrics` on the platform's address answers the registry (server/platform.ts mounts
 * `metricsHandler`); under cluster mode, every worker's (metrics-cluster.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { collectDefaultMetrics, Histogram, type Counter } from 'prom-client';
import { databaseLoad, groupCommitSizes, type DB } from '../db/index.ts';
import { searchIndexStats } from '../core/search/catalog-index.ts';
import { pendingDeliveries } from '../core/orders/webhooks.ts';
import { safeEqual } from '../lib/crypto.ts';
import { BATCH_BUCKETS, webhookAttempts, rateLimitedTotal, registry, requestDuration, requestsTotal, scrapedCounter, scrapedGauge } from '../lib/metrics.ts';
import { log } from '../lib/log.ts';
import type { AppEnv } from './env.ts';
import { UCP_VERSIONS } from '../version.ts';
import { failures } from './db-bucket-store.ts';
import type { BucketPolicy } from './rate-limit.ts';
import { clusterMetricsText, joinClusterMetrics } from './metrics-cluster.ts';

const TRANSPORTS = ['rest', 'mcp', 'graphql', 'merchant', 'oauth', 'other'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** The transport a path belongs to: string prefixes only, no parsing, no allocation. */
export function transportOf(url: string): Transport {
  if (url.startsWith('/api/ucp') || url.startsWith('/.well-known/ucp')) return 'rest';
  if (url.startsWith('/mcp') && (url.length === 4 || url[4] === '?' || url[4] === '/')) return 'mcp';
  if (url.startsWith('/graphql')) return 'graphql';
  if (url.startsWith('/merchants/')) return 'merchant';
  if (url.startsWith('/oauth2/') || url.startsWith('/.well-known/oauth-authorization-server')) return 'oauth';
  return 'other';
}

/**
 * One request's measurement. Kept beside the request (a WeakMap), not written onto it: a property
 * added to Node's IncomingMessage changes its shape, and every later read of the request's fields
 * (the router's, Hono's) would pay for that.
 */
interface Meter {
  start: number;
  route: string | undefined;
  /** `route` is a whole operation name (MCP), not a template to prefix with the method. */
  whole: boolean;
  /** Calls inside this request refused for a budget (an MCP batch answers 200 around them). */
  limited: number;
  /** The UCP version that answered (a served one), else undefined → `none`. */
  version: string | undefined;
}
const meters = new WeakMap<IncomingMessage, Meter>();

/** One label set's children, bound once: a request then costs two map lookups and two updates. */
class Series {
  readonly duration: Histogram.Internal<'transport' | 'operation'>;
  /** version → status → counter. */
  private readonly statuses = new Map<string, Map<number, Counter.Internal>>();
  constructor(
    private readonly transport: Transport,
    private readonly operation: string,
  ) {
    this.duration = requestDuration.labels(transport, operation);
  }
  status(code: number, version = 'none'): Counter.Internal {
    let byStatus = this.statuses.get(version);
    if (!byStatus) this.statuses.set(version, (byStatus = new Map()));
    let c = byStatus.get(code);
    if (!c) byStatus.set(code, (c = requestsTotal.labels(this.transport, this.operation, String(code), version)));
    return c;
  }
}

/** The values the version label may take (anything else is `none`): bounded whatever a caller sends. */
const VERSION_LABELS: ReadonlySet<string> = new Set(UCP_VERSIONS);

/** transport → method ('' for whole names) → route → series. */
const table = new Map<Transport, Map<string, Map<string, Series>>>();
const limited = new Map<Transport, Counter.Internal>();

function seriesFor(transport: Transport, method: string, route: string): Series {
  let byMethod = table.get(transport);
  if (!byMethod) table.set(transport, (byMethod = new Map()));
  let byRoute = byMethod.get(method);
  if (!byRoute) byMethod.set(method, (byRoute = new Map()));
  let s = byRoute.get(route);
  if (!s) byRoute.set(route, (s = new Series(transport, method ? `${method} ${route}` : route)));
  return s;
}

/**
 * The methods an operation label names as they are; Node parses 34 (PROPFIND, M-SEARCH, …) and any
 * client may send them, so every other one is `other`: a sweep of methods adds one series per route,
 * not 27 (issue 39 point 6). CONNECT never gets here (Node hands it to the server's 'connect'
 * event, which this server does not serve); TRACE is answered like any unknown method, so `other`.
 */
const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const methodLabel = (method: string | undefined) => (method && STANDARD_METHODS.has(method) ? method : 'other');

function finished(req: IncomingMessage, res: ServerResponse, m: Meter): void {
  const seconds = (performance.now() - m.start) / 1000;
  const transport = transportOf(req.url ?? '');
  const route = m.route;
  const s = route === undefined ? seriesFor(transport, '', 'unmatched') : seriesFor(transport, m.whole ? '' : methodLabel(req.method), route);
  s.duration.observe(seconds);
  const code = res.statusCode;
  s.status(code, m.version).inc();
  // A 429 answer is one refusal; an answer holding refused calls (an MCP batch) is as many.
  const refused = Math.max(code === 429 ? 1 : 0, m.limited);
  if (refused) limitedCounter(transport).inc(refused);
}

function limitedCounter(transport: Transport): Counter.Internal {
  let c = limited.get(transport);
  if (!c) limited.set(transport, (c = rateLimitedTotal.labels(transport)));
  return c;
}

/** Probes and the scrape itself are not traffic. */
const UNCOUNTED = new Set(['/livez', '/readyz', '/metrics']);

/** Times and counts this request once its response has been sent. */
export function observeRequest(req: IncomingMessage, res: ServerResponse): void {
  if (UNCOUNTED.has(req.url ?? '')) return;
  const m: Meter = { start: performance.now(), route: undefined, whole: false, limited: 0, version: undefined };
  meters.set(req, m);
  res.on('finish', () => finished(req, res, m)); // a response finishes once: no `once` wrapper
}

/**
 * The route template that answered (Hono's `routePath`), unless something nearer the handler named
 * the operation already: called after the handler, innermost first.
 */
export function nameRoute(incoming: IncomingMessage | undefined, template: string): void {
  const m = incoming && meters.get(incoming);
  if (m && m.route === undefined) m.route = template;
}

/** A whole operation name (MCP: `tools/call search_catalog`), from a bounded set. */
export function nameOperation(incoming: IncomingMessage | undefined, operation: string): void {
  const m = incoming && meters.get(incoming);
  if (!m) return;
  m.route = operation;
  m.whole = true;
}

/** The UCP version this request was answered in (ucp_requests_total's `version` label); only served versions count. */
export function nameVersion(incoming: IncomingMessage | undefined, version: string): void {
  const m = incoming && meters.get(incoming);
  if (m && VERSION_LABELS.has(version)) m.version = version;
}

/** One call inside this request was refused for a budget (counted in ucp_rate_limited_total when it finishes). */
export function countRateLimited(incoming: IncomingMessage | undefined): void {
  const m = incoming && meters.get(incoming);
  if (m) m.limited++;
}

/** The incoming Node request behind a Hono context (undefined outside the Node adapter). */
export function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/* ------------------------------------------------------------------ gauges read when scraped */

const watched = new Set<DB>();
/** Commits per flush already observed, per database and size (the worker's counts are cumulative). */
const commitSeen = new WeakMap<DB, Map<number, number>>();
/** The last webhook queue length read, kept while the database does not answer. */
let lastPending = 0;
const SCRAPE_QUERY_MS = 1000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${SCRAPE_QUERY_MS} ms`)), SCRAPE_QUERY_MS)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

let defined = false;
function defineGauges(): void {
  if (defined) return;
  defined = true;
  collectDefaultMetrics({ register: registry });
  joinClusterMetrics();
  // Series an alert divides or rates exist from the start at 0, not from their first event.
  for (const t of TRANSPORTS) limitedCounter(t).inc(0);
  for (const r of ['delivered', 'retry', 'failed']) webhookAttempts.labels(r).inc(0);
  scrapedGauge('ucp_db_pool_in_use', 'PostgreSQL: pool connections checked out. Embedded: 1 while its one connection runs a statement or a transaction holds it.', function () {
    this.set([...watched].reduce((n, db) => n + databaseLoad(db).inUse, 0));
  });
  scrapedGauge('ucp_db_pool_waiting', 'PostgreSQL: requests waiting for a pool connection. Embedded: queries and transactions queued for the one connection.', function () {
    this.set([...watched].reduce((n, db) => n + databaseLoad(db).waiting, 0));
  });
  scrapedGauge('ucp_search_index_bytes', 'Estimated bytes of the in-memory search indexes of this process.', function () {
    this.set(searchIndexStats().bytes);
  });
  scrapedGauge('ucp_search_index_shops', 'Shops with an in-memory search index in this process.', function () {
    this.set(searchIndexStats().shops);
  });
  scrapedCounter('ucp_search_index_evictions_total', 'Search indexes evicted to stay within the memory budget (rebuilt when next searched).', () => searchIndexStats().evictions);
  scrapedGauge(
    'ucp_webhook_deliveries_pending',
    'Webhook deliveries waiting for an attempt, every shop\'s (read from the database: the same in every worker).',
    async function () {
      try {
        let n = 0;
        for (const db of watched) n += await withTimeout(pendingDeliveries(db));
        lastPending = n;
      } catch (err) {
        log.warn('metrics', 'webhook queue length unavailable; the last value is reported', { err });
      }
      this.set(lastPending);
    },
    { aggregator: 'max' },
  );
  // Observed when scraped: the embedded database's thread counts its flushes by size (cumulative);
  // what is new since the last scrape is observed here, so its hot path posts nothing.
  new Histogram({
    name: 'ucp_db_group_commit_size',
    help: 'Commits acknowledged per disk flush by the embedded database\'s durable group commit (server/db/pglite-durable.mjs; none in memory or on PostgreSQL).',
    buckets: BATCH_BUCKETS,
    registers: [registry],
    async collect() {
      for (const db of watched) {
        const sizes = await withTimeout(groupCommitSizes(db)).catch(() => []);
        let seen = commitSeen.get(db);
        if (!seen) commitSeen.set(db, (seen = new Map()));
        for (const [size, flushes] of sizes) {
          for (let i = seen.get(size) ?? 0; i < flushes; i++) this.observe(size);
          seen.set(size, flushes);
        }
      }
    },
  });
}

/** Includes this database in the gauges until the returned function is called (server close). */
export function watchDatabase(db: DB): () => void {
  defineGauges();
  watched.add(db);
  return () => void watched.delete(db);
}

/* ------------------------------------------------------------------ GET /metrics */

/**
 * Wrong metrics tokens allowed per client address before throttling (as the OAuth token endpoint's
 * TOKEN_FAILURES_PER_ADDRESS): 20, then one more every 6 s. Only a wrong token spends it (a missing
 * one is a misconfigured scraper, not a guess); while it is spent the address is answered 429 +
 * Retry-After whatever it sends, so guessing cannot go on, and Prometheus on another address is
 * never refused because of someone else's guesses.
 */
export const METRICS_TOKEN_FAILURES = { capacity: 20, refillPerSecond: 1 / 6 };

/** The bearer check of /metrics: undefined when the token is right, else the answer (401 or 429). */
async function checkMetricsToken(c: Context<AppEnv>, token: string): Promise<Response | undefined> {
  const budgets: Array<[string, BucketPolicy]> = [[`metrics-from:${c.get('client')}`, METRICS_TOKEN_FAILURES]];
  // On PostgreSQL the budget is a table: during a database outage the scrape must still answer (the
  // outage is what the operator is looking at), so the budget is skipped then; a token of production
  // length (MIN_METRICS_TOKEN_LENGTH) is not guessed in an outage's worth of tries.
  const spend = (f: () => Promise<number | void>) =>
    f().catch((err: unknown) => {
      log.warn('metrics', 'token failure budget unavailable', { err });
      return 0;
    });
  c.header('Cache-Control', 'no-store');
  const wait = await spend(() => failures.wait(c.get('db'), budgets));
  if (wait) {
    c.header('Retry-After', String(wait));
    return c.json({ error: 'too_many_requests', error_description: `Too many wrong metrics tokens from this address. Try again in ${wait} seconds.` }, 429);
  }
  const sent = /^Bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
  if (sent && safeEqual(sent, token)) return undefined;
  if (sent) await spend(() => failures.fail(c.get('db'), budgets));
  c.header('WWW-Authenticate', sent ? 'Bearer realm="metrics", error="invalid_token"' : 'Bearer realm="metrics"');
  return c.json({ error: sent ? 'invalid_token' : 'unauthorized', error_description: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' }, 401);
}

/**
 * `GET /metrics` (platform address only). With METRICS_TOKEN set, `Authorization: Bearer <token>`
 * is required (compared in constant time); in production without METRICS_TOKEN the endpoint does
 * not exist (404), so a deployment exposes nothing it did not choose to. Development without a
 * token: open, for a local Prometheus or curl.
 */
export async function metricsHandler(c: Context<AppEnv>): Promise<Response> {
  const config = c.get('config');
  const token = config.metricsToken;
  if ((!token && config.mode === 'production') || config.metrics === false) return c.notFound();
  if (token) {
    const refused = await checkMetricsToken(c, token);
    if (refused) return refused;
  }
  let text: string;
  try {
    text = (await clusterMetricsText()) ?? (await registry.metrics());
  } catch (err) {
    log.error('metrics', 'scrape failed', { err });
    c.header('Retry-After', '5');
    return c.json({ error: 'unavailable', error_description: 'The metrics could not be gathered; try again.' }, 503);
  }
  return c.body(text, 200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
}
