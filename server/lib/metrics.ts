/**
 * The process's Prometheus metrics (prom-client), defined once here so every layer can count into
 * them without importing HTTP: the database layer observes group-insert sizes, the webhook worker
 * counts attempts, the HTTP edge times requests (server/http/metrics.ts), and the gauges read their
 * values when scraped (collect callbacks registered by server/http/metrics.ts). docs/deploy.md lists
 * them with the alerts worth having.
 *
 * Under cluster mode every worker has its own registry; a scrape of any worker is answered with all
 * of them aggregated by the primary (server/http/metrics-cluster.ts). Each metric says how: counters
 * and histograms add up, per-process gauges add up, database-wide gauges (the webhook queue) take
 * the largest worker's answer rather than counting the same rows once per worker.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

/** Request latency buckets (s): from a cached search (~1 ms) to a slow write under load. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Rows or commits per group write: powers of two up to the largest batch (coalesced-insert's 64). */
export const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export const requestsTotal = new Counter({
  name: 'ucp_requests_total',
  help: 'Requests answered, by transport (rest, mcp, graphql, merchant, oauth, other), operation (route template, MCP method and tool), HTTP status and the UCP version that answered (2026-04-08, 2026-08-25; none outside a negotiated UCP operation).',
  labelNames: ['transport', 'operation', 'status', 'version'] as const,
  registers: [registry],
});

export const requestDuration = new Histogram({
  name: 'ucp_request_duration_seconds',
  help: 'Time from the request reaching the server to the last byte of its response, by transport and operation.',
  labelNames: ['transport', 'operation'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const rateLimitedTotal = new Counter({
  name: 'ucp_rate_limited_total',
  help: 'Requests refused with 429 (per-client budgets, GraphQL and OAuth limits, sign-in lockouts), by transport.',
  labelNames: ['transport'] as const,
  registers: [registry],
});

export const groupInsertRows = new Histogram({
  name: 'ucp_db_group_insert_rows',
  help: 'Rows per group insert statement (server/db/coalesced-insert.ts; 1 = the row went alone).',
  labelNames: ['table'] as const,
  buckets: BATCH_BUCKETS,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'ucp_webhook_attempts_total',
  help: 'Webhook delivery attempts by result: delivered, retry (failed, will be tried again), failed (failed for good after the last attempt).',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** Gauges whose value is read when scraped; `collect` is set by server/http/metrics.ts. */
export function scrapedGauge<L extends string>(
  name: string,
  help: string,
  collect: (this: Gauge<L>) => void | Promise<void>,
  opts: { labelNames?: readonly L[]; aggregator?: 'sum' | 'max' } = {},
): Gauge<L> {
  return new Gauge<L>({ name, help, labelNames: opts.labelNames ?? [], aggregator: opts.aggregator ?? 'sum', registers: [registry], collect });
}

/** A counter whose total is read when scraped (a running count kept elsewhere). */
export function scrapedCounter(name: string, help: string, total: () => number): Counter {
  let seen = 0;
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      // A source that started again (a closed and reopened database in tests) counts from zero.
      if (now > seen) this.inc(now - seen);
      seen = now;
    },
  });
}
