/**
 * Who may call the MCP tools of a shop: the same access tiers as REST (docs/access.md), through the
 * transport-neutral `authenticate` in server/http/authenticate.ts.
 *
 * - The platform profile is `arguments.meta["ucp-agent"].profile` (required on every tools/call;
 *   missing or refused → -32001 `invalid_profile_url`, saying what to name instead).
 * - A channel API key (`Authorization: Bearer` / `X-API-Key`) → token tier; RFC 9421 signature
 *   headers over the HTTP POST (`@method @authority @path`, `content-digest content-type`, and
 *   `ucp-agent` / `idempotency-key` when those headers are sent) → signed tier; nothing → anonymous.
 * - The shop's policy (`settings.extra.access`) decides which tier may call which tool.
 * - Refusals are JSON-RPC errors with the HTTP status of the REST twin: -32001 discovery/version,
 *   -32000 auth/signature/403, -32600 digest_mismatch/algorithm_unsupported.
 *   `capabilities_incompatible` is a tool result (a UCP error envelope), not an error.
 */
import type { Config } from '../config.ts';
import { isOperation, type OperationName } from '../core/access/access-policy.ts';
import { AccessDenied, allowInsecureProfiles, authenticate, CapabilitiesIncompatible, incompatibleBody, type AccessContext, type HeaderReader } from '../http/authenticate.ts';
import { McpProtocolError } from './errors.ts';
import { readCallMeta } from './meta.ts';
import type { ToolContext } from './tools.ts';
import { answerIn, isServedVersion } from '../ucp/versions.ts';
import { UCP_VERSION } from '../version.ts';

export interface McpAuthContext extends ToolContext {
  config: Config;
  /** The HTTP request carrying the JSON-RPC message(s): headers, URL path/query and raw body. */
  headers: HeaderReader;
  url: string;
  rawBody: string;
  /** The client's address (c.var.client): the budget key of anonymous callers. */
  client: string;
  /** Told the request's operation once the body is parsed (the label of ucp_requests_total). */
  nameOperation?: (operation: string) => void;
  /** Told the negotiated UCP version of a call (the `version` label of ucp_requests_total). */
  nameVersion?: (version: string) => void;
  /** Told of each call refused for a budget (ucp_rate_limited_total counts the calls, batch or not). */
  rateLimited?: () => void;
  /** On a development server, what the shop's test data holds, in words (the demo's fixtures), for the instructions. */
  sandboxNotes?: string;
}

export type McpAccess =
  | { kind: 'ok'; access: AccessContext }
  | { kind: 'incompatible'; body: Record<string, unknown> }
  /** Not a UCP tool: callTool answers (unknown_tool / tool_renamed). */
  | { kind: 'none' };

export async function authorizeMcp(ctx: McpAuthContext, tool: string, args: unknown): Promise<McpAccess> {
  if (!isOperation(tool)) return { kind: 'none' };
  const meta = readCallMeta(args, { requireIdempotencyKey: false, allowLoopbackHttp: allowInsecureProfiles(ctx.config), advice: ctx.profileAdvice });
  const url = new URL(ctx.url);
  try {
    const access = await authenticate({
      db: ctx.db,
      config: ctx.config,
      shop: ctx.shop,
      operation: tool as OperationName,
      profileUrl: meta.profile,
      method: 'POST',
      url: `${ctx.origin}${url.pathname}${url.search}`,
      headers: ctx.headers,
      body: async () => ctx.rawBody,
      client: ctx.client,
    });
    ctx.nameVersion?.(access.version);
    return { kind: 'ok', access };
  } catch (e) {
    if (e instanceof AccessDenied) {
      const data = {
        code: e.code,
        content: e.message,
        ...(e.retryAfter ? { retry_after: e.retryAfter } : {}),
        // The spec's version_unsupported data carries where the buyer can go on instead.
        ...(e.code === 'version_unsupported' ? { continue_url: `${ctx.origin}/` } : {}),
      };
      throw new McpProtocolError(e.rpcCode, e.status, data, e.message, e.headers);
    }
    if (e instanceof CapabilitiesIncompatible) {
      const version = isServedVersion(e.version) ? e.version : UCP_VERSION;
      return { kind: 'incompatible', body: answerIn(version, incompatibleBody(e, tool as OperationName, ctx.origin), { shop: ctx.shop, origin: ctx.origin, language: '' }) };
    }
    throw e;
  }
}
