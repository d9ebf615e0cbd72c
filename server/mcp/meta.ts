/**
 * UCP call metadata on MCP: `arguments.meta` (a normal tool argument, not MCP `_meta`; DIGEST §4).
 *
 * - `meta["ucp-agent"].profile` (required on every tool call): the calling platform's profile URL.
 *   Missing or malformed → JSON-RPC -32001 with `data.code = "invalid_profile_url"`, HTTP 400
 *   (DIGEST §1.2), with what to name instead. The URL rules are REST's (core/access/platform-profiles.ts):
 *   https, or plain http on a loopback host in development.
 * - `meta["idempotency-key"]`: required by `cancel_cart`, honoured by `create_cart`/`update_cart`;
 *   missing or malformed → InvalidRequest (an `isError` tool result).
 */
import * as z from 'zod/mini';
import { McpProtocolError, RPC } from './errors.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import { profileHref, ProfileError } from '../core/access/platform-profiles.ts';

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

export interface MetaOptions {
  requireIdempotencyKey: boolean;
  /** Accept `http://` profiles on loopback hosts (development; config allowInsecureProfileUrls). */
  allowLoopbackHttp: boolean;
  /** What to name instead, appended to each refusal (authenticate.ts `profileAdvice`); made only for a refusal. */
  advice?: () => string;
}

const SHAPE = 'Send arguments.meta = {"ucp-agent": {"profile": "<URL of your platform profile>"}}.';

function invalidProfile(content: string, advice?: () => string): McpProtocolError {
  return new McpProtocolError(RPC.discovery, 400, { code: 'invalid_profile_url', content: advice ? `${content} ${advice()}` : content });
}

/** The profile URL, normalized, or the -32001 refusal (same rules as REST `UCP-Agent`: core/access/platform-profiles.ts). */
export function checkMetaProfile(profile: unknown, opts: Pick<MetaOptions, 'allowLoopbackHttp' | 'advice'>): string {
  if (typeof profile !== 'string' || profile.trim() === '') {
    throw invalidProfile(`arguments.meta["ucp-agent"].profile is missing: every UCP tool call names the calling platform's profile URL. ${SHAPE}`, opts.advice);
  }
  try {
    return profileHref(profile, opts.allowLoopbackHttp);
  } catch (e) {
    if (e instanceof ProfileError) throw invalidProfile(`arguments.meta["ucp-agent"].profile: ${e.message}`, opts.advice);
    throw e;
  }
}

/**
 * Reads and checks `arguments.meta`. A missing or refused profile is the UCP discovery error (-32001);
 * a bad idempotency key is an input mistake (InvalidRequest: the tool's isError result, docs/mcp.md).
 */
export function readCallMeta(args: unknown, opts: MetaOptions): CallMetaValues {
  const meta = isObject(args) ? args.meta : undefined;
  if (meta === undefined) throw invalidProfile(`arguments.meta is missing: every UCP tool call names the calling platform's profile. ${SHAPE}`, opts.advice);
  if (!isObject(meta)) throw invalidProfile(`arguments.meta must be an object. ${SHAPE}`, opts.advice);
  const agent = meta['ucp-agent'];
  if (!isObject(agent)) throw invalidProfile(`arguments.meta["ucp-agent"] must be an object with a \`profile\` URL. ${SHAPE}`, opts.advice);
  const profile = checkMetaProfile(agent.profile, opts);

  const key = meta['idempotency-key'];
  if (key === undefined) {
    if (opts.requireIdempotencyKey) {
      throw new InvalidRequest('idempotency_key_required', 'This tool requires arguments.meta["idempotency-key"]: send a fresh UUID, and the same one only to retry this same call.', [
        { path: "$.meta['idempotency-key']", code: 'idempotency_key_required', content: 'Required: a UUID (e.g. from crypto.randomUUID()).' },
      ]);
    }
    return { profile };
  }
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new InvalidRequest('invalid_idempotency_key', 'arguments.meta["idempotency-key"] must be a non-empty printable ASCII string of at most 255 characters: send a UUID.', [
      { path: "$.meta['idempotency-key']", code: 'invalid_idempotency_key', content: '1-255 visible ASCII characters; a UUID v4 is recommended.' },
    ]);
  }
  return { profile, idempotencyKey: key };
}
