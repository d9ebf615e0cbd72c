/**
 * Database outages as the log tells them (issue 39 point 17): every request answered 503 because
 * the database could not be reached is logged where it was answered (the logger counts repeats:
 * one line, then its count), and the end of the outage is one line, written as soon as the
 * database answers again — a new connection made, or the readiness probe's commit going through —
 * after the outage's last repeat counts, so the log reads in order: the failure, how many times,
 * the recovery and how long it lasted.
 */
import { flushRepeats, log } from './log.ts';

let since: number | undefined;
let answered503 = 0;

/** A request was answered 503 because of `err` (a database failure, core/shared/errors.ts isUnavailable). */
export function requestUnavailable(edge: string, err: unknown): void {
  since ??= Date.now();
  answered503++;
  log.error(edge, 'database unavailable: answered 503', { err });
}

/** The database answered again (`how`: what showed it). Logs the recovery once per outage. */
export function databaseRecovered(how: string, fields: Record<string, unknown> = {}): void {
  if (since === undefined) return;
  flushRepeats();
  log.info('db', 'database reachable again', { how, ...fields, outage_s: Math.round((Date.now() - since) / 100) / 10, requests_answered_503: answered503 });
  since = undefined;
  answered503 = 0;
}

/** Is an outage open (a 503 logged, no recovery since)? */
export const inOutage = () => since !== undefined;
