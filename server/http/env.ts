/** The per-request values every transport reads: the database, the shop, the public origin. */
import type { DB } from '../db/index.ts';
import type { Config } from '../config.ts';
import type { Shop } from '../formats/types.ts';
import type { AccessContext } from './authenticate.ts';

export interface AppVariables {
  db: DB;
  config: Config;
  /** Public origin of this request, e.g. `http://demo.localhost:8080`. */
  origin: string;
  /** Host name without port, lower case. */
  hostname: string;
  /**
   * The client's address, resolved once at the edge (server/app.ts) from the socket, or with
   * TRUST_PROXY from the last X-Forwarded-For hop. Every per-client budget keys on this value;
   * nested apps (the platform) receive it rather than looking for a socket they do not have.
   */
  client: string;
  /** The storefront the Host names, or null for the platform's own address. */
  shop: Shop | null;
  /**
   * The request's body text once an edge has read it (server/http/body.ts `readJson`, the MCP
   * route): the request inspector reads it here without waiting another turn for Hono's cache.
   */
  bodyText?: string;
  /** Tier, platform profile and negotiated capabilities of a UCP REST operation (server/ucp/access.ts). */
  access?: AccessContext;
}

export type AppEnv = { Variables: AppVariables };
