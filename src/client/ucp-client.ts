/**
 * `ucp-storefront/client`: a typed UCP client for agent builders (docs/client.md).
 *
 *   const shop = createUcpClient({ business: 'http://demo.localhost:8080', profile: 'https://me.example/.well-known/ucp' });
 *   const r = await shop.searchCatalog({ query: 'flask' });
 *   if (r.ok) r.data.products; else r.messages;   // UCP errors are values, never exceptions
 *
 * It finds the shop's endpoints in its discovery profile (`{business}/.well-known/ucp`), then speaks
 * REST (`UCP-Agent` header, `Idempotency-Key` header) or MCP (the same in `arguments.meta`). Both
 * transports give the same `Result` (./result.ts, shared with host.js's widget client), retry
 * 429/503 honouring `Retry-After` (./retry.ts), and make a fresh idempotency key for every write
 * (create, update, cancel) unless the caller passes one or `false` (pass the same key to repeat a call safely).
 * Request and response types are the wire schemas' (src/wire), as the server validates them.
 *
 * Versions (UCP 2026-04-08 and 2026-08-25, docs/client.md "Versions"): a shop answers in the version
 * of the platform profile you name. Give one profile URL per version you have a profile for
 * (`profile: {'2026-08-25': …, '2026-04-08': …}`) and the client speaks the newest version the shop
 * also serves (its `/.well-known/ucp` `version` and `supported_versions`), or the one `version` pins.
 * A single URL is sent as is: its own `ucp.version` decides.
 */
import type { Cart, CreateCartRequest, UpdateCartRequest } from '../wire/cart.ts';
import type { GetProductRequest, GetProductResponse, LookupRequest, LookupResponse, SearchRequest, SearchResponse } from '../wire/catalog.ts';
import type { McpTransport } from './mcp-transport.ts';
import { localhostAwareFetch } from './localhost.ts';
import { fail, failureCause, request, type Result } from './result.ts';
import { retryingFetch, type RetryOptions } from './retry.ts';
import { gradeMessages } from '../wire/errors.ts';
import { UCP_VERSIONS, type UcpVersion } from '../wire/version.ts';

export interface UcpClientOptions {
  /** The shop (business) origin, e.g. `https://shop.example` or `http://demo.localhost:8080`. */
  business: string;
  /**
   * Your platform profile URL (sent as `UCP-Agent: profile="…"` on REST, `meta["ucp-agent"].profile` on
   * MCP), or one URL per UCP version you publish a profile for: the client then picks the version.
   */
  profile: string | Partial<Record<UcpVersion, string>>;
  /** With per-version profiles: speak this version (it must be one the shop serves), not the newest shared one. */
  version?: UcpVersion;
  /** Default `rest`. */
  transport?: 'rest' | 'mcp';
  /** A fetch to use instead of the global one (proxies, logging, tests), used as given: build it on `localhostFetch` to reach `*.localhost` from Node. */
  fetch?: typeof fetch;
  /** A channel API key (docs/access.md), sent as `Authorization: Bearer …`. */
  apiKey?: string;
  /** 429/503 retries (default: 3 retries, at most 30 s per wait); `false` turns them off. */
  retry?: RetryOptions | false;
  /** The service endpoints, when known: skips discovery. */
  endpoints?: Partial<Endpoints>;
}

export interface Endpoints {
  /** The REST base, e.g. `https://shop.example/api/ucp`. */
  rest: string;
  /** The MCP endpoint, e.g. `https://shop.example/mcp`. */
  mcp: string;
}

export interface CallOptions {
  /**
   * Reuse a key to repeat a call safely (same key + same request = the first answer); default: a new
   * UUID on every write (create, update, cancel). `false` sends none (the server then applies a
   * retried write twice, and a development server's inspector says so).
   */
  idempotencyKey?: string | false;
}

export interface UcpClient {
  readonly transport: 'rest' | 'mcp';
  searchCatalog(req: SearchRequest): Promise<Result<SearchResponse>>;
  lookupCatalog(req: LookupRequest): Promise<Result<LookupResponse>>;
  getProduct(req: GetProductRequest): Promise<Result<GetProductResponse>>;
  createCart(req: CreateCartRequest, opts?: CallOptions): Promise<Result<Cart>>;
  getCart(id: string): Promise<Result<Cart>>;
  updateCart(id: string, req: UpdateCartRequest, opts?: CallOptions): Promise<Result<Cart>>;
  cancelCart(id: string, opts?: CallOptions): Promise<Result<Cart>>;
  /** The endpoints in use (discovered on first use). */
  endpoints(): Promise<Endpoints>;
  /** The UCP version the client speaks with this shop (chosen on first use); undefined with a single profile URL (its own version decides). */
  version(): Promise<UcpVersion | undefined>;
  /** Closes the MCP connection, if one was opened. */
  close(): Promise<void>;
}

/** One operation, named for both transports. */
interface Op {
  tool: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** Where the request body goes in the tool arguments. */
  arg?: 'catalog' | 'cart';
  id?: string;
  body?: unknown;
  key?: string;
}

const CLIENT_INFO = { name: 'ucp-storefront-client', version: '0.1.0' };

/** RFC 8941 sf-string. */
const sfString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** A discovery or connection failure, with what Node said (`connect ECONNREFUSED 127.0.0.1:8080`). */
const networkText = (e: unknown) => {
  const own = (e as Error)?.message ?? String(e);
  if ((e as { cause?: unknown })?.cause === undefined) return own;
  const why = failureCause(e);
  return own === 'fetch failed' ? `The store could not be reached (${why}).` : `${own} (${why})`;
};

async function fetchProfile(url: string, fetchImpl: typeof fetch): Promise<any> {
  const res = await fetchImpl(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`UCP discovery: ${url} answered HTTP ${res.status}.`);
  return res.json();
}

function endpointsOf(profile: any): Endpoints {
  const services: Array<{ transport?: string; endpoint?: string }> = profile?.ucp?.services?.['dev.ucp.shopping'] ?? [];
  const find = (t: string) => services.find((s) => s?.transport === t && typeof s.endpoint === 'string')?.endpoint ?? '';
  return { rest: find('rest'), mcp: find('mcp') };
}

/** The shopping service's REST and MCP endpoints from a discovery profile. */
export async function discoverEndpoints(business: string, fetchImpl: typeof fetch = localhostAwareFetch(fetch)): Promise<Endpoints> {
  return endpointsOf(await fetchProfile(`${business.replace(/\/+$/, '')}/.well-known/ucp`, fetchImpl));
}

/**
 * The version to speak and the endpoints of its profile (the spec's "Version Selection"): the
 * newest version the shop serves (`version` + `supported_versions`) that we have a profile for, or
 * the pinned one; an older version's endpoints come from its leaf profile, whose own `ucp.version`
 * must be that version.
 */
export async function selectVersion(business: string, ours: readonly string[], fetchImpl: typeof fetch, pin?: string): Promise<{ version: UcpVersion; endpoints: Endpoints }> {
  const top = await fetchProfile(`${business.replace(/\/+$/, '')}/.well-known/ucp`, fetchImpl);
  const current: string = top?.ucp?.version;
  const older: Record<string, string> = top?.ucp?.supported_versions ?? {};
  const offered = [current, ...Object.keys(older)];
  const version = (pin !== undefined ? [pin] : [...UCP_VERSIONS].reverse()).find((v) => ours.includes(v) && offered.includes(v)) as UcpVersion | undefined;
  if (!version) throw new Error(`UCP versions: the shop serves ${offered.join(', ')}; this client has profiles for ${ours.join(', ') || 'none'}${pin ? ` (pinned ${pin})` : ''}.`);
  if (version === current) return { version, endpoints: endpointsOf(top) };
  const leaf = await fetchProfile(older[version], fetchImpl);
  if (leaf?.ucp?.version !== version) throw new Error(`UCP discovery: ${older[version]} declares UCP ${String(leaf?.ucp?.version)}, not ${version}; not used.`);
  return { version, endpoints: endpointsOf(leaf) };
}

/** Which profile URLs the options give, per version (`undefined` key: a single URL, version unknown). */
function profilesOf(opts: UcpClientOptions): { single?: string; byVersion: Partial<Record<UcpVersion, string>> } {
  if (typeof opts.profile === 'string') {
    if (opts.version !== undefined) throw new TypeError('version pins one of several per-version profiles: pass profile as {[version]: url}.');
    return { single: opts.profile, byVersion: {} };
  }
  const byVersion = Object.fromEntries(Object.entries(opts.profile ?? {}).filter(([v, url]) => (UCP_VERSIONS as readonly string[]).includes(v) && typeof url === 'string' && url));
  if (!Object.keys(byVersion).length) throw new TypeError(`profile needs a URL for at least one of ${UCP_VERSIONS.join(', ')}.`);
  if (opts.version !== undefined && !byVersion[opts.version]) throw new TypeError(`version ${opts.version} is pinned but profile names no URL for it.`);
  return { byVersion };
}

/** What the client found out about the shop on first use: its endpoints, and the version and profile it speaks with. */
interface Session {
  endpoints: Endpoints;
  version?: UcpVersion;
  profile: string;
}

export function createUcpClient(opts: UcpClientOptions): UcpClient {
  const transport = checkedTransport(opts);
  const profiles = profilesOf(opts);
  // Your fetch as given; the default one also reaches `*.localhost` shops from Node (./localhost.ts).
  const base = opts.fetch ?? localhostAwareFetch((input, init) => fetch(input, init));
  const send = opts.retry === false ? base : retryingFetch(base, opts.retry);
  const session = sessionOf(opts, profiles, send);
  const wire = wireOf(opts, transport, session, send);
  const call = wire.call;

  const cartPath = (id: string) => `/carts/${encodeURIComponent(id)}`;
  // Every write carries a key unless told not to (issue 39 point 11: updateCart sent none).
  const newKey = (o?: CallOptions) => (o?.idempotencyKey === false ? undefined : (o?.idempotencyKey ?? globalThis.crypto.randomUUID()));

  return {
    transport,
    searchCatalog: (body) => call({ tool: 'search_catalog', method: 'POST', path: '/catalog/search', arg: 'catalog', body }),
    lookupCatalog: (body) => call({ tool: 'lookup_catalog', method: 'POST', path: '/catalog/lookup', arg: 'catalog', body }),
    getProduct: (body) => call({ tool: 'get_product', method: 'POST', path: '/catalog/product', arg: 'catalog', body }),
    createCart: (body, o) => call({ tool: 'create_cart', method: 'POST', path: '/carts', arg: 'cart', body, key: newKey(o) }),
    getCart: (id) => call({ tool: 'get_cart', method: 'GET', path: cartPath(id), id }),
    updateCart: (id, body, o) => call({ tool: 'update_cart', method: 'PUT', path: cartPath(id), arg: 'cart', id, body, key: newKey(o) }),
    cancelCart: (id, o) => call({ tool: 'cancel_cart', method: 'POST', path: `${cartPath(id)}/cancel`, id, key: newKey(o) }),
    endpoints: async () => (await session()).endpoints,
    version: async () => (await session()).version,
    close: wire.close,
  };
}

/** The transport the options name, once the options a client cannot work without are there. */
function checkedTransport(opts: UcpClientOptions): 'rest' | 'mcp' {
  const transport = opts.transport ?? 'rest';
  if (transport !== 'rest' && transport !== 'mcp') throw new TypeError(`transport must be 'rest' or 'mcp', not ${String(transport)}.`);
  if (!opts.business) throw new TypeError('business (the shop origin) is required.');
  if (!opts.profile) throw new TypeError('profile (your platform profile URL) is required.');
  return transport;
}

/**
 * The session, found on first use and kept: with a single profile URL, the endpoints from discovery
 * (unless the options give both); with per-version profiles, the version the shop and we share and
 * its endpoints. A failed discovery is tried again on the next call.
 */
function sessionOf(opts: UcpClientOptions, profiles: ReturnType<typeof profilesOf>, send: typeof fetch): () => Promise<Session> {
  let found: Promise<Session> | undefined;
  const discover = async (): Promise<Session> => {
    const known = opts.endpoints ?? {};
    if (profiles.single !== undefined) {
      const d = known.rest && known.mcp ? { rest: '', mcp: '' } : await discoverEndpoints(opts.business, send);
      return { endpoints: { rest: known.rest ?? d.rest, mcp: known.mcp ?? d.mcp }, profile: profiles.single };
    }
    const chosen = await selectVersion(opts.business, Object.keys(profiles.byVersion), send, opts.version);
    return { endpoints: { rest: known.rest ?? chosen.endpoints.rest, mcp: known.mcp ?? chosen.endpoints.mcp }, version: chosen.version, profile: profiles.byVersion[chosen.version]! };
  };
  return () =>
    (found ??= discover().catch((e) => {
      found = undefined;
      throw e;
    }));
}

/**
 * One operation over the client's transport (`call`), every failure a `Result` with the severity of
 * the shared rule (a flat error's, with no messages of its own, from its status); `close` ends the
 * MCP connection, opened on the first MCP call.
 */
function wireOf(opts: UcpClientOptions, transport: 'rest' | 'mcp', session: () => Promise<Session>, send: typeof fetch) {
  const auth: Record<string, string> = opts.apiKey ? { Authorization: `Bearer ${opts.apiKey}` } : {};
  const endpoint = async (t: keyof Endpoints) => {
    const e = (await session()).endpoints[t];
    if (!e) throw new Error(`The shop at ${opts.business} offers no ${t} transport (see its /.well-known/ucp).`);
    return e;
  };
  let mcp: Promise<McpTransport> | undefined;
  const mcpTransport = () => (mcp ??= import('./mcp-transport.ts').then((m) => new m.McpTransport(() => endpoint('mcp'), send, auth, CLIENT_INFO)));

  async function sendOp<T>(op: Op): Promise<Result<T>> {
    let profile: string;
    try {
      profile = (await session()).profile;
    } catch (e) {
      return fail(0, 'network_error', networkText(e));
    }
    return transport === 'mcp' ? sendMcp<T>(mcpTransport, op, profile) : sendRest<T>(send, () => endpoint('rest'), op, profile, auth);
  }

  return {
    async call<T>(op: Op): Promise<Result<T>> {
      const r = await sendOp<T>(op);
      return r.ok ? r : { ...r, messages: gradeMessages(r.messages, r.status) };
    },
    async close(): Promise<void> {
      const m = mcp;
      mcp = undefined;
      // A transport that never loaded (no MCP SDK installed: the call already said so) has nothing to close.
      if (m) await (await m.catch(() => undefined))?.close();
    },
  };
}

/** An operation as an MCP `tools/call`: the profile and the idempotency key travel in `arguments.meta`. */
async function sendMcp<T>(mcp: () => Promise<McpTransport>, op: Op, profile: string): Promise<Result<T>> {
  const meta: Record<string, unknown> = { 'ucp-agent': { profile }, ...(op.key ? { 'idempotency-key': op.key } : {}) };
  const args: Record<string, unknown> = { ...(op.id !== undefined ? { id: op.id } : {}), ...(op.arg ? { [op.arg]: op.body ?? {} } : {}) };
  try {
    return await (await mcp()).call<T>({ tool: op.tool, args, meta, arg: op.arg });
  } catch (e) {
    return fail(0, 'network_error', networkText(e));
  }
}

/** An operation as a REST request: the profile in `UCP-Agent`, the idempotency key in `Idempotency-Key`. */
async function sendRest<T>(send: typeof fetch, base: () => Promise<string>, op: Op, profile: string, auth: Record<string, string>): Promise<Result<T>> {
  let url: string;
  try {
    url = (await base()) + op.path;
  } catch (e) {
    return fail(0, 'network_error', networkText(e));
  }
  const headers: Record<string, string> = { Accept: 'application/json', 'UCP-Agent': `profile=${sfString(profile)}`, ...auth };
  if (op.body !== undefined) headers['Content-Type'] = 'application/json';
  if (op.key) headers['Idempotency-Key'] = op.key;
  return request<T>(send, url, { method: op.method, headers, body: op.body === undefined ? undefined : JSON.stringify(op.body) });
}
