/**
 * Access tiers and platform identity for one UCP operation, transport-neutral: the REST middleware
 * (server/ucp/access.ts) and the MCP tool dispatcher (server/mcp/auth.ts) both call `authenticate`.
 * docs/access.md is the reference; in short:
 *
 * 1. The profile URL (UCP-Agent / meta["ucp-agent"].profile) is checked: https only → else 400
 *    `invalid_profile_url`. It may be missing for the anonymous tier only.
 * 2. The credential decides the tier: a channel API key (`Authorization: Bearer` / `X-API-Key`) →
 *    token; RFC 9421 signature headers → signed; nothing → anonymous. A bad or revoked key → 401.
 * 3. The shop's policy (core/access/access-policy.ts) must allow the tier the operation: anonymous → 401
 *    `identity_required` + WWW-Authenticate; token/signed → 403 `insufficient_scope`.
 * 4. Identity binding: a key acts only for the profile it was issued for (else 403
 *    `profile_not_trusted`); a signature is bound by construction (its key comes from that profile).
 * 5. The profile is fetched and validated (424 `profile_unreachable`, 422 `profile_malformed`),
 *    its version checked (422 `version_unsupported`), a signature verified against its
 *    `signing_keys` (401/400 with the signature codes), and capabilities intersected; the operation's
 *    own capability missing → `CapabilitiesIncompatible` (REST 200 envelope, MCP result).
 */
import type { DB } from '../db/index.ts';
import type { Config } from '../config.ts';
import type { Shop } from '../formats/types.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';
import { UCP_LATEST, UCP_VERSION, type UcpVersion } from '../version.ts';
import { accessPolicy, allows, OPERATION_CAPABILITY, type OperationName, type Tier } from '../core/access/access-policy.ts';
import { verifyChannelKey } from '../core/access/channel-keys.ts';
import { checkStorefrontToken, isStorefrontToken } from '../core/access/storefront-tokens.ts';
import { intersectCapabilities, negotiateVersion, NegotiationError, type CapabilityRegistry } from '../core/access/negotiation.ts';
import { isLoopbackHost, platformProfiles, ProfileError, type ResolvedProfile } from '../core/access/platform-profiles.ts';
import { errorStatus, verify, type VerifyErrorCode } from '../core/access/http-signatures.ts';
import { CAPABILITIES, capabilitiesAt, OLDER_VERSIONS, demoAgentProfileUrl, responseMeta, type Operation } from '../core/shops/ucp-profile.ts';
import { operationClass, spendTransportBudget, type BudgetClient } from './transport-limits.ts';

/** Seconds a signature's `created` may differ from our clock. */
/** Read access to request headers (a `Headers` object, or a thin view over the framework's). */
export interface HeaderReader {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** A view over Hono's request headers: touching `c.req.raw` would build a full `Request` per call. */
export function headerReader(req: { header(name: string): string | undefined }): HeaderReader {
  return { get: (name) => req.header(name) ?? null, has: (name) => req.header(name) !== undefined };
}

export const MAX_CLOCK_SKEW_SECONDS = 300;

export type AccessErrorCode =
  | 'invalid_profile_url'
  | 'profile_unreachable'
  | 'profile_malformed'
  | 'version_unsupported'
  | 'profile_not_trusted'
  | 'identity_required'
  | 'invalid_credentials'
  | 'insufficient_scope'
  | 'rate_limited'
  | VerifyErrorCode;

const DISCOVERY_CODES = new Set(['invalid_profile_url', 'profile_unreachable', 'profile_malformed', 'version_unsupported']);

const KIND_OF_STATUS = { 400: 'malformed', 401: 'unauthorized', 403: 'forbidden', 422: 'invalid', 424: 'unavailable', 429: 'rate_limited' } as const;

/**
 * A refusal. UCP fixes the status and JSON-RPC code per refusal code (docs/access.md table), so
 * this member of the error family carries them; both edges answer with them as they are.
 */
export class AccessDenied extends DomainError {
  declare readonly code: AccessErrorCode;
  readonly status: 400 | 401 | 403 | 422 | 424 | 429;
  readonly rpcCode: -32000 | -32001 | -32600;
  readonly headers: Record<string, string>;
  constructor(
    code: AccessErrorCode,
    message: string,
    status: 400 | 401 | 403 | 422 | 424 | 429,
    headers: Record<string, string> = {},
    /** Seconds until a refused (429) caller may try again; MCP carries it as `retry_after`. */
    readonly retryAfter?: number,
  ) {
    super(KIND_OF_STATUS[status], code, message);
    this.status = status;
    this.headers = headers;
    this.rpcCode = DISCOVERY_CODES.has(code) ? -32001 : code === 'digest_mismatch' || code === 'algorithm_unsupported' ? -32600 : -32000;
  }
}

/** Negotiation found no version of the capability the operation needs: a business outcome (200 / result). */
export class CapabilitiesIncompatible extends DomainError {
  declare readonly code: typeof ERROR_CODES.capabilitiesIncompatible;
  constructor(
    message: string,
    readonly negotiated: ReadonlySet<string>,
    readonly missing: string[],
    /** The protocol version negotiated before the capabilities failed (the envelope answers in it). */
    readonly version: string = UCP_VERSION,
  ) {
    super('invalid', ERROR_CODES.capabilitiesIncompatible, message);
  }
}

/** Response family (which capabilities are relevant) of an operation. */
export function operationFamily(op: OperationName): Operation {
  return op === 'search_catalog' ? 'search' : op === 'lookup_catalog' || op === 'get_product' ? 'lookup' : 'cart';
}

/** UCP error envelope for `capabilities_incompatible` (HTTP 200 on REST, a result on MCP). */
export function incompatibleBody(e: CapabilitiesIncompatible, op: OperationName, origin: string) {
  return {
    ucp: { ...responseMeta(operationFamily(op), e.negotiated), status: 'error' as const },
    messages: [{ type: 'error' as const, code: e.code, content: e.message, severity: 'unrecoverable' as const }],
    continue_url: `${origin}/`,
  };
}

export type Principal =
  | { type: 'storefront' }
  | { type: 'channel_key'; id: string; profileUrl: string }
  | { type: 'signature'; keyid: string; profileUrl: string };

export interface AccessContext {
  tier: Tier;
  principal?: Principal;
  /** Normalized profile URL named by the caller. */
  profileUrl?: string;
  profile?: ResolvedProfile;
  /** Negotiated capability names (all of ours when no profile was named). */
  negotiated: ReadonlySet<string>;
  /** Negotiated protocol version. */
  version: string;
}

/**
 * Who an idempotency key belongs to (issue 39 point 7; docs/security.md "Idempotency keys are the
 * caller's"): a key names one logical write *of its caller*, as Stripe scopes keys to the account.
 * - a channel API key: its id (the credential, whatever address it comes from);
 * - a verified signature: the platform profile its key is published in;
 * - everyone else (anonymous, and the storefront token, which is in every page's HTML and names no
 *   client): what the anonymous tier knows of them, the client address, with the profile URL they
 *   named (unverified, so never enough alone).
 * REST and MCP give the same identity to the same caller, so a key used over one replays over the other.
 */
export function callerIdentity(access: AccessContext | undefined, client: string): string {
  const p = access?.principal;
  if (p?.type === 'channel_key') return `channel_key ${p.id}`;
  if (p?.type === 'signature') return `signed ${p.profileUrl}`;
  return `address ${client} ${p?.type === 'storefront' ? 'storefront' : (access?.profileUrl ?? '-')}`;
}

export interface AuthInput {
  db: DB;
  config: Config;
  shop: Shop;
  operation: OperationName;
  /** The profile URL as sent (UCP-Agent `profile` or MCP meta), or undefined when absent. */
  profileUrl?: string;
  method: string;
  /** Absolute URL as the client addressed it (scheme://host[:port]/path?query), for the signature base. */
  url: string;
  headers: HeaderReader;
  /** The raw request body (read only when a signature must be verified). */
  body(): Promise<Uint8Array | string>;
  /** Unix seconds (tests). */
  now?: number;
  /** The client's address (c.var.client): the budget key of anonymous callers. */
  client: string;
}

const ALL_CAPABILITIES: ReadonlySet<string> = new Set(Object.keys(CAPABILITIES));

export function allowInsecureProfiles(config: Config): boolean {
  return config.allowInsecureProfileUrls === true && config.mode !== 'production';
}

/**
 * A browser request made by a page of another site (issue 47): an `Origin` that is not a page of
 * the developer's own machine (a loopback host: localhost, *.localhost, 127.0.0.0/8, [::1]; `null`
 * counts as foreign), or no `Origin` and `Sec-Fetch-Site: cross-site`. Any web page the developer
 * visits can send such requests (CORS allows `UCP-Agent`); they get the production rules for profile
 * fetches (https, public addresses only), so no page can make a development server fetch loopback
 * or private addresses for it. A page served from loopback (a local agent, the MCP Apps test host)
 * is the developer's own, like a command-line agent, which sends no `Origin`.
 */
export function crossSiteRequest(headers: HeaderReader): boolean {
  const origin = headers.get('origin');
  if (origin !== undefined && origin !== null) {
    try {
      const u = new URL(origin);
      return !((u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname));
    } catch {
      return true; // `null` and anything else that is no origin of ours
    }
  }
  return headers.get('sec-fetch-site')?.trim().toLowerCase() === 'cross-site';
}

/** The profile fetcher for this request: development's (loopback http, localhost names) unless cross-site. */
function profilesFor(config: Config, headers: HeaderReader) {
  if (config.mode === 'production' || crossSiteRequest(headers)) return platformProfiles(false, 'production');
  return platformProfiles(allowInsecureProfiles(config), config.mode);
}

/**
 * What to name instead, appended to every refusal of a profile URL (docs/access.md "Zero setup"):
 * in development the demo agent's profile on this server, in production a published https profile.
 */
export function profileAdvice(config: Config, origin: string): string {
  if (config.mode === 'production') return "Name your platform's published UCP profile: an https URL on a public address.";
  if (allowInsecureProfiles(config)) return `While developing, name the demo agent's profile: ${demoAgentProfileUrl(origin)}.`;
  return `Loopback http profiles are off here (UCP_ALLOW_INSECURE_PROFILE_URLS=0): unset that setting to name the demo agent's profile ${demoAgentProfileUrl(origin)}, or serve your profile over https.`;
}

function realm(origin: string): string {
  return `Bearer realm="${origin.replace(/["\\]/g, '')}"`;
}

/** `Authorization: Bearer <key>` or `X-API-Key: <key>`; undefined when neither. */
function presentedKey(headers: HeaderReader, origin: string): string | undefined {
  const auth = headers.get('authorization')?.trim();
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw new AccessDenied('invalid_credentials', 'Authorization must be `Bearer <channel API key>`.', 401, { 'WWW-Authenticate': `${realm(origin)}, error="invalid_request"` });
    return m[1];
  }
  return headers.get('x-api-key')?.trim() || undefined;
}

const REQUEST_BODY_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Components a request signature must cover (docs/access.md "Signed requests"). */
export function requiredComponents(method: string, url: URL, headers: HeaderReader, hasBody: boolean): string[] {
  const c = ['@method', '@authority', '@path'];
  if (url.search !== '') c.push('@query');
  if (headers.has('ucp-agent')) c.push('ucp-agent');
  if (REQUEST_BODY_METHODS.has(method.toUpperCase()) && headers.has('idempotency-key')) c.push('idempotency-key');
  if (hasBody) c.push('content-digest', 'content-type');
  return c;
}

function signatureError(code: VerifyErrorCode, message: string, origin: string): AccessDenied {
  const { http } = errorStatus(code);
  return new AccessDenied(code, message, http, http === 401 ? { 'WWW-Authenticate': realm(origin) } : {});
}

/** Spends one token of the caller's transport budget; a refusal is 429 `rate_limited` with Retry-After. */
async function spendBudget(input: AuthInput, client: BudgetClient): Promise<void> {
  if (!input.config.transportRateLimits) return;
  const wait = await spendTransportBudget(input.db, input.shop, input.operation, client);
  if (!wait) return;
  const who = client.tier === 'anonymous' ? 'this address' : client.tier === 'token' ? 'this API key' : 'this platform';
  const what = operationClass(input.operation) === 'write' ? 'cart writes' : 'reads';
  throw new AccessDenied('rate_limited', `Too many ${what} from ${who} on this shop. Retry after ${wait} second${wait === 1 ? '' : 's'}.`, 429, { 'Retry-After': String(wait) }, wait);
}

/**
 * A request whose credentials fail (unknown key, bad storefront token, bad signature) names no
 * client we can trust, so it spends its address's anonymous budget: cycling through guessed keys
 * or forged signatures meets 429 at the anonymous rate instead of costing a lookup or a signature
 * check each time for free (docs/security.md).
 */
async function spendOnFailure(input: AuthInput): Promise<void> {
  await spendBudget(input, { tier: 'anonymous', id: input.client });
}

type Profiles = ReturnType<typeof platformProfiles>;

/** Step 1: the profile URL the caller names, normalized, or undefined when it names none. */
function namedProfileUrl(input: AuthInput, profiles: Profiles, origin: string): string | undefined {
  if (input.profileUrl === undefined) return undefined;
  try {
    return profiles.href(input.profileUrl);
  } catch (e) {
    if (e instanceof ProfileError) throw new AccessDenied(e.code, `${e.message} ${profileAdvice(input.config, origin)}`, 400);
    throw e;
  }
}

/**
 * The storefront's own pages (core/access/storefront-tokens.ts): every operation, whatever the
 * policy. The token is in every page's HTML, so it names no client: its callers are shoppers'
 * browsers and spend their address's anonymous budget (docs/security.md).
 */
async function storefrontAccess(input: AuthInput, token: string, origin: string): Promise<AccessContext> {
  const state = checkStorefrontToken(input.shop.id, token, input.now);
  if (state !== 'ok') {
    await spendOnFailure(input);
    throw new AccessDenied('invalid_credentials', state === 'expired' ? 'This storefront page is too old; reload it.' : 'The storefront token is not valid for this shop.', 401, { 'WWW-Authenticate': `${realm(origin)}, error="invalid_token"` });
  }
  await spendBudget(input, { tier: 'anonymous', id: input.client });
  return { tier: 'token', principal: { type: 'storefront' }, negotiated: ALL_CAPABILITIES, version: UCP_VERSION };
}

/** Step 3: the shop's policy must let the tier call the operation (cheap: before any key lookup or profile fetch). */
function checkPolicy(shop: Shop, tier: Tier, operation: OperationName, origin: string): void {
  if (allows(accessPolicy(shop), tier, operation)) return;
  if (tier === 'anonymous') {
    throw new AccessDenied('identity_required', `${operation} needs a channel API key or a signed request on this shop.`, 401, { 'WWW-Authenticate': realm(origin) });
  }
  throw new AccessDenied('insufficient_scope', `The ${tier} tier may not call ${operation} on this shop.`, 403);
}

/** Steps 2 and 4 for a channel API key: known and live, and acting for the profile it was issued for. */
async function channelKeyPrincipal(input: AuthInput, key: string, profileUrl: string | undefined, origin: string): Promise<Principal & { type: 'channel_key' }> {
  const record = await verifyChannelKey(input.db, input.shop.id, key);
  if (!record) {
    await spendOnFailure(input);
    throw new AccessDenied('invalid_credentials', 'The API key is not valid for this shop (unknown or revoked).', 401, { 'WWW-Authenticate': `${realm(origin)}, error="invalid_token"` });
  }
  if (profileUrl === undefined) {
    throw new AccessDenied('invalid_profile_url', 'A request with a channel API key must name its platform profile (UCP-Agent: profile="https://…").', 400);
  }
  if (record.profile_url !== profileUrl) {
    throw new AccessDenied('profile_not_trusted', `This API key was issued for ${record.profile_url}, not for ${profileUrl}.`, 403);
  }
  await spendBudget(input, { tier: 'token', id: record.id });
  return { type: 'channel_key', id: record.id, profileUrl };
}

/** Step 5: the profile fetched and validated, and the UCP version it and this business share. */
async function resolveProfile(input: AuthInput, profiles: Profiles, profileUrl: string, origin: string): Promise<{ resolved: ResolvedProfile; version: string }> {
  let resolved: ResolvedProfile;
  try {
    resolved = await profiles.get(profileUrl);
  } catch (e) {
    if (e instanceof ProfileError) {
      const advice = input.config.mode === 'production' ? '' : ` ${profileAdvice(input.config, origin)}`;
      throw new AccessDenied(e.code, `${e.message}${advice}`, e.code === 'profile_unreachable' ? 424 : e.code === 'profile_malformed' ? 422 : 400);
    }
    throw e;
  }
  try {
    return { resolved, version: negotiated(resolved).version };
  } catch (e) {
    if (e instanceof NegotiationError) throw new AccessDenied('version_unsupported', e.message, 422);
    throw e;
  }
}

/**
 * A signature verified with the profile's keys; an unknown kid forces one refresh of the profile
 * (at most once per origin per minute). Returns the key id and the profile as it now stands. A
 * failed signature with no channel key behind it (`keyed` false) names no client: the caller's
 * address budget pays for it.
 */
async function verifySignature(input: AuthInput, profiles: Profiles, resolved: ResolvedProfile, profileUrl: string, origin: string, keyed: boolean): Promise<{ keyid: string; resolved: ResolvedProfile }> {
  const url = new URL(input.url);
  const body = REQUEST_BODY_METHODS.has(input.method.toUpperCase()) ? await input.body() : '';
  const hasBody = (typeof body === 'string' ? body.length : body.byteLength) > 0;
  let current = resolved;
  const result = await verify({
    message: { method: input.method, url, headers: input.headers },
    requiredComponents: requiredComponents(input.method, url, input.headers, hasBody),
    ...(hasBody ? { body } : {}),
    maxSkewSeconds: MAX_CLOCK_SKEW_SECONDS,
    ...(input.now !== undefined ? { now: input.now } : {}),
    resolveKey: async (kid) => {
      // A 2026-08-25 profile publishes its keys as `keys` (its verifiers read only those); older ones as `signing_keys`.
      const find = (p: ResolvedProfile) => (p.profile.ucp.version >= UCP_LATEST ? p.profile.keys : p.profile.signing_keys)?.find((k) => k.kid === kid);
      let jwk = find(current);
      if (!jwk) {
        const fresh = await profiles.refresh(profileUrl).catch(() => null);
        if (fresh) {
          current = fresh;
          jwk = find(fresh);
        }
      }
      return (jwk as never) ?? null;
    },
  });
  if (!result.ok) {
    if (!keyed) await spendOnFailure(input);
    throw signatureError(result.code, result.message, origin);
  }
  return { keyid: result.keyid, resolved: current };
}

export async function authenticate(input: AuthInput): Promise<AccessContext> {
  const { config, shop, operation, headers } = input;
  const origin = new URL(input.url).origin;
  const profiles = profilesFor(config, headers);
  const profileUrl = namedProfileUrl(input, profiles, origin);

  // 2. The tier, from the credential presented.
  const key = presentedKey(headers, origin);
  if (key !== undefined && isStorefrontToken(key)) return storefrontAccess(input, key, origin);
  const signed = headers.has('signature') || headers.has('signature-input');
  const tier: Tier = key !== undefined ? 'token' : signed ? 'signed' : 'anonymous';

  // 3. Policy first (no profile fetch for callers that are refused anyway); anonymous callers then
  // spend their address's budget before any further work (profile fetches included).
  checkPolicy(shop, tier, operation, origin);
  if (tier === 'anonymous') await spendBudget(input, { tier, id: input.client });

  let principal: Principal | undefined;
  if (key !== undefined) principal = await channelKeyPrincipal(input, key, profileUrl, origin);
  else if (signed && profileUrl === undefined) {
    throw new AccessDenied('invalid_profile_url', 'A signed request must name its platform profile (UCP-Agent: profile="https://…"), where its signing key is published.', 400);
  }
  if (profileUrl === undefined) return { tier, negotiated: ALL_CAPABILITIES, version: UCP_VERSION };

  const fetched = await resolveProfile(input, profiles, profileUrl, origin);
  const version = fetched.version;
  let resolved = fetched.resolved;
  if (signed) {
    const checked = await verifySignature(input, profiles, resolved, profileUrl, origin, principal !== undefined);
    resolved = checked.resolved;
    if (!principal) {
      principal = { type: 'signature', keyid: checked.keyid, profileUrl };
      await spendBudget(input, { tier, id: profileUrl });
    }
  }

  // Capability intersection; the operation's capability must survive.
  const { capabilities } = negotiated(resolved);
  const needed = OPERATION_CAPABILITY[operation];
  if (!capabilities.has(needed)) {
    throw new CapabilitiesIncompatible(`The platform profile ${profileUrl} offers no version of ${needed} that this business supports (UCP ${version}).`, capabilities, [needed], version);
  }
  return { tier, ...(principal ? { principal } : {}), profileUrl, profile: resolved, negotiated: capabilities, version };
}

/**
 * Version and capability negotiation with one fetched profile, computed once per profile document:
 * the profile cache hands out the same object until it refetches, and an agent names the same
 * profile on every call (a NegotiationError is not remembered: it is thrown again each time).
 */
const negotiations = new WeakMap<ResolvedProfile, { version: string; capabilities: ReadonlySet<string> }>();
function negotiated(resolved: ResolvedProfile): { version: string; capabilities: ReadonlySet<string> } {
  let n = negotiations.get(resolved);
  if (!n) {
    // The latest version is ours; older ones are served through their leaf profiles (server/ucp/versions.ts).
    const version = negotiateVersion(UCP_LATEST, resolved.profile.ucp.version, OLDER_VERSIONS).version as UcpVersion;
    const business = capabilitiesAt(version) as unknown as CapabilityRegistry;
    const platform = (resolved.profile.ucp.capabilities ?? {}) as unknown as CapabilityRegistry;
    n = { version, capabilities: new Set(intersectCapabilities(business, platform, { protocolVersion: version }).keys()) };
    negotiations.set(resolved, n);
  }
  return n;
}
