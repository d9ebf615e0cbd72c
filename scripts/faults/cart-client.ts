/**
 * One load-generating client process of the failover scenario (scenarios-failover.ts): creates
 * carts on the demo shop through the given server ports in turn, one request at a time per
 * worker, each bounded by a timeout, until its stdin closes; then prints one JSON report on stdout:
 * every answer's time, port and status, and the ids of the carts acknowledged with a 201. Its
 * first acknowledged cart is announced on stderr (`acknowledged`), so the parent knows it runs.
 *
 *   tsx scripts/faults/cart-client.ts PORT[,PORT...] [WORKERS] [TIMEOUT_MS]
 */
import { CART_BODY, send } from './lib.ts';

export interface ClientReport {
  /** [epoch ms when answered, port, status (0: no answer in time), Retry-After present (0/1)] */
  answers: [number, number, number, number][];
  /** Ids of carts acknowledged with 201, with the time of the answer. */
  acked: [string, number][];
}

const ports = (process.argv[2] ?? '').split(',').map(Number).filter(Boolean);
const workers = Number(process.argv[3] ?? 2);
const timeoutMs = Number(process.argv[4] ?? 5000);
if (!ports.length) {
  console.error('usage: cart-client.ts PORT[,PORT...] [WORKERS] [TIMEOUT_MS]');
  process.exit(2);
}

let stopping = false;
process.stdin.on('end', () => (stopping = true)).resume();
const report: ClientReport = { answers: [], acked: [] };

async function worker(w: number): Promise<void> {
  for (let i = w; !stopping; i++) {
    const port = ports[i % ports.length];
    const r = await send(port, 'demo.localhost', 'POST', '/api/ucp/carts', CART_BODY, {}, timeoutMs);
    const at = Date.now();
    report.answers.push([at, port, r.status, r.headers['retry-after'] ? 1 : 0]);
    if (r.status === 201 && typeof r.body?.id === 'string') {
      if (!report.acked.length) process.stderr.write('acknowledged\n'); // the parent starts its clock
      report.acked.push([r.body.id, at]);
    }
    // A refused answer comes back at once: pace the retries the way a client honouring Retry-After would, but faster.
    if (r.status !== 201) await new Promise((res) => setTimeout(res, 50));
  }
}

await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
process.stdout.write(JSON.stringify(report));
