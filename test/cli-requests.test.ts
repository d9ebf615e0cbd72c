/**
 * `ucp-storefront requests` (server/cli/commands/requests.ts) against a real running server: one
 * line per exchange with its notes underneath, `--json` one object per line, `--follow` printing
 * what arrives later; usage mistakes exit 2; no server, an unknown shop and a production server
 * are one-line errors naming the address tried.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'ucp-requests-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], opts: { env?: NodeJS.ProcessEnv; signal?: AbortSignal; onOut?: (t: string) => void } = {}) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => ((out += `${t}\n`), opts.onOut?.(t)), err: (t) => (err += `${t}\n`), isTTY: false, env: opts.env ?? { DATA_DIR: join(dir, 'none'), DATABASE_URL: '' }, ...(opts.signal ? { signal: opts.signal } : {}) };
  const code = await runCli(['requests', ...argv], io);
  return { code, out, err };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

describe('ucp-storefront requests', () => {
  it('prints one line per exchange, oldest first, with its notes underneath; --json one object per line', async () => {
    expect((await s.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    expect((await s.req('other.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'other_var_pewter_flask' }, quantity: 1 }] })).status).toBe(201);
    const r = await cli(['--shop', 'other.localhost', '--server', s.url, '--limit', '2']);
    expect(r).toMatchObject({ code: 0, err: '' });
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#\d+ +\d\d:\d\d:\d\d\.\d{3} +rest +search_catalog +200 +[\d.]+ ms +no agent$/);
    expect(lines[1]).toBe(`    ! ucp_agent_missing: ${lines[1].split('ucp_agent_missing: ')[1]}`);
    const createLine = lines.findIndex((l) => / create_cart +201 /.test(l));
    expect(createLine).toBeGreaterThan(1);
    expect(lines.slice(createLine + 1).map((l) => l.split(':')[0].trim())).toEqual(['! idempotency_key_missing', '! ucp_agent_missing']);

    const json = await cli(['--shop', 'shop_other', '--server', s.url, '--limit', '2', '--json']);
    const objects = json.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(objects.map((o) => o.operation)).toEqual(['search_catalog', 'create_cart']);
    expect(JSON.parse(objects[1].request.body).line_items[0].item.id).toBe('other_var_pewter_flask');
  });

  it('--follow prints exchanges that arrive later, until stopped', async () => {
    const stop = new AbortController();
    let sent = false;
    const seen = new Promise<void>((resolve) => {
      void cli(['--shop', 'shop_other', '--server', s.url, '--limit', '1', '--follow'], {
        signal: stop.signal,
        onOut: (t) => {
          if (!sent) {
            sent = true; // the first page is out: now send something new
            void s.req('other.localhost', 'POST', '/api/ucp/catalog/lookup', { ids: ['other_prod_pewter_flask'] });
          } else if (/ lookup_catalog /.test(t)) resolve();
        },
      }).then((r) => expect(r.code).toBe(0));
    });
    await seen;
    stop.abort();
  });

  it.each([
    [['--limit', '5'], /--shop is required/],
    [['--shop', 'x', '--limit', '0'], /--limit must be a whole number from 1 to 100; got '0'/],
    [['--shop', 'x', '--limit', 'ten'], /--limit must be a whole number/],
    [['--shop', 'x', '--server', 'localhost:8080'], /--server must be an http\(s\) URL/],
    [['--shop', 'x', '--since', '3'], /Unknown option '--since'/],
  ])('usage mistake %j: exit 2 with the usage', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain('usage: ucp-storefront requests --shop ID_OR_DOMAIN');
  });

  it('no server running: exit 1 naming the address tried (from PORT, or --server)', async () => {
    const port = await closedPort();
    const r = await cli(['--shop', 'demo.localhost'], { env: { DATA_DIR: join(dir, 'none'), DATABASE_URL: '', PORT: String(port) } });
    expect(r.code).toBe(1);
    expect(r.err).toBe(`ucp-storefront requests: no server answered at http://127.0.0.1:${port} (from HOST and PORT; pass --server URL for another): ECONNREFUSED. Start one with \`npx ucp-storefront start\` (development mode), or name it with --server URL.\n`);
    const named = await cli(['--shop', 'demo.localhost', '--server', `http://127.0.0.1:${port}`]);
    expect(named.err).toContain(`no server answered at http://127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('an unknown shop, and a production server, are one-line errors', async () => {
    const unknown = await cli(['--shop', 'nowhere.localhost', '--server', s.url]);
    expect(unknown).toMatchObject({ code: 1, out: '' });
    expect(unknown.err).toContain(`${s.url} answered 404: No shop with id or domain 'nowhere.localhost'`);
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      const r = await cli(['--shop', 'demo.localhost', '--server', prod.url]);
      expect(r).toMatchObject({ code: 1, err: `ucp-storefront requests: the server at ${prod.url} has no request inspector: it runs in production mode (NODE_ENV=production), where development routes are absent.\n` });
    } finally {
      await prod.close();
    }
  });
});
