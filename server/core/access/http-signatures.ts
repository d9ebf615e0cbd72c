/**
 * HTTP Message Signatures (RFC 9421) and Content-Digest (RFC 9530), as UCP uses them
 * (signatures.md): ES256 over the signature base, the signature as raw `r||s` (64 bytes, never DER),
 * `Content-Digest: sha-256=:<b64>:` over the raw body bytes. Transport-free: a message is a method,
 * URL, status and headers, so the same helpers sign outgoing webhooks and verify inbound requests
 * (REST, MCP) or responses.
 *
 * Supported: derived components `@method @authority @path @query @scheme @target-uri @status`, header
 * fields by lower-case name (no component parameters such as `;sf` or `;req`), keys EC P-256 (ES256,
 * `ecdsa-p256-sha256`) and P-384 (ES384, `ecdsa-p384-sha384`, optional in UCP).
 */
import { createHash, createPublicKey, KeyObject, sign as nodeSign, verify as nodeVerify, type JsonWebKey } from 'node:crypto';
import { parseDictionary, serializeInnerList, type InnerList, type Item, type Parameters } from 'structured-headers';
import { DomainError } from '../shared/errors.ts';

/** Request or response headers: anything with `get` (a `Headers`), or a plain record. */
export type HeaderBag = { get(name: string): string | null } | Record<string, string | string[] | number | undefined>;

/** What a signature covers: a request (method + url) or a response (status), plus its headers. */
export interface HttpMessage {
  method?: string;
  /** Absolute URL of the request (of the request a response answers, for `@method`/`@path`/...). */
  url?: string | URL;
  status?: number;
  headers: HeaderBag;
}

export interface SignatureParams {
  created?: number;
  expires?: number;
  keyid?: string;
  alg?: string;
  nonce?: string;
  tag?: string;
}

export type VerifyErrorCode = 'signature_missing' | 'signature_invalid' | 'key_not_found' | 'digest_mismatch' | 'algorithm_unsupported';

/** A request signature that does not verify: `unauthorized`, except a body that does not match its digest or an algorithm we do not take (`malformed`). */
export class SignatureError extends DomainError {
  declare readonly code: VerifyErrorCode;
  constructor(code: VerifyErrorCode, message: string) {
    super(code === 'digest_mismatch' || code === 'algorithm_unsupported' ? 'malformed' : 'unauthorized', code, message);
  }
}

/* ------------------------------------------------------------------ Content-Digest (RFC 9530) */

/** A Map: the algorithm names come from the request's header, and an object would also answer `constructor`. */
const DIGEST_ALGS = new Map([
  ['sha-256', 'sha256'],
  ['sha-512', 'sha512'],
]);

const bytesOf = (body: Uint8Array | string): Uint8Array => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** `sha-256=:<base64 of sha256(raw bytes)>:` */
export function contentDigest(body: Uint8Array | string, alg: 'sha-256' | 'sha-512' = 'sha-256'): string {
  return `${alg}=:${createHash(DIGEST_ALGS.get(alg)!).update(bytesOf(body)).digest('base64')}:`;
}

/**
 * Checks a `Content-Digest` value against the raw body. Every supported algorithm present must
 * match and at least one must be present; unknown algorithms are ignored (RFC 9530 §2).
 */
export function checkContentDigest(body: Uint8Array | string, header: string | null | undefined): { ok: true } | { ok: false; code: 'digest_mismatch'; message: string } {
  if (!header) return { ok: false, code: 'digest_mismatch', message: 'Content-Digest is missing.' };
  let dict;
  try {
    dict = parseDictionary(header);
  } catch {
    return { ok: false, code: 'digest_mismatch', message: 'Content-Digest is not a structured dictionary.' };
  }
  let checked = 0;
  for (const [alg, member] of dict) {
    const hash = DIGEST_ALGS.get(alg);
    if (!hash) continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) return { ok: false, code: 'digest_mismatch', message: `Content-Digest ${alg} is not a byte sequence.` };
    const actual = createHash(hash).update(bytesOf(body)).digest();
    if (!actual.equals(Buffer.from(value))) return { ok: false, code: 'digest_mismatch', message: `Content-Digest ${alg} does not match the body.` };
    checked++;
  }
  return checked ? { ok: true } : { ok: false, code: 'digest_mismatch', message: 'Content-Digest has no supported algorithm (sha-256, sha-512).' };
}

/* ------------------------------------------------------------------ signature base (RFC 9421 §2.5) */

function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    const v = (headers as { get(name: string): string | null }).get(name);
    return v === null ? undefined : v;
  }
  const rec = headers as Record<string, string | string[] | number | undefined>;
  const values: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    if (Array.isArray(v)) values.push(...v);
    else values.push(String(v));
  }
  return values.length ? values.join(', ') : undefined;
}

/** Header field value as RFC 9421 §2.1 canonicalizes it: trimmed, obs-fold removed, repeats joined by ", ". */
function canonicalField(value: string): string {
  return value
    .split(/\r?\n/)
    .map((s) => s.trim())
    .join(' ')
    .trim();
}

function urlOf(message: HttpMessage, component: string): URL {
  if (message.url === undefined) throw new SignatureError('signature_invalid', `${component} needs the request URL.`);
  return typeof message.url === 'string' ? new URL(message.url) : message.url;
}

function componentValue(name: string, message: HttpMessage): string {
  switch (name) {
    case '@method':
      if (!message.method) throw new SignatureError('signature_invalid', '@method needs the request method.');
      return message.method.toUpperCase();
    case '@authority':
      // WHATWG URL already drops a default port; the host is lower-cased.
      return urlOf(message, name).host.toLowerCase();
    case '@scheme':
      return urlOf(message, name).protocol.replace(/:$/, '').toLowerCase();
    case '@target-uri':
      return urlOf(message, name).href;
    case '@path':
      return urlOf(message, name).pathname || '/';
    case '@query': {
      const search = urlOf(message, name).search;
      return search === '' ? '?' : search;
    }
    case '@status':
      if (message.status === undefined) throw new SignatureError('signature_invalid', '@status needs a response status.');
      return String(message.status);
    default: {
      if (name.startsWith('@')) throw new SignatureError('signature_invalid', `Unsupported derived component ${name}.`);
      if (name !== name.toLowerCase()) throw new SignatureError('signature_invalid', `Component ${name} must be lower case.`);
      const v = headerValue(message.headers, name);
      if (v === undefined) throw new SignatureError('signature_invalid', `The message has no ${name} header, which the signature covers.`);
      return canonicalField(v);
    }
  }
}

function paramsMap(params: SignatureParams): Parameters {
  const m: Parameters = new Map();
  // Order as given by the RFC's examples: created, expires, keyid, alg, nonce, tag.
  if (params.created !== undefined) m.set('created', params.created);
  if (params.expires !== undefined) m.set('expires', params.expires);
  if (params.keyid !== undefined) m.set('keyid', params.keyid);
  if (params.alg !== undefined) m.set('alg', params.alg);
  if (params.nonce !== undefined) m.set('nonce', params.nonce);
  if (params.tag !== undefined) m.set('tag', params.tag);
  return m;
}

/** The serialized `@signature-params` value, e.g. `("@method" "@path");created=1;keyid="k"`. */
export function signatureParamsValue(components: string[], params: SignatureParams | Parameters): string {
  const list: InnerList = [components.map((c): Item => [c, new Map()]), params instanceof Map ? params : paramsMap(params)];
  return serializeInnerList(list);
}

/**
 * The signature base (RFC 9421 §2.5): one `"name": value` line per covered component, then the
 * `"@signature-params"` line, joined by LF with no trailing newline.
 */
export function signatureBase(components: string[], params: SignatureParams | Parameters, message: HttpMessage): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of components) {
    if (seen.has(c)) throw new SignatureError('signature_invalid', `Component ${c} is covered twice.`);
    seen.add(c);
    if (c === '@signature-params') throw new SignatureError('signature_invalid', '@signature-params cannot be covered.');
    const value = componentValue(c, message);
    if (/[\r\n]/.test(value)) throw new SignatureError('signature_invalid', `Component ${c} contains a newline.`);
    lines.push(`"${c}": ${value}`);
  }
  lines.push(`"@signature-params": ${signatureParamsValue(components, params)}`);
  return lines.join('\n');
}

/* ------------------------------------------------------------------ algorithms */

interface AlgSpec {
  hash: string;
  curve: string;
  rfc: string;
  jose: string;
  size: number;
}
const ALGS: AlgSpec[] = [
  { hash: 'sha256', curve: 'P-256', rfc: 'ecdsa-p256-sha256', jose: 'ES256', size: 64 },
  { hash: 'sha384', curve: 'P-384', rfc: 'ecdsa-p384-sha384', jose: 'ES384', size: 96 },
];

function curveOf(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType !== 'ec') return undefined;
  const named = key.asymmetricKeyDetails?.namedCurve;
  return named === 'prime256v1' ? 'P-256' : named === 'secp384r1' ? 'P-384' : named;
}

function algForKey(key: KeyObject): AlgSpec | undefined {
  const curve = curveOf(key);
  return ALGS.find((a) => a.curve === curve);
}

/** A public KeyObject from a JWK (as published in a profile's `signing_keys`). Throws algorithm_unsupported. */
export function publicKeyFromJwk(jwk: JsonWebKey & { alg?: string; use?: string }): KeyObject {
  if (jwk.kty !== 'EC' || !ALGS.some((a) => a.curve === jwk.crv)) {
    throw new SignatureError('algorithm_unsupported', `Key type ${String(jwk.kty)}/${String(jwk.crv)} is not supported (EC P-256 or P-384).`);
  }
  if (jwk.alg !== undefined && !ALGS.some((a) => a.jose === jwk.alg && a.curve === jwk.crv)) {
    throw new SignatureError('algorithm_unsupported', `Key algorithm ${jwk.alg} is not supported for ${jwk.crv}.`);
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new SignatureError('algorithm_unsupported', `Key use ${jwk.use} is not sig.`);
  const { kty, crv, x, y } = jwk;
  try {
    return createPublicKey({ key: { kty, crv, x, y } as JsonWebKey, format: 'jwk' });
  } catch (e) {
    throw new SignatureError('signature_invalid', `The key is not a valid ${String(crv)} public key: ${(e as Error).message}`);
  }
}

/* ------------------------------------------------------------------ sign */

export interface SignOptions {
  keyid: string;
  /** Private EC key (P-256 for ES256). */
  privateKey: KeyObject;
  components: string[];
  /** Unix seconds; default now. */
  created?: number;
  expires?: number;
  nonce?: string;
  tag?: string;
  /** Signature label in both headers; default `sig1`. */
  label?: string;
  message: HttpMessage;
}

/** Returns the two headers to add to the message. */
export function sign(opts: SignOptions): { 'Signature-Input': string; Signature: string } {
  const alg = algForKey(opts.privateKey);
  if (!alg || opts.privateKey.type !== 'private') throw new SignatureError('algorithm_unsupported', 'Signing needs a private EC P-256 or P-384 key.');
  const label = opts.label ?? 'sig1';
  const params: SignatureParams = {
    created: opts.created ?? Math.floor(Date.now() / 1000),
    expires: opts.expires,
    keyid: opts.keyid,
    nonce: opts.nonce,
    tag: opts.tag,
  };
  const base = signatureBase(opts.components, params, opts.message);
  const sig = nodeSign(alg.hash, Buffer.from(base, 'utf8'), { key: opts.privateKey, dsaEncoding: 'ieee-p1363' });
  return {
    'Signature-Input': `${label}=${signatureParamsValue(opts.components, params)}`,
    Signature: `${label}=:${sig.toString('base64')}:`,
  };
}

/* ------------------------------------------------------------------ verify */

export type KeyResolver = (keyid: string) => KeyObject | JsonWebKey | null | undefined | Promise<KeyObject | JsonWebKey | null | undefined>;

/** A resolver over a JWK set (e.g. a profile's `signing_keys`). */
export function jwksResolver(keys: ReadonlyArray<JsonWebKey & { kid?: string }>): KeyResolver {
  return (keyid) => keys.find((k) => k.kid === keyid) ?? null;
}

export interface VerifyOptions {
  message: HttpMessage;
  resolveKey: KeyResolver;
  /** Which signature to check; default: the only one, or `sig1` when there are several. */
  label?: string;
  /** Components the signature must cover (e.g. `@method @authority @path`); default none. */
  requiredComponents?: string[];
  /** Raw body: when given, `content-digest` must be covered and must match it. */
  body?: Uint8Array | string;
  /** Reject `created` further than this from now (seconds); default 300. `Infinity` disables. */
  maxSkewSeconds?: number;
  requireCreated?: boolean;
  /** Unix seconds; default now. */
  now?: number;
}

export type VerifyResult =
  | { ok: true; label: string; keyid: string; alg: string; components: string[]; params: SignatureParams }
  | { ok: false; code: VerifyErrorCode; message: string };

function fail(code: VerifyErrorCode, message: string): VerifyResult {
  return { ok: false, code, message };
}

/** Verifies one signature of a message. Never throws for a bad message; returns the error code. */
export async function verify(opts: VerifyOptions): Promise<VerifyResult> {
  try {
    return await verifyOrThrow(opts);
  } catch (e) {
    if (e instanceof SignatureError) return fail(e.code, e.message);
    throw e;
  }
}

async function verifyOrThrow(opts: VerifyOptions): Promise<VerifyResult> {
  const { message } = opts;
  const inputHeader = headerValue(message.headers, 'signature-input');
  const sigHeader = headerValue(message.headers, 'signature');
  if (!inputHeader || !sigHeader) return fail('signature_missing', 'Signature and Signature-Input headers are required.');
  let inputs, sigs;
  try {
    inputs = parseDictionary(inputHeader);
    sigs = parseDictionary(sigHeader);
  } catch (e) {
    return fail('signature_invalid', `Malformed signature headers: ${(e as Error).message}`);
  }
  const label = opts.label ?? (inputs.size === 1 ? [...inputs.keys()][0] : 'sig1');
  const input = inputs.get(label);
  const sigItem = sigs.get(label);
  if (!input || !sigItem) return fail('signature_missing', `No signature labelled ${label}.`);
  if (!Array.isArray(input[0])) return fail('signature_invalid', `Signature-Input ${label} is not an inner list.`);
  if (!(sigItem[0] instanceof ArrayBuffer)) return fail('signature_invalid', `Signature ${label} is not a byte sequence.`);
  const [items, rawParams] = input as InnerList;
  const components: string[] = [];
  for (const [name, p] of items) {
    if (typeof name !== 'string') return fail('signature_invalid', 'Component identifiers must be strings.');
    if (p.size) return fail('signature_invalid', `Component parameters (${name};${[...p.keys()].join(';')}) are not supported.`);
    components.push(name);
  }
  const params: SignatureParams = {};
  for (const [k, v] of rawParams) {
    if (k === 'created' || k === 'expires') {
      if (typeof v !== 'number' || !Number.isInteger(v)) return fail('signature_invalid', `${k} must be an integer.`);
      params[k] = v;
    } else if (k === 'keyid' || k === 'alg' || k === 'nonce' || k === 'tag') {
      if (typeof v !== 'string') return fail('signature_invalid', `${k} must be a string.`);
      params[k] = v;
    }
  }
  if (!params.keyid) return fail('signature_invalid', 'Signature-Input has no keyid.');
  for (const c of opts.requiredComponents ?? []) {
    if (!components.includes(c)) return fail('signature_invalid', `The signature must cover ${c}.`);
  }
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const skew = opts.maxSkewSeconds ?? 300;
  if (params.created === undefined && opts.requireCreated) return fail('signature_invalid', 'Signature-Input has no created time.');
  if (params.created !== undefined && Math.abs(now - params.created) > skew) return fail('signature_invalid', `created ${params.created} is outside the ±${skew}s window.`);
  if (params.expires !== undefined && now > params.expires) return fail('signature_invalid', 'The signature has expired.');

  if (opts.body !== undefined) {
    if (!components.includes('content-digest')) return fail('signature_invalid', 'The signature must cover content-digest.');
    const d = checkContentDigest(opts.body, headerValue(message.headers, 'content-digest'));
    if (!d.ok) return fail(d.code, d.message);
  }

  const resolved = await opts.resolveKey(params.keyid);
  if (!resolved) return fail('key_not_found', `No key ${params.keyid}.`);
  const key = resolved instanceof KeyObject ? resolved : publicKeyFromJwk(resolved);
  const alg = algForKey(key);
  if (!alg) return fail('algorithm_unsupported', 'Only EC P-256 (ES256) and P-384 (ES384) keys are supported.');
  if (params.alg !== undefined && params.alg !== alg.rfc) return fail('algorithm_unsupported', `alg ${params.alg} is not supported with this key (${alg.rfc}).`);

  const base = signatureBase(components, rawParams, message);
  const sig = Buffer.from(sigItem[0] as ArrayBuffer);
  if (sig.length !== alg.size) return fail('signature_invalid', `An ${alg.jose} signature is ${alg.size} bytes (raw r||s), got ${sig.length}.`);
  const ok = nodeVerify(alg.hash, Buffer.from(base, 'utf8'), { key, dsaEncoding: 'ieee-p1363' }, sig);
  if (!ok) return fail('signature_invalid', 'The signature does not verify.');
  return { ok: true, label, keyid: params.keyid, alg: alg.jose, components, params };
}

/** HTTP status and JSON-RPC code for a verification error (DIGEST §5). */
export function errorStatus(code: VerifyErrorCode): { http: 400 | 401; jsonrpc: -32000 | -32600 } {
  return code === 'digest_mismatch' || code === 'algorithm_unsupported' ? { http: 400, jsonrpc: -32600 } : { http: 401, jsonrpc: -32000 };
}
