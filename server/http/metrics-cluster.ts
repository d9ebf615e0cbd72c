/**
 * /metrics under cluster mode (server/cluster.ts): the workers share one port, so a scrape lands on
 * whichever worker the primary hands the connection to, and Prometheus cannot address the others.
 * That worker therefore asks the primary, which gathers every worker's registry with prom-client's
 * AggregatorRegistry (over the cluster IPC channel it already has) and answers the sum: one scrape,
 * every worker. Chosen over the primary listening on a port of its own, which would be a second
 * address to secure and to configure in Prometheus, and over per-worker scrapes, which a shared
 * port cannot offer. Counters and histograms add up; gauges say how (server/lib/metrics.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { registry } from '../lib/metrics.ts';

const REQUEST = 'ucp:metrics-request';
const ANSWER = 'ucp:metrics-answer';
/** prom-client gives each worker 5 s; this leaves room for that and the hop back. */
const ANSWER_TIMEOUT_MS = 6000;

interface Request {
  type: typeof REQUEST;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

let joined = false;
let nextId = 1;
const waiting = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();

/**
 * In a cluster worker: answer the primary's collection requests from this process's registry, and
 * take the primary's answers to our own. A no-op elsewhere (npm start, tests).
 */
export function joinClusterMetrics(): void {
  if (joined || !cluster.isWorker) return;
  joined = true;
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // installs prom-client's worker-side listener
  process.on('message', (m: Answer) => {
    if (m?.type !== ANSWER) return;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.text !== undefined) w?.resolve(m.text);
    else w?.reject(new Error(m.error ?? 'no answer'));
  });
}

/** Every worker's metrics, aggregated by the primary; undefined outside a cluster worker. */
export function clusterMetricsText(): Promise<string> | undefined {
  if (!joined || !process.send) return undefined;
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the cluster primary did not answer within ${ANSWER_TIMEOUT_MS} ms`));
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, {
      resolve: (t) => (clearTimeout(timer), resolve(t)),
      reject: (e) => (clearTimeout(timer), reject(e)),
    });
    process.send!({ type: REQUEST, id } satisfies Request);
  });
}

/** In the cluster primary: gathers every worker's metrics for the worker that was scraped. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, m: Request) => {
    if (m?.type !== REQUEST) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: m.id, ...a } satisfies Answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (e: Error) => reply({ error: e.message }),
    );
  });
}
