/** Process configuration, read once from the environment. Everything has a safe local default. */
export interface Config {
  port: number;
  host: string;
  /** Embedded database directory (PGlite). Ignored when databaseUrl is set. */
  dataDir: string;
  /** A real PostgreSQL server; when set it replaces the embedded database. */
  databaseUrl?: string;
  /**
   * Embedded database on disk: acknowledge a write only once its WAL is on stable storage, batched
   * by group commit (server/db/pglite-durable.mjs). On by default; UCP_DURABLE_COMMITS=off trades
   * the last acknowledged commits on a power loss or OS crash for speed (like PostgreSQL's
   * `synchronous_commit = off`; a killed process still loses nothing). Ignored with DATABASE_URL.
   */
  durableCommits?: boolean;
  /**
   * Embedded database: PostgreSQL's `shared_buffers` in MB (PGLITE_SHARED_BUFFERS_MB). PGlite's own
   * default is 160 MB, held in the process as WASM memory once touched: fine for one production
   * server, most of an idle sandbox's weight (docs/packaging.md "Sandbox memory"). Development
   * defaults to 16 MB (the OS page cache still holds the files); production keeps PGlite's default.
   */
  embeddedSharedBuffersMb?: number;
  /** PostgreSQL (DATABASE_URL) pool: connections per process (PG_POOL_SIZE, 10) and how long a request waits for one (PG_CONNECT_TIMEOUT_MS, 5000; then 503). */
  pgPoolSize?: number;
  pgConnectTimeoutMs?: number;
  /**
   * PostgreSQL: how long one statement may go unanswered before its connection is closed and the
   * request answers 503 + Retry-After (PG_QUERY_TIMEOUT_MS, 30000; 0: no limit). Bounds the wait on
   * a host that stops answering without closing its connections (server/db/failover.ts).
   */
  pgQueryTimeoutMs?: number;
  /** Planner cost of a random page read on either database (PG_RANDOM_PAGE_COST, 1.1; server/db/index.ts). */
  randomPageCost?: number;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host only when the deployment sits behind a proxy we trust. */
  trustProxy: boolean;
  /** development seeds demo users/apps and accepts loopback http profile URLs; production never does. */
  mode: 'development' | 'production';
  /**
   * Accept `http:` platform profile URLs on loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)
   * for local development (docs/access.md). On by default in development (so the demo agent's
   * `http://agent.localhost:PORT/.well-known/ucp` works with no setup), off with
   * UCP_ALLOW_INSECURE_PROFILE_URLS=0; always off in production.
   */
  allowInsecureProfileUrls: boolean;
  /**
   * The account service's public issuer (AUTH_URL), e.g. `https://accounts.example.com`. Required in
   * production; in development the issuer follows the request's origin when it is unset.
   */
  authUrl?: string;
  /**
   * PLATFORM_HOSTS: more host names (comma-separated, no port) the platform's own routes answer on,
   * besides the loopback names, IP addresses and AUTH_URL's host (server/http/origin.ts
   * platformHostAllowed; docs/security.md "Which hosts the platform answers"), e.g. the internal DNS
   * name Prometheus scrapes. Any other Host that names no shop is refused with 421.
   */
  platformHosts?: string[];
  /**
   * Per-client budgets on the UCP REST and MCP transports (server/http/transport-limits.ts). On by
   * default; UCP_RATE_LIMITS=off (or 0, false: FLAG_VALUES) for a deployment whose gateway already
   * limits per client, and in the test harness (test/support/server.ts), whose suites are one client
   * on purpose. The OAuth and GraphQL budgets are not switched by it.
   */
  transportRateLimits: boolean;
  /**
   * METRICS_TOKEN: the bearer token GET /metrics requires (server/http/metrics.ts). Unset: /metrics
   * is open in development and absent (404) in production.
   */
  metricsToken?: string;
  /** METRICS=off: no request metrics and no /metrics (404); for measuring their cost (bench/run.ts). On by default. */
  metrics?: boolean;
  /** One JSON line per request on stdout (ACCESS_LOG=1; server/http/ops.ts). */
  accessLog?: boolean;
  /**
   * UCP_INSPECTOR=off: a development server records no exchanges for the request inspector
   * (docs/sandbox.md); for load tests against a development server and for measuring its cost
   * (BENCH_ONLY=inspector). On by default; production never records, whatever this says.
   */
  inspector?: boolean;
  /**
   * Development clones (`POST /dev/shops/{id}/clone`, server/seed/clone.ts; docs/sandbox.md): at most
   * UCP_MAX_CLONES per server (100), each deleted after UCP_CLONE_IDLE_MS without a request (30 minutes).
   */
  maxClones?: number;
  cloneIdleMs?: number;
  /** At the bound, the least recently used clone gives its place to a new one once unused this long (60 s; no setting: tests shorten it). */
  cloneEvictIdleMs?: number;
  /**
   * Load the demo shops into an empty database. SEED_DEMO=1 / 0; unset: in development only, so a
   * production deployment starts with no shops (`npm run seed -- FILE` loads yours).
   */
  seedDemo?: boolean;
  /**
   * Processes `server/cluster.ts` forks (WORKERS). Unset: the CPU count with DATABASE_URL, else 1.
   * Not a positive integer: NaN here, refused by the cluster with a message.
   */
  workers?: number;
  /**
   * KEY_ENCRYPTION_SECRET: encrypts webhook signing keys and keys storefront tokens
   * (core/access/signing-keys.ts). Required in production (at least 32 characters; checkConfig). Unset in
   * development: the public DEVELOPMENT_KEY_ENCRYPTION_SECRET.
   */
  keyEncryptionSecret?: string;
  /**
   * SEARCH_INDEX_CHECK_MS: on PostgreSQL, how often a process's search index checks for catalog
   * writes by other processes, so how stale their writes may be here (default 100; docs/ucp.md).
   */
  searchIndexCheckMs?: number;
  /**
   * SEARCH_INDEX_BUDGET_MB: megabytes (MiB) all of a process's in-memory search indexes may hold;
   * past it the least recently searched shops' indexes are evicted and rebuilt on demand (default
   * 256; 0: no in-memory index, every search in SQL; docs/deploy.md). Not a number: NaN here,
   * refused by checkConfig.
   */
  searchIndexBudgetMb?: number;
  /** Webhook delivery timing (WEBHOOK_POLL_MS, WEBHOOK_RETRY_BASE_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_LEASE_MS; core/orders/webhooks.ts defaults). */
  webhooks: { pollMs?: number; retryBaseMs?: number; maxAttempts?: number; leaseMs?: number };
  /** Switches set to a value that is not one of FLAG_VALUES: checkConfig refuses to start. */
  settingProblems?: string[];
}

/**
 * What an on/off setting (UCP_RATE_LIMITS, TRUST_PROXY, ...) accepts, in any case, surrounding
 * spaces ignored; unset or empty is the setting's default. Anything else refuses to start: a typo
 * such as UCP_RATE_LIMITS=no must not silently keep (or drop) a protection (issue 29: `0` turned the
 * limits off while only `off` was documented).
 */
export const FLAG_VALUES = { on: ['1', 'true', 'on'], off: ['0', 'false', 'off'] } as const;

/** An on/off setting read exactly (FLAG_VALUES), or `fallback`; a value it does not take goes to `problems`. */
function flag<T extends boolean | undefined>(env: NodeJS.ProcessEnv, name: string, fallback: T, problems: string[]): boolean | T {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if ((FLAG_VALUES.on as readonly string[]).includes(raw)) return true;
  if ((FLAG_VALUES.off as readonly string[]).includes(raw)) return false;
  problems.push(`${name} must be one of ${FLAG_VALUES.on.join(', ')} (on) or ${FLAG_VALUES.off.join(', ')} (off); got "${env[name]!.slice(0, 40)}".`);
  return fallback;
}

/**
 * The secret development runs on when KEY_ENCRYPTION_SECRET is unset. It is in the repository, so
 * anything keyed by it (storefront tokens, stored signing keys) can be forged or read by anyone:
 * production refuses to start on it (checkConfig).
 */
export const DEVELOPMENT_KEY_ENCRYPTION_SECRET = 'ucp-storefront-development-key-encryption-secret (not for production)';
/** Shortest KEY_ENCRYPTION_SECRET production accepts: `openssl rand -base64 32` gives 44 characters. */
export const MIN_KEY_ENCRYPTION_SECRET_LENGTH = 32;
/** Shortest METRICS_TOKEN production accepts (`openssl rand -hex 32` gives 64 characters); development takes any. */
export const MIN_METRICS_TOKEN_LENGTH = 32;

/**
 * A positive number from the environment; unset or empty: undefined (the setting's default
 * applies). Anything else (`ten`, `5s`, `-1`, `0`) refuses to start, naming the setting, as every
 * other setting does: a typo must not silently become the default (issue 39 point 16).
 */
function positive(env: NodeJS.ProcessEnv, name: string, problems: string[], unit = ''): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const n = Number(value);
  if (/^\d+(\.\d+)?$/.test(value) && n > 0) return n;
  problems.push(`${name} must be a number above 0${unit ? ` (${unit})` : ''}; got "${value.slice(0, 40)}".`);
  return undefined;
}

/** Unset or empty: undefined (the default applies); a whole number of milliseconds, 0 included; else a problem. */
function milliseconds(env: NodeJS.ProcessEnv, name: string, problems: string[]): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  problems.push(`${name} must be a whole number of milliseconds (0: no limit); got "${value.slice(0, 40)}".`);
  return undefined;
}

/** Unset or empty: undefined (the default applies); a whole number, 0 included; else a problem. */
function count(env: NodeJS.ProcessEnv, name: string, problems: string[]): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (/^\d{1,9}$/.test(value)) return Number(value);
  problems.push(`${name} must be a whole number; got "${value.slice(0, 40)}".`);
  return undefined;
}

/** Unset or empty: undefined (the default applies); digits with an optional fraction: that; else NaN (refused). */
function megabytes(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
}

/** A comma-separated list of host names (lower case, no port, no scheme), or undefined; anything else is a problem. */
function hostNames(env: NodeJS.ProcessEnv, name: string, problems: string[]): string[] | undefined {
  const names = (env[name] ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  const bad = names.filter((h) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h));
  if (bad.length) problems.push(`${name} takes host names separated by commas, without scheme or port (e.g. storefront.internal,metrics.example.com); got "${bad[0].slice(0, 60)}".`);
  return names.length ? names : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const production = env.NODE_ENV === 'production';
  return {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '127.0.0.1',
    dataDir: env.DATA_DIR ?? '.data',
    databaseUrl: env.DATABASE_URL || undefined,
    durableCommits: flag(env, 'UCP_DURABLE_COMMITS', true, problems),
    embeddedSharedBuffersMb: positive(env, 'PGLITE_SHARED_BUFFERS_MB', problems, 'megabytes') ?? (production ? undefined : 16),
    pgPoolSize: positive(env, 'PG_POOL_SIZE', problems, 'connections'),
    pgConnectTimeoutMs: positive(env, 'PG_CONNECT_TIMEOUT_MS', problems, 'milliseconds'),
    pgQueryTimeoutMs: milliseconds(env, 'PG_QUERY_TIMEOUT_MS', problems),
    randomPageCost: positive(env, 'PG_RANDOM_PAGE_COST', problems),
    trustProxy: flag(env, 'TRUST_PROXY', false, problems),
    mode: production ? 'production' : 'development',
    // Never in production, whatever the setting says (docs/access.md).
    allowInsecureProfileUrls: flag(env, 'UCP_ALLOW_INSECURE_PROFILE_URLS', true, problems) && !production,
    authUrl: env.AUTH_URL?.trim() ? env.AUTH_URL.trim().replace(/\/+$/, '') : undefined,
    platformHosts: hostNames(env, 'PLATFORM_HOSTS', problems),
    transportRateLimits: flag(env, 'UCP_RATE_LIMITS', true, problems),
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    metrics: flag(env, 'METRICS', true, problems),
    inspector: flag(env, 'UCP_INSPECTOR', true, problems),
    maxClones: count(env, 'UCP_MAX_CLONES', problems),
    cloneIdleMs: milliseconds(env, 'UCP_CLONE_IDLE_MS', problems),
    accessLog: flag(env, 'ACCESS_LOG', false, problems),
    seedDemo: flag(env, 'SEED_DEMO', undefined, problems),
    workers: env.WORKERS === undefined ? undefined : Number(env.WORKERS),
    keyEncryptionSecret: env.KEY_ENCRYPTION_SECRET || undefined,
    searchIndexCheckMs: positive(env, 'SEARCH_INDEX_CHECK_MS', problems, 'milliseconds'),
    searchIndexBudgetMb: megabytes(env.SEARCH_INDEX_BUDGET_MB),
    webhooks: {
      pollMs: positive(env, 'WEBHOOK_POLL_MS', problems, 'milliseconds'),
      retryBaseMs: positive(env, 'WEBHOOK_RETRY_BASE_MS', problems, 'milliseconds'),
      maxAttempts: positive(env, 'WEBHOOK_MAX_ATTEMPTS', problems),
      leaseMs: positive(env, 'WEBHOOK_LEASE_MS', problems, 'milliseconds'),
    },
    ...(problems.length ? { settingProblems: problems } : {}),
  };
}

/** Log lines as JSON (server/lib/log.ts): with the access log on (one format per stream) and in production. */
export function logJson(config: Pick<Config, 'accessLog' | 'mode'>): boolean {
  return !!config.accessLog || config.mode === 'production';
}

/** A configuration the server must not start with. main.ts prints the message without a stack. */
export class ConfigError extends Error {}

/** Why production must not run with this KEY_ENCRYPTION_SECRET (server, cluster and CLI refuse), or undefined. */
export function keyEncryptionSecretProblem(config: Pick<Config, 'mode' | 'keyEncryptionSecret'>): string | undefined {
  if (config.mode !== 'production') return undefined;
  const secret = config.keyEncryptionSecret;
  if (!secret) {
    return (
      'KEY_ENCRYPTION_SECRET is required in production: without it storefront tokens and webhook signing keys would be keyed by the public development secret in the repository, ' +
      'so anyone could mint a token for any shop. Set it to a long random string, e.g. KEY_ENCRYPTION_SECRET=$(openssl rand -base64 32), and keep it (changing it makes stored signing keys unreadable: rotate them after).'
    );
  }
  if (secret === DEVELOPMENT_KEY_ENCRYPTION_SECRET || secret.length < MIN_KEY_ENCRYPTION_SECRET_LENGTH) {
    return `KEY_ENCRYPTION_SECRET must be a random string of at least ${MIN_KEY_ENCRYPTION_SECRET_LENGTH} characters, not the development secret (got ${secret.length} characters). Make one with: openssl rand -base64 32`;
  }
  return undefined;
}

/** Refuses configurations that would be unsafe to serve (checked by startServer before anything opens). */
export function checkConfig(config: Config): void {
  const problems: string[] = [...(config.settingProblems ?? [])];
  if (config.authUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(config.authUrl);
    } catch {
      u = undefined;
    }
    if (!u || !/^https?:$/.test(u.protocol) || u.search || u.hash || u.username) problems.push(`AUTH_URL must be an absolute http(s) URL with no query, fragment or credentials (got "${config.authUrl}").`);
    else if (config.mode === 'production' && u.protocol !== 'https:') problems.push(`AUTH_URL must be https in production (got "${config.authUrl}").`);
  } else if (config.mode === 'production') {
    problems.push('AUTH_URL is required in production: the OAuth issuer must not follow the Host header of whoever asks. Set it to the public URL of the account service, e.g. AUTH_URL=https://accounts.example.com.');
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) problems.push(`PORT must be a port number, 0-65535 (0: any free port); got ${config.port}.`);
  const secret = keyEncryptionSecretProblem(config);
  if (secret) problems.push(secret);
  if (config.mode === 'production' && config.metricsToken !== undefined && config.metricsToken.length < MIN_METRICS_TOKEN_LENGTH) {
    problems.push(
      `METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters in production (got ${config.metricsToken.length}): it is the one secret between /metrics and the internet. Make one with: openssl rand -hex 32`,
    );
  }
  // Migrations at start hold one connection for their lock and run on another (server/seed/prepare.ts).
  if (config.pgPoolSize !== undefined && (!Number.isInteger(config.pgPoolSize) || config.pgPoolSize < 2)) {
    problems.push(`PG_POOL_SIZE must be a whole number of at least 2: migrations at start hold one connection for their lock while they run on another (got ${config.pgPoolSize}).`);
  }
  const budget = config.searchIndexBudgetMb;
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 0)) {
    problems.push('SEARCH_INDEX_BUDGET_MB must be a number of megabytes, 0 or more: what all in-memory search indexes of a process may hold, e.g. 256 (0: no index, every search in SQL; docs/deploy.md).');
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
}

/** Where a process on this machine reaches a server listening on `host`:`port` (a wildcard host on loopback). */
export function localUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
