/**
 * One error vocabulary (docs/errors.md): every deliberate refusal is a DomainError with a kind and
 * a code, and each edge turns a kind into its answer through one table. These tests hold the
 * family together (no stray Error subclasses for request failures) and prove each table on a
 * thrown error, the way a route would throw it.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Hono } from 'hono';
import { Conflict, DomainError, ERROR_CODES, InvalidRequest, toDomainError, type ErrorKind } from '../server/core/shared/errors.ts';
import { validate } from '../server/core/shared/validate.ts';
import { REST_STATUS, renderError } from '../server/http/errors.ts';
import { MERCHANT_STATUS, asDomainError, envelope } from '../server/merchant/errors.ts';
import { MCP_ERRORS, fromDomainError, RPC } from '../server/mcp/errors.ts';
import { IdempotencyConflict, IdempotencyUnavailable } from '../server/core/carts/idempotency.ts';
import { AccessDenied, CapabilitiesIncompatible } from '../server/http/authenticate.ts';
import { z } from 'zod';

const ROOT = resolve(import.meta.dirname, '..');
const KINDS: ErrorKind[] = ['malformed', 'invalid', 'too_large', 'unsupported_media_type', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'rate_limited', 'unavailable', 'internal'];

/**
 * The Error subclasses outside the family, each with why it stays out (issue 47 point 9). None is a
 * request failure an edge maps to an answer: each ends a process with a message, travels inside a
 * stack that is not ours (the fetch stack, the database driver's place, the MCP SDK), or lives in the
 * browser, where DomainError (server/) is not. A new subclass of Error joins the family
 * (server/core/shared/errors.ts) or is named here with its reason.
 */
const OUTSIDE_THE_FAMILY: Record<string, string> = {
  'server/core/shared/errors.ts DomainError': 'the family itself',
  'server/config.ts ConfigError': 'a setting the server, cluster or CLI refuses before anything opens: the process ends with the message, no request exists',
  'server/cli/cli.ts UsageError': "a command line that is wrong: its message and the command's usage go to stderr, exit code 2",
  'server/cli/cli.ts CliError': 'a command that fails: one line on stderr, exit code 1',
  'server/db/data-dir-lock.ts DataDirInUse': 'another process holds the embedded database at start: the server or the CLI (open.ts, as a CliError) stops with it',
  'server/lib/public-fetch.ts NonPublicAddressError':
    "a DNS answer refused inside Node's fetch stack (an errno-style `code`, the `cause` of fetch's TypeError); its callers word it in the family (a profile fetch as ProfileError, a feed fetch as FeedFetchError)",
  // Answered like the driver's connection errors (isUnavailable: 503).
  'server/db/write-gate.ts WritesBlocked': "the database layer's own refusal while commits stall, below the domain as the driver's errors are",
  'server/mcp/errors.ts McpProtocolError': "MCP's wire form of a failure, made from a DomainError by fromDomainError: the SDK copies its `code` and `data` into the JSON-RPC error",
  'src/embedded/rpc.ts RpcError': "the embedded cart protocol's JSON-RPC error between frames, in the browser (host.js): no DomainError there",
  // src/apps/tools.ts words them as a Result.
  'src/apps/bridge.ts BridgeError': "the MCP Apps view's own postMessage failures, in the browser",
};

/** Classes that extend a built-in error type directly: `file Class`. */
export function errorSubclasses(file: string, text: string): string[] {
  return [...text.matchAll(/class (\w+) extends (?:Aggregate|Eval|Range|Reference|Syntax|Type|URI)?Error\b/g)].map((m) => `${file} ${m[1]}`);
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(ROOT, p)).isDirectory() ? sources(p) : /\.(ts|tsx|mjs)$/.test(f) ? [p] : [];
  });
}

async function restAnswer(err: unknown) {
  const app = new Hono();
  app.get('/', () => {
    throw err;
  });
  app.onError(renderError);
  const res = await app.request('/');
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

async function merchantAnswer(err: unknown) {
  const app = new Hono();
  app.get('/', () => {
    throw err;
  });
  app.onError((e, c) => envelope(c, asDomainError(e)));
  const res = await app.request('/');
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error: Record<string, unknown> } };
}

describe('the error family', () => {
  it('has no Error subclass outside DomainError but the ones named with why they stay out', () => {
    const found = [...['server', 'src', 'bin'].flatMap(sources)].flatMap((f) => errorSubclasses(relative(ROOT, join(ROOT, f)), readFileSync(join(ROOT, f), 'utf8')));
    expect(found.filter((e) => !(e in OUTSIDE_THE_FAMILY))).toEqual([]);
    // The list is not stale either: each entry still exists, and says why.
    expect(Object.keys(OUTSIDE_THE_FAMILY).filter((e) => !found.includes(e))).toEqual([]);
    for (const [e, why] of Object.entries(OUTSIDE_THE_FAMILY)) expect(why.length, e).toBeGreaterThan(10);
  });

  it('finds subclasses of every built-in error type (the check itself)', () => {
    const text = 'class A extends Error {}\nclass B extends TypeError {\n}\nclass C extends DomainError {}\nclass D extends RangeError {}\nclass E extends ErrorBase {}';
    expect(errorSubclasses('x.ts', text)).toEqual(['x.ts A', 'x.ts B', 'x.ts D']);
  });

  it('every refusal the core and the access layer raise is a DomainError with a kind', () => {
    for (const e of [new IdempotencyConflict(), new IdempotencyUnavailable(), new AccessDenied('rate_limited', 'slow down', 429), new CapabilitiesIncompatible('x', new Set(), ['dev.ucp.shopping.cart'])]) {
      expect(e).toBeInstanceOf(DomainError);
      expect(KINDS).toContain(e.kind);
    }
    expect(new AccessDenied('signature_invalid', 'x', 401).kind).toBe('unauthorized');
    expect(new IdempotencyConflict().code).toBe(ERROR_CODES.idempotencyConflict);
  });
});

describe('classifying what was thrown', () => {
  it("a request body the client stopped sending is the client's mistake (400 request_aborted), not a database outage", () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(toDomainError(aborted, 'test')).toMatchObject({ kind: 'malformed', code: ERROR_CODES.requestAborted });
    // The database's own socket reset is still an outage.
    const dbReset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    expect(toDomainError(dbReset, 'test')).toMatchObject({ kind: 'unavailable' });
  });
});

describe('one table per edge', () => {
  it('UCP REST: a kind becomes its status, with the code, the words and field messages', async () => {
    const r = await restAnswer(new InvalidRequest('invalid_request', 'bad', [{ path: '$.a', code: 'invalid_type', content: 'expected number' }]));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 'invalid_request', content: 'bad', messages: [{ type: 'error', code: 'invalid_type', path: '$.a', content: 'expected number', severity: 'recoverable' }] });
    for (const kind of KINDS) expect((await restAnswer(new DomainError(kind, 'c', 'words'))).status).toBe(REST_STATUS[kind]);
  });

  it('UCP REST: a reused idempotency key is 409; an unreadable key store 503 with Retry-After', async () => {
    expect(await restAnswer(new IdempotencyConflict())).toMatchObject({ status: 409, body: { code: 'idempotency_conflict' } });
    const down = await restAnswer(new IdempotencyUnavailable());
    expect(down).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(Number(down.retryAfter)).toBeGreaterThan(0);
  });

  it('the merchant API: the same kinds, schema violations 422, in its envelope', async () => {
    const r = await merchantAnswer(new InvalidRequest('validation_failed', 'bad', [{ path: '$.title', code: 'invalid_type', content: 'expected string' }]));
    expect(r).toMatchObject({ status: 422, body: { error: { code: 'validation_failed', message: 'bad', details: [{ path: '$.title', code: 'invalid_type', message: 'expected string' }] } } });
    for (const kind of KINDS) expect((await merchantAnswer(new DomainError(kind, 'c', 'words'))).status).toBe(MERCHANT_STATUS[kind]);
    expect(await merchantAnswer(new Conflict('customer_exists', 'taken'))).toMatchObject({ status: 409, body: { error: { code: 'customer_exists' } } });
  });

  it('the merchant API: a database that cannot be reached is the shared UNAVAILABLE answer; anything unexpected says nothing of itself', async () => {
    const down = await merchantAnswer(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(down).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
    expect(down.retryAfter).toBe('2');
    const boom = await merchantAnswer(new Error('secret internals'));
    expect(boom.status).toBe(500);
    expect(JSON.stringify(boom.body)).not.toContain('secret');
  });

  it('MCP: a kind becomes its JSON-RPC code and HTTP status; waiting kinds carry retry_after', () => {
    for (const kind of KINDS) {
      const e = fromDomainError(new DomainError(kind, 'c', 'words'));
      expect([e.code, e.httpStatus, e.data.code, e.data.content]).toEqual([MCP_ERRORS[kind].rpc, MCP_ERRORS[kind].http, 'c', 'words']);
      expect(e.data.retry_after !== undefined).toBe(kind === 'unavailable');
    }
    expect(MCP_ERRORS.conflict).toEqual({ rpc: RPC.server, http: 409 });
  });

  it('the edges agree on every kind but input mistakes (UCP 400, merchant 422, MCP -32602)', () => {
    for (const kind of KINDS) {
      if (kind === 'invalid') continue;
      expect(MERCHANT_STATUS[kind]).toBe(REST_STATUS[kind]);
      if (!['malformed', 'too_large'].includes(kind)) expect(MCP_ERRORS[kind].http).toBe(REST_STATUS[kind]);
    }
  });
});

describe('one validation helper', () => {
  it('names every bad field by JSONPath, unknown keys one by one, with the code the edge asked for', () => {
    const schema = z.strictObject({ title: z.string(), price: z.number().int().min(0) });
    try {
      validate(schema, { title: 1, price: -1, extra: true, more: 1 }, { code: 'validation_failed' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidRequest);
      const err = e as InvalidRequest;
      expect(err.code).toBe('validation_failed');
      expect(err.issues.map((i) => [i.path, i.code])).toEqual([
        ['$.title', 'invalid_type'],
        ['$.price', 'invalid_too_small'],
        ['$.extra', 'unrecognized_key'],
        ['$.more', 'unrecognized_key'],
      ]);
    }
  });

  it('applies the text rule first when asked (UCP), naming the field', () => {
    expect(() => validate(z.object({ name: z.string() }), { name: 'a\u0000b' }, { code: 'invalid_request', maxString: 100 })).toThrow(
      expect.objectContaining({ code: 'invalid_request', issues: [expect.objectContaining({ path: '$.name', code: 'invalid_character' })] }),
    );
    expect(validate(z.object({ name: z.string() }), { name: 'a\u0000b' })).toEqual({ name: 'a\u0000b' });
  });
});
