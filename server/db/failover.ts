/**
 * The connect step of the PostgreSQL pool: libpq's multi-host rule for node-postgres, which has
 * none of its own. Each new pooled connection goes to the host the pool last found acceptable
 * (`target_session_attrs`, hosts.ts); when there is none, one probe pass tries the hosts in the
 * order written, starting from the last good one, and keeps the first that accepts a connection
 * and, for `read-write`/`primary`, reports it is writable. So after a standby is promoted the
 * running processes reach it by themselves: no restart, no settings change (docs/deploy.md).
 *
 * Differences from libpq, on purpose: a process stays on the host it found until that host fails
 * (libpq goes back to the first host for every connection, which after a failover can be an old
 * primary brought back unfenced); and a connection whose server refuses a write as read-only
 * (25006: a demoted primary, `default_transaction_read_only`) is dropped from the pool on release
 * and the host forgotten, where libpq only checks when it connects.
 *
 * While no host qualifies, connecting fails at once with a class 08 error, which every edge
 * answers 503 + Retry-After (core/shared/errors.ts isUnavailable); the pool's connection timeout bounds
 * the wait.
 */
import pg from 'pg';
import { log } from '../lib/log.ts';
import { hostLabel, parseDatabaseUrl, type DatabaseTarget, type HostPort, type SessionAttrs } from './hosts.ts';

/** After a probe pass found no host, connections fail with its error for this long, then probe again. */
const PROBE_HOLD_MS = 250;

/** What a server reported about itself at startup (PostgreSQL 14+ reports both; older ones are asked). */
type Reported = Map<string, string>;

function listenForStatus(client: pg.Client): Reported {
  const reported: Reported = new Map();
  client.connection.on('parameterStatus', (m: { parameterName: string; parameterValue: string }) => reported.set(m.parameterName, m.parameterValue));
  return reported;
}

/** Why this server does not qualify for `attrs`, or null when it does. */
async function refusal(client: pg.Client, reported: Reported, attrs: SessionAttrs): Promise<string | null> {
  if (attrs === 'any') return null;
  let standby = reported.get('in_hot_standby');
  let readOnly = reported.get('default_transaction_read_only');
  if (standby === undefined || readOnly === undefined) {
    const { rows } = await client.query<{ standby: boolean; read_only: string }>("select pg_is_in_recovery() as standby, current_setting('default_transaction_read_only') as read_only");
    standby = rows[0].standby ? 'on' : 'off';
    readOnly = rows[0].read_only;
  }
  if (standby === 'on') return 'a standby (in recovery)';
  if (attrs === 'read-write' && readOnly === 'on') return 'read-only (default_transaction_read_only = on)';
  return null;
}

/** Points a not yet connected client at `h` (node-postgres reads host and port when it connects). */
function aim(client: pg.Client, h: HostPort): void {
  const c = client as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
  c.host = c.connectionParameters.host = h.host;
  c.port = c.connectionParameters.port = h.port;
}

/** A failed connect, as libpq words it: class 08, so the edges answer 503 + Retry-After. */
function unableToConnect(message: string): Error {
  return Object.assign(new Error(message), { code: '08001' });
}

/** Which host new connections go to; shared by one pool's connections. */
export class HostSelector {
  #good: number | undefined;
  /** Where the next probe pass starts: the last good host. */
  #start = 0;
  #pass: Promise<HostPort> | undefined;
  #failed: { at: number; error: Error } | undefined;
  /** The host last chosen, kept when it is forgotten: a different one chosen later is a failover. */
  #chosen: number | undefined;

  constructor(
    readonly target: DatabaseTarget,
    private readonly clientConfig: pg.ClientConfig,
    private readonly probeTimeoutMs: number,
  ) {}

  /** The host for a new connection: the last good one, the only one, or the first a probe pass accepts. */
  pick(): Promise<HostPort | undefined> {
    const { hosts } = this.target;
    if (hosts.length <= 1) return Promise.resolve(hosts[0]);
    if (this.#good !== undefined) return Promise.resolve(hosts[this.#good]);
    if (this.#failed && Date.now() - this.#failed.at < PROBE_HOLD_MS) return Promise.reject(this.#failed.error);
    this.#pass ??= this.#probe().finally(() => (this.#pass = undefined));
    return this.#pass;
  }

  /** `h` failed (refused, timed out, read-only): the next connection probes again. */
  forget(h: HostPort | undefined): void {
    if (this.#good !== undefined && h && this.target.hosts[this.#good].host === h.host && this.target.hosts[this.#good].port === h.port) this.#good = undefined;
  }

  async #probe(): Promise<HostPort> {
    const { hosts, sessionAttrs } = this.target;
    const reasons: string[] = [];
    for (let k = 0; k < hosts.length; k++) {
      const i = (this.#start + k) % hosts.length;
      const why = await this.#check(hosts[i], sessionAttrs);
      if (why === null) {
        // A host other than the last one chosen: after a failover, the operator reads where writes go now.
        if (this.#chosen !== undefined && this.#chosen !== i) {
          log.info('db', `PostgreSQL host ${hostLabel(hosts[i])} is now ${sessionAttrs === 'any' ? 'the one answering' : `the ${sessionAttrs} host`}`, { host: hostLabel(hosts[i]), previous: hostLabel(hosts[this.#chosen]) });
        }
        this.#good = this.#start = this.#chosen = i;
        this.#failed = undefined;
        return hosts[i];
      }
      reasons.push(`${hostLabel(hosts[i])} ${why}`);
    }
    const error = unableToConnect(`no PostgreSQL host is ${sessionAttrs === 'any' ? 'accepting connections' : sessionAttrs}: ${reasons.join('; ')}`);
    this.#failed = { at: Date.now(), error };
    throw error;
  }

  async #check(h: HostPort, attrs: SessionAttrs): Promise<string | null> {
    const client = new pg.Client({ ...this.clientConfig, connectionTimeoutMillis: this.probeTimeoutMs });
    client.on('error', () => {}); // a probe that loses its server just reports it below
    const reported = listenForStatus(client);
    aim(client, h);
    try {
      await client.connect();
      return await refusal(client, reported, attrs);
    } catch (e) {
      return `failed (${(e as Error).message})`; // refused, timed out, or turned us away (authentication)
    } finally {
      await client.end().catch(() => {});
    }
  }
}

type ConnectCallback = (err: Error | null) => void;

/**
 * The `Client` class for `new pg.Pool({ Client })`: connects where `selector` says, checks the
 * server qualifies, and hands the pool an error on release once its server refused a write as
 * read-only, so the pool drops it instead of reusing it.
 *
 * `queryTimeoutMs` (0: none): a statement unanswered that long closes its connection. A host that
 * stops answering without closing the TCP connection (a partition, a frozen VM) otherwise holds the
 * statement until the OS gives up on the socket (TCP keepalive: ~11 minutes with Linux defaults;
 * Node cannot shorten its probe interval or set TCP_USER_TIMEOUT). Closing the connection rather
 * than only failing the statement (node-postgres's own `query_timeout`) matters: that connection's
 * next statement would queue behind the lost one and the pool would keep lending it out. The
 * statement fails as a lost connection (503 + Retry-After), the host is forgotten (the next
 * connection probes the hosts again: a promoted standby is found), and the pool drops the client.
 * Client-side on purpose: a server-side `statement_timeout` cannot fire on a host that is gone.
 */
export function failoverClient(selector: HostSelector, queryTimeoutMs = 0): typeof pg.Client {
  return class FailoverClient extends pg.Client {
    #reported = listenForStatus(this);
    #readOnly = false;
    #silent = false;
    #host: HostPort | undefined;
    #release: ((err?: Error | boolean) => void) | undefined;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.connection.on('errorMessage', (m: { code?: string }) => {
        if (m.code !== '25006') return;
        this.#readOnly = true;
        selector.forget(this.#host);
      });
    }

    // pg-pool assigns each checkout its own `release(err?)`; with an error it removes the client.
    set release(fn: (err?: Error | boolean) => void) {
      this.#release = fn;
    }
    get release(): (err?: Error | boolean) => void {
      return (err) => this.#release?.(err ?? (this.#readOnly ? new Error('the server became read-only') : this.#silent ? new Error('the server stopped answering') : undefined));
    }

    // Every statement Kysely and the connect-time checks run is promise-style and passes here; a
    // submittable (cursor, stream) or a callback-style call returns no promise and is not timed.
    override query(...args: any[]): any {
      const pending = (super.query as (...a: any[]) => any)(...args);
      if (!queryTimeoutMs || typeof pending?.then !== 'function') return pending;
      const timer = setTimeout(() => {
        this.#silent = true;
        selector.forget(this.#host);
        this.connection.stream.destroy(); // fails `pending` (and anything queued) as a lost connection
      }, queryTimeoutMs);
      const done = () => clearTimeout(timer);
      pending.then(done, done);
      return pending;
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
      const done = this.#connect();
      if (!callback) return done.then(() => this);
      done.then(() => callback(null), callback);
    }

    async #connect(): Promise<void> {
      const stream = this.connection.stream;
      // The pool's connection timeout destroys the stream, also while the host is being chosen.
      let onClose = () => {};
      const closed = new Promise<never>((_, reject) => (onClose = () => reject(new Error('Connection terminated due to connection timeout'))));
      stream.once('close', onClose);
      try {
        this.#host = await Promise.race([selector.pick(), closed]);
      } finally {
        stream.off('close', onClose);
      }
      if (stream.destroyed) throw new Error('Connection terminated due to connection timeout');
      if (this.#host) aim(this, this.#host);
      try {
        await super.connect();
      } catch (e) {
        selector.forget(this.#host);
        throw e;
      }
      // The pool forgets a client whose connect failed without closing it: close it here.
      const why = await refusal(this, this.#reported, selector.target.sessionAttrs).catch(async (e: unknown) => {
        await this.end().catch(() => {});
        throw e;
      });
      if (why !== null) {
        selector.forget(this.#host);
        await this.end().catch(() => {});
        throw unableToConnect(`PostgreSQL host ${this.#host ? hostLabel(this.#host) : ''} is ${why}`);
      }
    }
  };
}

/**
 * The pool's connection settings for DATABASE_URL: node-postgres's one-host URL, the failover
 * Client, TCP keepalive (an idle pooled connection to a host that vanished without a word is found
 * dead by the OS eventually rather than never). A URL that cannot work throws ConfigError (hosts.ts).
 * `connectTimeoutMs` is the pool's wait, shared among the hosts of a probe pass unless the URL
 * sets libpq's connect_timeout (per host).
 */
export function failoverConnection(databaseUrl: string, opts: { connectTimeoutMs: number; queryTimeoutMs?: number; options: string }) {
  const target = parseDatabaseUrl(databaseUrl);
  const config = { connectionString: target.connectionString, options: opts.options, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };
  const perHost = target.connectTimeoutMs ?? Math.max(500, Math.floor(opts.connectTimeoutMs / Math.max(1, target.hosts.length)));
  return { ...config, Client: failoverClient(new HostSelector(target, config, perHost), opts.queryTimeoutMs ?? 0) };
}
