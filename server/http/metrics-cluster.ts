/**
 * /metrics under cluster mode (server/cluster.ts): the workers share one port, so a scrape lands on
 * whichever worker the primary hands the connection to, and Prometheus cannot address the others.
 * That worker therefore asks the primary, which gathers every worker's registry (as JSON, over the
 * cluster IPC channel it already has), aggregates them with prom-client's
 * `AggregatorRegistry.aggregate` and answers the sum: one scrape, every worker. Chosen over the
 * primary listening on a port of its own, which would be a second address to secure and to
 * configure in Prometheus, and over per-worker scrapes, which a shared port cannot offer. Counters
 * and histograms add up; gauges say how (server/lib/metrics.ts).
 *
 * A worker dies (issue 39 point 14). Its counters must not vanish from the sum: Prometheus would
 * read a counter reset and show a false rate. So the primary keeps each worker's last answer, and
 * when a worker exits its last counters and histograms move into a "retired" sum that every later
 * scrape adds (its gauges go: they described a process that is gone). Counts the dead worker made
 * after its last answer are lost — a killed process cannot report them — but no series goes down.
 * And a scrape never waits on the dead: a worker that has exited is answered for by its last
 * snapshot at once, and a worker that does not answer within COLLECT_MS (hung, dying) likewise.
 * prom-client's own clusterMetrics() was dropped for this: it knows live workers only and fails the
 * whole scrape after 5 s when one of them does not answer.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { registry } from '../lib/metrics.ts';

const REQUEST = 'ucp:metrics-request';
const ANSWER = 'ucp:metrics-answer';
const COLLECT = 'ucp:metrics-collect';
const SNAPSHOT = 'ucp:metrics-snapshot';
const JOINED = 'ucp:metrics-joined';
/** How long the primary waits for a live worker's registry before using its last one. */
const COLLECT_MS = 800;
/** How long a scraped worker waits for the primary (which answers within COLLECT_MS and a hop). */
const ANSWER_TIMEOUT_MS = 3000;

type Snapshot = Awaited<ReturnType<typeof registry.getMetricsAsJSON>>;
interface Request {
  type: typeof REQUEST | typeof COLLECT | typeof JOINED;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}
interface SnapshotAnswer {
  type: typeof SNAPSHOT;
  id: number;
  metrics?: Snapshot;
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
  process.on('message', (m: Answer | Request) => {
    if (m?.type === COLLECT) {
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: SNAPSHOT, id: m.id, metrics } satisfies SnapshotAnswer),
        () => process.send?.({ type: SNAPSHOT, id: m.id } satisfies SnapshotAnswer), // the primary uses our last one
      );
      return;
    }
    if (m?.type !== ANSWER) return;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.text !== undefined) w?.resolve(m.text);
    else w?.reject(new Error(m.error ?? 'no answer'));
  });
  // From now on the primary may ask us; a worker still starting is not waited for.
  process.send?.({ type: JOINED, id: 0 } satisfies Request);
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

/** Counters and histograms only: what stays meaningful, and must keep adding up, after a process is gone. */
const cumulative = (s: Snapshot): Snapshot => s.filter((m) => String(m.type) === 'counter' || String(m.type) === 'histogram');

/** The primary's memory of the workers: each live one's last snapshot, and the sum of the dead ones'. */
export class ClusterMetrics {
  private last = new Map<number, Snapshot>();
  /** Workers that listen for collection requests (a worker still loading is not asked). */
  private joined = new Set<number>();
  /** Dead workers' counters and histograms: merged into one snapshot now and then, never dropped. */
  private retired: Snapshot[] = [];
  /** Collections waiting on a worker: settled with its last snapshot if it exits first. */
  private pending = new Map<number, Set<() => void>>();
  private nextId = 1;

  /**
   * A worker exited: its last counts join the retired ones, synchronously (a scrape running now
   * must not see them in neither place); anything waiting on it stops waiting.
   */
  retire(workerId: number): void {
    for (const settle of this.pending.get(workerId) ?? []) settle();
    this.pending.delete(workerId);
    this.joined.delete(workerId);
    const last = this.last.get(workerId);
    this.last.delete(workerId);
    if (last) this.retired.push(cumulative(last));
  }

  /** Folds the retired snapshots into one, so a cluster that replaced many workers keeps one. */
  private compacting = false;
  private async compactRetired(): Promise<void> {
    if (this.retired.length < 2 || this.compacting) return;
    this.compacting = true; // one at a time: a second would splice the list under the first
    try {
      const batch = this.retired.length;
      const merged = await AggregatorRegistry.aggregate(this.retired.slice(0, batch)).getMetricsAsJSON();
      this.retired = [merged, ...this.retired.slice(batch)]; // workers retired meanwhile stay after it
    } finally {
      this.compacting = false;
    }
  }

  join(workerId: number): void {
    this.joined.add(workerId);
  }

  /** One worker's registry now, or its last one if it does not answer within COLLECT_MS. */
  private collect(worker: Worker): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      const waits = this.pending.get(worker.id) ?? new Set<() => void>();
      this.pending.set(worker.id, waits);
      const settle = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        waits.delete(settle);
        resolve();
      };
      const onMessage = (m: SnapshotAnswer) => {
        if (m?.type !== SNAPSHOT || m.id !== id) return;
        if (m.metrics) this.last.set(worker.id, m.metrics);
        settle();
      };
      const timer = setTimeout(settle, COLLECT_MS);
      waits.add(settle);
      worker.on('message', onMessage);
      if (worker.isConnected()) worker.send({ type: COLLECT, id } satisfies Request, (err) => err && settle());
      else settle();
    });
  }

  /** Every worker's metrics, live and retired, in Prometheus' text format. */
  async text(): Promise<string> {
    const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && this.joined.has(w.id));
    await Promise.all(live.map((w) => this.collect(w)));
    await this.compactRetired();
    const snapshots = [...this.last.values(), ...this.retired].filter((s) => s.length);
    return AggregatorRegistry.aggregate(snapshots).metrics();
  }
}

/** In the cluster primary: gathers every worker's metrics for the worker that was scraped. */
export function serveClusterMetrics(): ClusterMetrics {
  const metrics = new ClusterMetrics();
  cluster.on('exit', (worker) => metrics.retire(worker.id));
  cluster.on('message', (worker: Worker, m: Request) => {
    if (m?.type === JOINED) metrics.join(worker.id);
    if (m?.type !== REQUEST) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: m.id, ...a } satisfies Answer);
    };
    metrics.text().then(
      (text) => reply({ text }),
      (e: Error) => reply({ error: e.message }),
    );
  });
  return metrics;
}
