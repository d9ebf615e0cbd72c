/**
 * Who may call the MCP tools of a shop. One function, so the access tiers (channel API keys, later)
 * plug in here without touching the tools:
 *
 * - A credential (`Authorization: Bearer <key>` or `X-API-Key: <key>`) is checked by
 *   `verifyChannelKey`. No channel keys are issued yet, so a presented credential is refused (401,
 *   JSON-RPC -32000 `invalid_credentials`) rather than silently downgraded to anonymous.
 * - With no credential, the anonymous tier applies when the shop allows it:
 *   `settings.extra.mcp_access.anonymous` (default `true`; the demo shop allows all seven tools).
 *   `settings.extra.mcp_access.anonymous_tools` may narrow the tools open to anonymous callers.
 */
import type { Shop } from '../core/types.ts';
import { McpProtocolError, RPC } from './errors.ts';

export interface McpPrincipal {
  tier: 'anonymous' | 'channel';
  /** Tools this caller may use; `undefined` = all. */
  tools?: ReadonlySet<string>;
  channelId?: string;
}

type HeaderGetter = (name: string) => string | null | undefined;

interface AccessSettings {
  anonymous?: boolean;
  anonymous_tools?: string[];
}

/** Channel API key lookup. Replaced by the access-tier feature; until then no key is valid. */
export let verifyChannelKey: (shop: Shop, key: string) => Promise<{ channelId: string; tools?: string[] } | null> = async () => null;

/** Test/feature hook for installing the real key verifier. */
export function setChannelKeyVerifier(fn: typeof verifyChannelKey): void {
  verifyChannelKey = fn;
}

function presentedKey(header: HeaderGetter): string | undefined {
  const auth = header('authorization')?.trim();
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw unauthorized('invalid_credentials', 'Authorization must be `Bearer <channel API key>`.');
    return m[1];
  }
  const apiKey = header('x-api-key')?.trim();
  return apiKey || undefined;
}

function unauthorized(code: string, content: string): McpProtocolError {
  return new McpProtocolError(RPC.server, 401, { code, content });
}

export async function authorizeMcp(shop: Shop, header: HeaderGetter): Promise<McpPrincipal> {
  const key = presentedKey(header);
  if (key !== undefined) {
    const channel = await verifyChannelKey(shop, key);
    if (!channel) throw unauthorized('invalid_credentials', 'The API key is not valid for this shop.');
    return { tier: 'channel', channelId: channel.channelId, ...(channel.tools ? { tools: new Set(channel.tools) } : {}) };
  }
  const access = (shop.settings.extra?.mcp_access ?? {}) as AccessSettings;
  if (access.anonymous === false) {
    throw unauthorized('identity_required', 'This shop requires a channel API key (Authorization: Bearer or X-API-Key) for MCP.');
  }
  return { tier: 'anonymous', ...(access.anonymous_tools ? { tools: new Set(access.anonymous_tools) } : {}) };
}

/** Refuses a tool the principal's tier does not include (403, -32000 `insufficient_scope`). */
export function assertToolAllowed(principal: McpPrincipal, tool: string): void {
  if (principal.tools && !principal.tools.has(tool)) {
    throw new McpProtocolError(RPC.server, 403, {
      code: 'insufficient_scope',
      content: `The ${principal.tier} tier may not call ${tool}.`,
    });
  }
}
