/**
 * REST side of the access tiers (docs/access.md): one middleware on `/api/ucp/*` that maps the
 * request to its UCP operation, reads `UCP-Agent`, runs the transport-neutral `authenticate` and
 * stores the result as `c.get('access')` for the handlers (whose `ucp` blocks list only the
 * negotiated capabilities). Refusals are flat `{code, content}` bodies with their status;
 * `capabilities_incompatible` is a 200 UCP error envelope.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { parseDictionary } from 'structured-headers';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import { incomingOf, nameVersion } from '../http/metrics.ts';
import { AccessDenied, authenticate, CapabilitiesIncompatible, headerReader, incompatibleBody } from '../http/authenticate.ts';
import { restOperation } from '../http/rest-operation.ts';
import { shopOf } from './guard.ts';
import { CAPABILITIES } from '../core/shops/ucp-profile.ts';
import { answerIn, isServedVersion } from './versions.ts';
import { UCP_VERSION, type UcpVersion } from '../version.ts';

/** The `profile` member of `UCP-Agent` (RFC 8941 dictionary), or undefined when the header is absent. */
export function ucpAgentProfile(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  let profile: unknown;
  try {
    profile = parseDictionary(header).get('profile')?.[0];
  } catch {
    throw new AccessDenied('invalid_profile_url', 'UCP-Agent must be an RFC 8941 dictionary, e.g. profile="https://platform.example/.well-known/ucp".', 400);
  }
  if (typeof profile !== 'string') throw new AccessDenied('invalid_profile_url', 'UCP-Agent needs a string member `profile` with the platform profile URL.', 400);
  return profile;
}

/** The negotiated capability names of this request (all of ours outside an authenticated operation). */
export function negotiatedOf(c: Context<AppEnv>): ReadonlySet<string> {
  return c.get('access')?.negotiated ?? new Set(Object.keys(CAPABILITIES));
}

/** The negotiated UCP version of this request (the seed's when it names no profile: server/ucp/versions.ts). */
export function versionOf(c: Context<AppEnv>): UcpVersion {
  const v = c.get('access')?.version;
  return isServedVersion(v) ? v : UCP_VERSION;
}

export function ucpAccess(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path.replace(/^\/api\/ucp(?=\/|$)/, '') || '/';
    const op = restOperation(c.req.method, path);
    if (!op) {
      // Not an operation (service root, 404/405 answers): only the header's syntax is checked.
      try {
        ucpAgentProfile(c.req.header('ucp-agent'));
      } catch (e) {
        if (e instanceof AccessDenied) return protocolError(c, e.status, e.code, e.message, {}, e.headers);
        throw e;
      }
      return next();
    }
    const origin = c.get('origin');
    try {
      const url = new URL(c.req.url);
      const access = await authenticate({
        db: c.get('db'),
        config: c.get('config'),
        shop: shopOf(c),
        operation: op,
        profileUrl: ucpAgentProfile(c.req.header('ucp-agent')),
        method: c.req.method,
        url: `${origin}${url.pathname}${url.search}`,
        headers: headerReader(c.req),
        body: async () => new Uint8Array(await c.req.arrayBuffer()),
        client: c.get('client'),
      });
      c.set('access', access);
      nameVersion(incomingOf(c), access.version);
    } catch (e) {
      // version_unsupported: the spec's REST envelope, {code, content, continue_url} with 422.
      if (e instanceof AccessDenied) return protocolError(c, e.status, e.code, e.message, e.code === 'version_unsupported' ? { continue_url: `${origin}/` } : {}, e.headers);
      if (e instanceof CapabilitiesIncompatible) {
        const body = answerIn(isServedVersion(e.version) ? e.version : UCP_VERSION, incompatibleBody(e, op, origin), { shop: shopOf(c), origin, language: '' });
        return c.json(body, 200);
      }
      throw e;
    }
    await next();
  };
}
