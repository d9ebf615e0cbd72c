/** Process configuration, read once from the environment. Everything has a safe local default. */
export interface Config {
  port: number;
  host: string;
  /** Embedded database directory (PGlite). Ignored when databaseUrl is set. */
  dataDir: string;
  /** A real PostgreSQL server; when set it replaces the embedded database. */
  databaseUrl?: string;
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
  /** One JSON line per request on stdout (ACCESS_LOG=1; server/http/ops.ts). */
  accessLog?: boolean;
  /**
   * Load the demo shops into an empty database. SEED_DEMO=1 / 0; unset: in development only, so a
   * production deployment starts with no shops (`npm run seed -- FILE` loads yours).
   */
  seedDemo?: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '127.0.0.1',
    dataDir: env.DATA_DIR ?? '.data',
    databaseUrl: env.DATABASE_URL || undefined,
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    mode: env.NODE_ENV === 'production' ? 'production' : 'development',
    allowInsecureProfileUrls: env.NODE_ENV !== 'production' && env.UCP_ALLOW_INSECURE_PROFILE_URLS !== '0' && env.UCP_ALLOW_INSECURE_PROFILE_URLS !== 'false',
    accessLog: env.ACCESS_LOG === '1' || env.ACCESS_LOG === 'true',
    seedDemo: env.SEED_DEMO === '1' || env.SEED_DEMO === 'true' ? true : env.SEED_DEMO === '0' || env.SEED_DEMO === 'false' ? false : undefined,
  };
}
