/**
 * UCP call metadata on MCP: `arguments.meta` (a normal tool argument, not MCP `_meta`; DIGEST §4).
 *
 * - `meta["ucp-agent"].profile` (required on every tool call): the calling platform's profile URL.
 *   Missing or malformed → JSON-RPC -32001 with `data.code = "invalid_profile_url"`, HTTP 400
 *   (DIGEST §1.2). https only; plain http is accepted for loopback hosts in development mode, the
 *   same allowance the REST `UCP-Agent` parse makes for local platforms.
 * - `meta["idempotency-key"]`: required by `cancel_cart`, honoured by `create_cart`/`update_cart`.
 */
import * as z from 'zod/mini';
import { McpProtocolError, RPC } from './errors.ts';

/** Published (JSON Schema) shape of `meta`; extra keys are allowed, as in the OpenRPC. */
export const CallMeta = z.looseObject({
  'ucp-agent': z.looseObject({
    profile: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
  'idempotency-key': z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
});

export const CallMetaWithKey = z.looseObject({
  'ucp-agent': z.looseObject({
    profile: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
  'idempotency-key': z.string().check(z.minLength(1), z.maxLength(255)),
});

export interface CallMetaValues {
  profile: string;
  idempotencyKey?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidProfile(content: string): McpProtocolError {
  return new McpProtocolError(RPC.discovery, 400, { code: 'invalid_profile_url', content });
}

const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\]|[a-z0-9-]+\.localhost)$/i;

export function checkProfileUrl(profile: unknown, allowLoopbackHttp: boolean): string {
  if (typeof profile !== 'string' || profile.trim() === '') {
    throw invalidProfile('Every call needs arguments.meta["ucp-agent"].profile: the URL of the calling platform\'s UCP profile, e.g. https://platform.example/.well-known/ucp.');
  }
  let url: URL;
  try {
    url = new URL(profile);
  } catch {
    throw invalidProfile(`meta["ucp-agent"].profile '${profile.slice(0, 200)}' is not a URL.`);
  }
  const httpOk = allowLoopbackHttp && url.protocol === 'http:' && LOOPBACK.test(url.hostname);
  if (url.protocol !== 'https:' && !httpOk) throw invalidProfile('meta["ucp-agent"].profile must be an https URL.');
  if (url.username || url.password) throw invalidProfile('meta["ucp-agent"].profile must not carry credentials.');
  return url.href;
}

/** Reads and checks `arguments.meta`; throws the protocol error for anything missing or malformed. */
export function readCallMeta(args: unknown, opts: { requireIdempotencyKey: boolean; allowLoopbackHttp: boolean }): CallMetaValues {
  const meta = isObject(args) ? args.meta : undefined;
  if (meta === undefined) throw invalidProfile('Missing arguments.meta: every UCP tool call carries meta["ucp-agent"].profile (the calling platform\'s profile URL).');
  if (!isObject(meta)) throw invalidProfile('arguments.meta must be an object carrying "ucp-agent": {"profile": "<url>"}.');
  const agent = meta['ucp-agent'];
  if (!isObject(agent)) throw invalidProfile('arguments.meta["ucp-agent"] must be an object with a `profile` URL.');
  const profile = checkProfileUrl(agent.profile, opts.allowLoopbackHttp);

  const key = meta['idempotency-key'];
  if (key === undefined) {
    if (opts.requireIdempotencyKey) {
      throw new McpProtocolError(RPC.invalidParams, 400, {
        code: 'idempotency_key_required',
        content: 'This tool requires arguments.meta["idempotency-key"] (a UUID; reuse it only to retry the same call).',
        path: '$.meta[\'idempotency-key\']',
      });
    }
    return { profile };
  }
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new McpProtocolError(RPC.invalidParams, 400, {
      code: 'invalid_idempotency_key',
      content: 'arguments.meta["idempotency-key"] must be a non-empty printable string of at most 255 characters (a UUID v4 is recommended).',
      path: '$.meta[\'idempotency-key\']',
    });
  }
  return { profile, idempotencyKey: key };
}
