import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { auditServer } from 'graphql-http';
import { GraphQLError, buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { graphqlRoutes, graphqlRateLimit, GRAPHQL_RATE_LIMIT } from '../server/graphql/routes.ts';
import type { GraphQLRoutesOptions } from '../server/graphql/routes.ts';
import { createSchema } from '../server/graphql/schema.ts';
import { GRAPHQL_LIMITS, depthLimitRule } from '../server/graphql/limits.ts';
import { API_VERSION, API_PATH_VERSION, GRAPHQL_VERSIONS } from '../server/version.ts';

const URL_PATH = '/graphql/3.0';

function makeApp(opts: GraphQLRoutesOptions = { rateLimit: false }): Hono {
  const app = new Hono();
  app.route('/graphql', graphqlRoutes(opts));
  return app;
}

function post(app: Hono, body: unknown, headers: Record<string, string> = {}, path = URL_PATH) {
  return app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function json(res: Response): Promise<any> {
  return JSON.parse(await res.text());
}

/** `{ __type(name: "Query") { fields { type { ofType { ... name } } } } }`, exactly `levels` deep. */
function deepIntrospection(levels: number): string {
  let inner = 'name';
  for (let i = 0; i < levels - 4; i++) inner = `ofType { ${inner} }`;
  return `{ __type(name: "Query") { fields { type { ${inner} } } } }`;
}

describe('versions', () => {
  it('has one source for versions', () => {
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(API_PATH_VERSION).toBe('3.0');
    expect(GRAPHQL_VERSIONS).toContain(API_PATH_VERSION);
  });
});

describe('POST /graphql/<version>', () => {
  it('answers the seed query with the exact body', async () => {
    const res = await post(makeApp({}), { query: 'query { apiVersion }' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({ data: { apiVersion: API_VERSION } });
    expect(await json(await post(makeApp(), { query: 'query { apiVersion }' }))).toEqual({ data: { apiVersion: '3.0.0' } });
  });

  it('answers on any host', async () => {
    const res = await makeApp().request('https://shop.example.com/graphql/3.0', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ apiVersion }' }),
    });
    expect(await json(res)).toEqual({ data: { apiVersion: API_VERSION } });
  });

  it('unknown path version → 404 with GraphQL errors', async () => {
    for (const path of ['/graphql/9.9', '/graphql/3.0.0', '/graphql/v3']) {
      const res = await post(makeApp(), { query: '{ apiVersion }' }, {}, path);
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body.errors[0].extensions).toEqual({ code: 'UNKNOWN_VERSION', supportedVersions: ['3.0'] });
      expect(body.data).toBeUndefined();
    }
  });

  it('malformed JSON → 400 with errors', async () => {
    for (const accept of [undefined, 'application/json', 'application/graphql-response+json']) {
      const res = await post(makeApp(), '{"query": ', accept ? { accept } : {});
      expect(res.status).toBe(400);
      expect((await json(res)).errors[0].message).toMatch(/JSON/);
    }
  });

  it('missing or non-string query → 400', async () => {
    expect((await post(makeApp(), {})).status).toBe(400);
    expect((await post(makeApp(), { query: 42 })).status).toBe(400);
  });

  it('malformed query → 400 regardless of Accept', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/graphql-response+json']) {
      const res = await post(makeApp(), { query: 'query { apiVersion' }, accept ? { accept } : {});
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.errors[0].message).toMatch(/Syntax Error/);
      expect(body).not.toHaveProperty('data');
    }
  });

  it('unknown field → 400 with validation errors', async () => {
    const res = await post(makeApp(), { query: '{ apiVersion nope }' });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].message).toBe('Cannot query field "nope" on type "Query".');
    expect(body).not.toHaveProperty('data');
  });

  it('variable coercion failure, unknown operationName, subscriptions → 400', async () => {
    const res = await post(makeApp(), { query: 'query Q($id: ID!) { apiVersion }', variables: { id: null } });
    expect(res.status).toBe(400);
    expect(await json(res)).not.toHaveProperty('data');
    expect((await post(makeApp(), { query: 'query A { apiVersion }', operationName: 'B' })).status).toBe(400);
    expect((await post(makeApp(), { query: 'subscription { apiVersion }' })).status).toBe(400);
  });

  it('introspection works, including the standard full introspection query', async () => {
    const res = await post(makeApp(), { query: '{ __schema { queryType { name fields { name type { kind ofType { name } } } } } }' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data.__schema.queryType).toEqual({
      name: 'Query',
      fields: [{ name: 'apiVersion', type: { kind: 'NON_NULL', ofType: { name: 'String' } } }],
    });
    const full = await post(makeApp(), { query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true }) });
    expect(full.status).toBe(200);
    expect((await json(full)).data.__schema.types.length).toBeGreaterThan(5);
  });

  it('enforces the depth limit (introspection roots allowed a little deeper)', async () => {
    const ok = await post(makeApp(), { query: deepIntrospection(GRAPHQL_LIMITS.maxIntrospectionDepth) });
    expect(ok.status).toBe(200);
    const res = await post(makeApp(), { query: deepIntrospection(GRAPHQL_LIMITS.maxIntrospectionDepth + 1) });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    expect(body).not.toHaveProperty('data');
  });

  it('enforces the size limit on the query text', async () => {
    const padding = ' '.repeat(GRAPHQL_LIMITS.maxQueryBytes);
    const res = await post(makeApp(), { query: `{ apiVersion ${padding}}` });
    expect(res.status).toBe(400);
    expect((await json(res)).errors[0].extensions).toEqual({ code: 'QUERY_TOO_LARGE', maxBytes: GRAPHQL_LIMITS.maxQueryBytes });
    // just under the limit is fine
    const fits = await post(makeApp(), { query: `{ apiVersion }`.padEnd(GRAPHQL_LIMITS.maxQueryBytes, ' ') });
    expect(fits.status).toBe(200);
  });

  it('enforces the body limit → 413 with errors', async () => {
    const res = await post(makeApp(), { query: '{ apiVersion }', variables: { blob: 'x'.repeat(GRAPHQL_LIMITS.maxBodyBytes) } });
    expect(res.status).toBe(413);
    expect((await json(res)).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('rejects fragment bombs quickly and fragment cycles without hanging', async () => {
    const frags = ['fragment F0 on Query { apiVersion }'];
    for (let i = 1; i < 60; i++) frags.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
    const started = Date.now();
    const res = await post(makeApp(), { query: `{ ...F59 } ${frags.join(' ')}` });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(200);
    const cyc = await post(makeApp(), { query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' });
    expect(cyc.status).toBe(400);
  });

  it('rejects unsupported content types → 415', async () => {
    const res = await makeApp().request(URL_PATH, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(res.status).toBe(415);
    expect((await json(res)).errors).toHaveLength(1);
  });
});

describe('GET /graphql/<version>', () => {
  it('serves queries from the query string', async () => {
    const res = await makeApp().request(`${URL_PATH}?query=${encodeURIComponent('{ apiVersion }')}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ data: { apiVersion: API_VERSION } });
  });

  it('refuses mutations with 405', async () => {
    const res = await makeApp().request(`${URL_PATH}?query=${encodeURIComponent('mutation { doSomething }')}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await json(res)).errors[0].message).toMatch(/mutations/);
  });

  it('other methods → 405 with errors', async () => {
    const res = await makeApp().request(URL_PATH, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect((await json(res)).errors).toHaveLength(1);
  });
});

describe('faults', () => {
  it('a resolver that throws unexpectedly → 500 with a generic message and no stack', async () => {
    const reported: unknown[] = [];
    const app = makeApp({
      rateLimit: false,
      schema: createSchema({
        apiVersion: () => {
          throw new Error('db connection refused at /srv/secret/path.ts:12');
        },
      }),
      onInternalError: (err) => reported.push(err),
    });
    const res = await post(app, { query: '{ apiVersion }' });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ errors: [{ message: 'Internal server error' }] });
    expect(text).not.toMatch(/secret|stack|at /);
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toMatch(/db connection refused/);
  });

  it('a deliberate GraphQLError stays an execution error in `errors`', async () => {
    const app = makeApp({
      rateLimit: false,
      schema: createSchema({
        apiVersion: () => {
          throw new GraphQLError('Version temporarily unavailable', { extensions: { code: 'UNAVAILABLE' } });
        },
      }),
    });
    const res = await post(app, { query: '{ apiVersion }' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data).toBeNull();
    expect(body.errors[0]).toMatchObject({ message: 'Version temporarily unavailable', path: ['apiVersion'] });
  });

  it('a failing middleware (e.g. the limiter store) → 500 generic', async () => {
    const reported: unknown[] = [];
    const app = makeApp({
      rateLimit: graphqlRateLimit({
        store: {
          take() {
            throw new Error('store down');
          },
        },
      }),
      onInternalError: (err) => reported.push(err),
    });
    const res = await post(app, { query: '{ apiVersion }' });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ errors: [{ message: 'Internal server error' }] });
    expect(reported).toHaveLength(1);
  });
});

describe('rate limiting', () => {
  it('uses the documented defaults and returns 429 with Retry-After and a GraphQL body, then recovers', async () => {
    let now = 1_000_000;
    const app = makeApp({ rateLimit: graphqlRateLimit({ now: () => now }) });
    expect(GRAPHQL_RATE_LIMIT).toEqual({ capacity: 60, refillPerSecond: 10 });
    for (let i = 0; i < GRAPHQL_RATE_LIMIT.capacity; i++) {
      const res = await post(app, { query: '{ apiVersion }' });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(GRAPHQL_RATE_LIMIT.capacity - 1 - i));
    }
    const limited = await post(app, { query: '{ apiVersion }' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-limit')).toBe('60');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await json(limited)).toEqual({ errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED' } }] });

    now += 100; // one token at 10/s
    expect((await post(app, { query: '{ apiVersion }' })).status).toBe(200);
    expect((await post(app, { query: '{ apiVersion }' })).status).toBe(429);
  });

  it('limits per client key', async () => {
    const now = 0;
    const app = makeApp({
      rateLimit: graphqlRateLimit({ capacity: 1, refillPerSecond: 1, now: () => now, trustProxy: true }),
    });
    const asClient = (ip: string) => post(app, { query: '{ apiVersion }' }, { 'x-forwarded-for': ip });
    expect((await asClient('203.0.113.1')).status).toBe(200);
    expect((await asClient('203.0.113.1')).status).toBe(429);
    expect((await asClient('203.0.113.2')).status).toBe(200);
  });
});

describe('depthLimitRule', () => {
  const recursive = buildSchema('type Query { node: Node } type Node { id: ID child: Node }');
  /** `child { child { ... id } }` with k `child` levels: k + 1 deep. */
  const chain = (k: number) => {
    let sel = 'id';
    for (let i = 0; i < k; i++) sel = `child { ${sel} }`;
    return sel;
  };
  const check = (q: string) => validate(recursive, parse(q), [...specifiedRules, depthLimitRule(10, 15)]);

  it('counts field nesting, also through fragments', () => {
    expect(check(`{ node { ${chain(8)} } }`)).toEqual([]); // depth 10
    const errs = check(`{ node { ${chain(9)} } }`); // depth 11
    expect(errs).toHaveLength(1);
    expect(errs[0].extensions.code).toBe('QUERY_TOO_DEEP');
    expect(errs[0].message).toBe('Query depth 11 exceeds the maximum depth of 10.');
    const viaFragment = check(`{ node { ...F } } fragment F on Node { ... on Node { ${chain(9)} } }`);
    expect(viaFragment.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_DEEP']);
  });
});

describe('GraphQL over HTTP audit', () => {
  let server: ServerType;
  let url: string;

  beforeAll(async () => {
    const app = new Hono();
    // The 61 audits fire at once; give this client a bigger bucket than the default 60.
    app.route('/graphql', graphqlRoutes({ rateLimit: graphqlRateLimit({ capacity: 1000 }) }));
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    });
    url = `http://127.0.0.1:${port}/graphql/3.0`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('passes every MUST audit of graphql-http auditServer', async () => {
    const results = await auditServer({ url });
    expect(results.length).toBeGreaterThan(30);
    const failedMust = results.filter((r) => r.name.startsWith('MUST') && r.status !== 'ok');
    const describeFailure = failedMust.map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`).join('\n');
    expect(failedMust.map((r) => r.id), describeFailure).toEqual([]);
    // Deliberate SHOULD deviations: request errors are 400 even under Accept: application/json.
    const warned = results.filter((r) => r.status !== 'ok').map((r) => r.id).sort();
    expect(warned).toEqual(['572B', '7B9B', 'FDE2']);
  });
});
