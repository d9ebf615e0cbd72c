/**
 * A test platform (docs/access.md): valid UCP platform profiles, an in-memory profile "network"
 * installed as the server's profile fetcher (same process as startTestServer), and an RFC 9421
 * signing client (node:crypto ES256, raw r||s) for signed requests.
 */
import { createHash, generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { configurePlatformProfiles, type FetchLike } from '../../server/core/access/platform-profiles.ts';

const SITE = 'https://ucp.dev/2026-04-08';
export const CAP_ENTRIES: Record<string, Record<string, unknown>> = {
  'dev.ucp.shopping.catalog.search': { version: '2026-04-08', spec: `${SITE}/specification/catalog/search`, schema: `${SITE}/schemas/shopping/catalog_search.json` },
  'dev.ucp.shopping.catalog.lookup': { version: '2026-04-08', spec: `${SITE}/specification/catalog/lookup`, schema: `${SITE}/schemas/shopping/catalog_lookup.json` },
  'dev.ucp.shopping.cart': { version: '2026-04-08', spec: `${SITE}/specification/cart`, schema: `${SITE}/schemas/shopping/cart.json` },
  'dev.ucp.shopping.discount': { version: '2026-04-08', spec: `${SITE}/specification/discount`, schema: `${SITE}/schemas/shopping/discount.json`, extends: 'dev.ucp.shopping.cart' },
};

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, string>;
}

export function makeKey(kid: string, curve: 'P-256' | 'P-384' = 'P-256'): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kid, privateKey, jwk: { kid, kty, crv, x, y, use: 'sig', alg: curve === 'P-256' ? 'ES256' : 'ES384' } };
}

/** A valid platform profile naming `caps` (default: all four of ours) and publishing `keys`. */
export function platformProfile(opts: { caps?: string[]; keys?: TestKey[]; version?: string } = {}) {
  const caps = opts.caps ?? Object.keys(CAP_ENTRIES);
  return {
    ucp: {
      version: opts.version ?? '2026-04-08',
      services: {
        'dev.ucp.shopping': [
          { version: '2026-04-08', transport: 'rest', spec: `${SITE}/specification/overview`, schema: `${SITE}/services/shopping/rest.openapi.json` },
          { version: '2026-04-08', transport: 'mcp', spec: `${SITE}/specification/overview`, schema: `${SITE}/services/shopping/mcp.openrpc.json` },
        ],
      },
      capabilities: Object.fromEntries(caps.map((c) => [c, [CAP_ENTRIES[c]]])),
      payment_handlers: {},
    },
    ...(opts.keys ? { signing_keys: opts.keys.map((k) => k.jwk) } : {}),
  };
}

/**
 * A valid UCP 2026-08-25 platform profile (issue 37): every entry at 2026-08-25, its URLs under that
 * release, and keys published as `keys` (2026-08-25 renamed `signing_keys`).
 */
export function platformProfile20260825(opts: { caps?: string[]; keys?: TestKey[] } = {}) {
  const v = '2026-08-25';
  const retag = (e: Record<string, unknown>) =>
    Object.fromEntries(Object.entries({ ...e, version: v }).map(([k, x]) => [k, typeof x === 'string' ? x.replace('/2026-04-08/', `/${v}/`) : x]));
  const { ucp } = platformProfile({ caps: opts.caps });
  return {
    ucp: {
      version: v,
      services: { 'dev.ucp.shopping': ucp.services['dev.ucp.shopping'].map(retag) },
      capabilities: Object.fromEntries(Object.entries(ucp.capabilities).map(([name, entries]) => [name, entries.map(retag)])),
      payment_handlers: {},
    },
    ...(opts.keys ? { keys: opts.keys.map((k) => k.jwk) } : {}),
  };
}

export type Served = unknown | ((url: string) => Response | Promise<Response>);

/**
 * Installs an in-memory network for the profile fetcher: each URL answers its JSON (or a handler's
 * Response); anything else answers `fallback`, or fails like an unreachable host without one.
 * Returns the per-URL fetch counts.
 */
export function serveProfiles(routes: Record<string, Served>, fallback?: Served): { hits: Map<string, number>; routes: Record<string, Served> } {
  const hits = new Map<string, number>();
  const fetchImpl: FetchLike = async (url) => {
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const r = routes[url] ?? fallback;
    if (r === undefined) throw new TypeError(`fetch failed (getaddrinfo ENOTFOUND ${new URL(url).hostname})`);
    if (typeof r === 'function') return (r as (u: string) => Response | Promise<Response>)(url);
    return new Response(JSON.stringify(r), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } });
  };
  configurePlatformProfiles({ fetch: fetchImpl });
  return { hits, routes };
}

/** Headers for a request signed per docs/access.md (override pieces to build broken ones). */
export function signRequest(opts: {
  key: TestKey;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  components?: string[];
  created?: number;
  digestOf?: string;
  label?: string;
  alg?: string;
}): Record<string, string> {
  const url = new URL(opts.url);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const lower = (n: string) => Object.keys(headers).find((k) => k.toLowerCase() === n);
  if (opts.body !== undefined && opts.body !== '') {
    headers['content-digest'] = `sha-256=:${createHash('sha256').update(opts.digestOf ?? opts.body).digest('base64')}:`;
    if (!lower('content-type')) headers['content-type'] = 'application/json';
  }
  const components = opts.components ?? [
    '@method', '@authority', '@path',
    ...(url.search ? ['@query'] : []),
    ...(lower('ucp-agent') ? ['ucp-agent'] : []),
    ...(lower('idempotency-key') ? ['idempotency-key'] : []),
    ...(opts.body ? ['content-digest', 'content-type'] : []),
  ];
  const value = (c: string): string => {
    switch (c) {
      case '@method': return opts.method.toUpperCase();
      case '@authority': return url.host;
      case '@path': return url.pathname;
      case '@query': return url.search || '?';
      default: return headers[lower(c) ?? c] ?? '';
    }
  };
  const created = opts.created ?? Math.floor(Date.now() / 1000);
  const params = `(${components.map((c) => `"${c}"`).join(' ')});created=${created};keyid="${opts.key.kid}"${opts.alg ? `;alg="${opts.alg}"` : ''}`;
  const base = [...components.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${params}`].join('\n');
  const curve = opts.key.jwk.crv === 'P-384' ? 'sha384' : 'sha256';
  const sig = nodeSign(curve, Buffer.from(base), { key: opts.key.privateKey, dsaEncoding: 'ieee-p1363' });
  const label = opts.label ?? 'sig1';
  return { ...headers, 'signature-input': `${label}=${params}`, signature: `${label}=:${sig.toString('base64')}:` };
}
