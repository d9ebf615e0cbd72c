/**
 * A background worker that polls the database (webhook deliveries, scheduled feeds): one pass at a
 * time (a pass asked for while one runs gets that one), a timer that starts passes and skips them
 * while writes are refused (db/write-gate.ts: a claim is a write), and a stop that aborts `signal`
 * and waits for the pass under way.
 */
import { log } from '../lib/log.ts';
import { writeGateOf, type DB } from './index.ts';

export interface PollingWorker {
  /** One pass; resolves with what it did (the pass's own count). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
  /** Aborted when the worker stops: passes hand it to what they wait on. */
  readonly signal: AbortSignal;
}

export function pollingWorker(db: DB, name: string, everyMs: number, pass: (signal: AbortSignal) => Promise<number>): PollingWorker {
  const stopping = new AbortController();
  let current: Promise<number> | null = null;
  const runOnce = (): Promise<number> => (current ??= pass(stopping.signal).finally(() => (current = null)));
  const timer = setInterval(() => {
    if (stopping.signal.aborted || writeGateOf(db)?.stalled) return;
    runOnce().catch((e) => log.error(name, 'worker pass failed', { err: e }));
  }, everyMs);
  timer.unref();
  return {
    runOnce,
    signal: stopping.signal,
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await current?.catch(() => {});
    },
  };
}
