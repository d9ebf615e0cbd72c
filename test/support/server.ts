/**
 * Integration tests run the real server (real database, real HTTP) on an ephemeral port with a
 * throwaway in-memory embedded database and the demo data. Node does not resolve *.localhost, so
 * requests go to 127.0.0.1 with the storefront's Host header.
 *
 * With TEST_DATABASE_URL set (scripts/test-all.sh runs the suite a second time that way), each
 * server gets a fresh database on that PostgreSQL server instead, dropped when the server closes.
 */
import { startServer, type RunningServer } from '../../server/server.ts';
import type { Config } from '../../server/config.ts';
import { createTestDatabase } from './postgres.ts';
import { requestFrom } from './from-address.ts';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface TestServer extends RunningServer {
  /** Sends a request to `host` (e.g. demo.localhost); `body` objects are sent as JSON. */
  req<T = any>(host: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse<T>>;
}

export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const base = process.env.TEST_DATABASE_URL;
  const testDb = base && overrides.databaseUrl === undefined ? await createTestDatabase(base) : undefined;
  let running: RunningServer;
  try {
    // Production refuses to start without an issuer (AUTH_URL) or a key encryption secret; production-mode
    // tests get placeholders unless they name their own.
    const issuer = overrides.mode === 'production' && !('authUrl' in overrides) ? { authUrl: 'https://accounts.test.example' } : {};
    const secret = overrides.mode === 'production' && !('keyEncryptionSecret' in overrides) ? { keyEncryptionSecret: 'test-only key encryption secret, 32+ characters long' } : {};
    // A suite is one client by design (hundreds of carts from 127.0.0.1): transport budgets are off
    // unless a test turns them on (test/transport-limits.test.ts does).
    running = await startServer({ port: 0, host: '127.0.0.1', dataDir: 'memory://', transportRateLimits: false, ...(testDb ? { databaseUrl: testDb.url } : { databaseUrl: undefined }), ...issuer, ...secret, ...overrides });
  } catch (e) {
    await testDb?.drop();
    throw e;
  }
  if (testDb) {
    const close = running.close.bind(running);
    running.close = async () => {
      try {
        await close();
      } finally {
        await testDb.drop();
      }
    };
  }
  const req = <T>(host: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    requestFrom<T>({ port: running.port, host, method, path, body, headers });
  return Object.assign(running, { req });
}
