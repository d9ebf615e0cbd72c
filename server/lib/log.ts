/**
 * The server's one logger. Every line carries its time:
 *   text (development): `2026-11-27T05:21:34.123Z error [webhooks] worker pass failed: connect ECONNREFUSED`
 *   JSON (ACCESS_LOG=1 or NODE_ENV=production, one object a line, for a log collector):
 *   `{"t":"2026-11-27T05:21:34.123Z","level":"error","scope":"webhooks","msg":"worker pass failed","err":{"message":"…"}}`
 *
 * A failure that repeats (the webhook worker's pass every second while the database is down, one
 * "database unavailable" per request) is written once; further identical lines (same level, scope,
 * message and error text) are counted, and the count is written as one line when the line changes
 * or when the window (60 s) ends: `… (repeated 57 times in the last 60 s)`, JSON `"repeated":57,"window_s":60`.
 * So an outage costs a few lines a minute per failure site, not one a second, and its length can
 * still be read off the log.
 *
 * Written by hand rather than with pino: what it does beyond `JSON.stringify` is the repeat
 * counting, which pino does not do, and the server logs a few lines a minute outside the access log.
 * Lines go through `console.log` (info) and `console.error` (warn, error), so stdout/stderr stay as
 * they were and a test that watches `console.error` still sees them.
 */

export type Level = 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface LogSettings {
  /** One JSON object a line instead of text. */
  json: boolean;
  /** How long identical lines are counted before the count is written (ms). */
  repeatWindowMs: number;
  /** Where a finished line goes (tests replace it). */
  write: (level: Level, line: string) => void;
}

const defaultWrite = (level: Level, line: string) => (level === 'info' ? console.log(line) : console.error(line));
const settings: LogSettings = { json: false, repeatWindowMs: 60_000, write: defaultWrite };

/** Sets the format and window (server start, cluster primary); unset fields keep their value. */
export function configureLog(s: Partial<LogSettings>): void {
  Object.assign(settings, s);
}

/** The settings' defaults again, and no repeats pending (tests). */
export function resetLog(): void {
  for (const r of repeats.values()) clearTimeout(r.timer);
  repeats.clear();
  Object.assign(settings, { json: false, repeatWindowMs: 60_000, write: defaultWrite });
}

/** An error as a log field: its message and code; the stack only for what is not a plain refusal. */
function errorField(e: unknown): Fields {
  if (!(e instanceof Error)) return { message: String(e) };
  const code = (e as { code?: unknown }).code;
  return { message: e.message, ...(code !== undefined ? { code } : {}), ...(e.stack ? { stack: e.stack } : {}) };
}

function render(t: number, level: Level, scope: string, msg: string, fields: Fields | undefined, repeated?: { count: number; seconds: number }): string {
  const time = new Date(t).toISOString();
  const err = fields?.err;
  const rest = fields ? Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'err')) : {};
  if (settings.json) {
    return JSON.stringify({
      t: time,
      level,
      scope,
      msg,
      ...rest,
      ...(err !== undefined ? { err: errorField(err) } : {}),
      ...(repeated ? { repeated: repeated.count, window_s: repeated.seconds } : {}),
    });
  }
  const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
  // A repeat summary names the error by its message; the first line carries the stack, if any.
  const e = err === undefined ? '' : `: ${err instanceof Error ? (repeated ? err.message : (err.stack ?? err.message)) : String(err)}`;
  const tail = repeated ? ` (repeated ${repeated.count} time${repeated.count === 1 ? '' : 's'} in the last ${repeated.seconds} s)` : '';
  return `${time} ${level} [${scope}] ${msg}${extra}${e}${tail}`;
}

interface Repeat {
  /** What makes two lines the same: fields and error text. */
  detail: string;
  count: number;
  since: number;
  last: { level: Level; scope: string; msg: string; fields?: Fields };
  timer: NodeJS.Timeout;
}

/** By level, scope and message: one entry per failure site while it repeats. */
const repeats = new Map<string, Repeat>();
/** Sites remembered at once; past it the oldest is forgotten (its count written first). */
const MAX_SITES = 1000;

function detailOf(fields: Fields | undefined): string {
  if (!fields) return '';
  const err = fields.err;
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return JSON.stringify({ ...fields, err: err instanceof Error ? `${String(code ?? '')} ${err.message}` : err === undefined ? undefined : String(err) });
}

function flush(r: Repeat, now: number): void {
  if (r.count === 0) return;
  const seconds = Math.max(1, Math.round((now - r.since) / 1000));
  const { level, scope, msg, fields } = r.last;
  settings.write(level, render(now, level, scope, msg, fields, { count: r.count, seconds }));
}

function arm(key: string, r: Repeat): void {
  r.timer = setTimeout(() => {
    const now = Date.now();
    // The window ended: its count is written; a site that stayed quiet is forgotten.
    if (r.count === 0) {
      repeats.delete(key);
      return;
    }
    flush(r, now);
    r.count = 0;
    r.since = now;
    arm(key, r);
  }, settings.repeatWindowMs);
  r.timer.unref();
}

function emit(level: Level, scope: string, msg: string, fields?: Fields): void {
  const now = Date.now();
  const key = `${level}\u0000${scope}\u0000${msg}`;
  const detail = detailOf(fields);
  const r = repeats.get(key);
  if (r && r.detail === detail) {
    r.count++;
    r.last = { level, scope, msg, fields };
    return;
  }
  if (r) {
    // The same site says something else now: the old line's count first, then the new line.
    clearTimeout(r.timer);
    flush(r, now);
    repeats.delete(key);
  } else if (repeats.size >= MAX_SITES) {
    const [oldKey, old] = repeats.entries().next().value!;
    clearTimeout(old.timer);
    flush(old, now);
    repeats.delete(oldKey);
  }
  settings.write(level, render(now, level, scope, msg, fields));
  const entry: Repeat = { detail, count: 0, since: now, last: { level, scope, msg, fields }, timer: undefined as never };
  repeats.set(key, entry);
  arm(key, entry);
}

/**
 * Writes every pending repeat count now (and forgets those sites), instead of at the end of their
 * window: on a recovery (the database reachable again), so the outage's last count is in the log
 * before the line saying it is over, not up to a window later (issue 39 point 17).
 */
export function flushRepeats(): void {
  const now = Date.now();
  for (const [key, r] of repeats) {
    clearTimeout(r.timer);
    flush(r, now);
    repeats.delete(key);
  }
}

/**
 * `log.error('webhooks', 'worker pass failed', { err })`: scope names the part of the server,
 * msg is a fixed text (variable parts go in fields, so repeats are recognised), `err` an Error.
 */
export const log = {
  info: (scope: string, msg: string, fields?: Fields) => emit('info', scope, msg, fields),
  warn: (scope: string, msg: string, fields?: Fields) => emit('warn', scope, msg, fields),
  error: (scope: string, msg: string, fields?: Fields) => emit('error', scope, msg, fields),
  /** A line written as it is, timestamped, never counted (the startup banner). */
  plain(line: string): void {
    const t = new Date().toISOString();
    settings.write('info', settings.json ? JSON.stringify({ t, level: 'info', msg: line }) : `${t} ${line}`);
  },
};
