/**
 * The UCP REST transport at `/api/ucp`: thin handlers that read the body and call the
 * transport-neutral operations MCP uses too. Carts are mounted here by the cart routes module.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { UCP_VERSION, UCP_VERSIONS } from '../version.ts';
import { readJson } from '../http/body.ts';
import { methodNotAllowed, protocolError } from '../http/errors.ts';
import { isServedVersion } from './versions.ts';
import { getProductOp, lookupCatalogOp, searchCatalogOp, type CatalogContext, type CatalogResult } from './catalog-operations.ts';
import { shopOf } from './guard.ts';
import { responseMeta, SPEC_URL } from '../core/shops/ucp-profile.ts';
import { negotiatedOf, ucpAccess, versionOf } from './access.ts';
import { ucpOpenApi } from './openapi.ts';
import { toJsonBytes } from '../lib/json-fragments.ts';

export function ucpRestRoutes() {
  const app = new Hono<AppEnv>();

  // Access tier, UCP-Agent profile and capability negotiation for every operation (docs/access.md);
  // registered with '*', so it also covers the cart routes mounted beside these.
  app.use('*', ucpAccess());

  app.get('/', (c) =>
    c.json({
      ucp: { version: UCP_VERSION, capabilities: responseMeta('search').capabilities },
      service: 'dev.ucp.shopping',
      transport: 'rest',
      endpoint: `${c.get('origin')}/api/ucp`,
      spec: SPEC_URL,
      status: 'ok',
    }),
  );

  // This transport's OpenAPI 3.1 document, generated from the wire schemas (public; docs/ucp.md).
  // One per UCP version (`?version=`; default the seed's, as before versions existed).
  app.get('/openapi.json', (c) => {
    const v = c.req.query('version') ?? UCP_VERSION;
    if (!isServedVersion(v)) return protocolError(c, 404, 'not_found', `No OpenAPI document for UCP version '${v.slice(0, 40)}': this shop serves ${UCP_VERSIONS.join(', ')}.`);
    return c.json(ucpOpenApi(c.get('origin'), shopOf(c), v));
  });

  // The catalog operations are shared with MCP (catalog-operations.ts); REST adds the HTTP parts.
  const catalog = (op: (ctx: CatalogContext, input: unknown) => Promise<CatalogResult>) => async (c: Context<AppEnv>) => {
    const input = await readJson(c);
    const { body, language } = await op(
      { db: c.get('db'), shop: shopOf(c), origin: c.get('origin'), acceptLanguage: c.req.header('accept-language'), negotiated: negotiatedOf(c), version: versionOf(c) },
      input,
    );
    c.header('Content-Language', language);
    // Bytes, not a string: the adapter then neither measures nor encodes the answer (json-fragments.ts).
    return c.body(toJsonBytes(body) as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/json' });
  };
  app.post('/catalog/search', catalog(searchCatalogOp));
  app.post('/catalog/lookup', catalog(lookupCatalogOp));
  app.post('/catalog/product', catalog(getProductOp));

  return app;
}

/** Registers 405 answers for the paths above (call after every feature mounted its routes). */
export function restMethodFallbacks(app: Hono<AppEnv>) {
  app.all('/', methodNotAllowed('GET'));
  app.all('/openapi.json', methodNotAllowed('GET'));
  for (const p of ['/catalog/search', '/catalog/lookup', '/catalog/product']) app.all(p, methodNotAllowed('POST'));
}
