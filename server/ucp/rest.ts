/**
 * The UCP REST transport at `/api/ucp`: thin handlers that validate the wire shape, resolve the
 * locale and call the domain core. Carts are mounted here by the cart routes module.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import { UCP_VERSION, type Message } from '../../src/wire/common.ts';
import { getProduct, lookupCatalog, searchCatalog } from '../core/catalog.ts';
import { resolveLocale, type RequestContext } from '../core/localize.ts';
import { BusinessError } from '../core/errors.ts';
import { readBody } from '../http/body.ts';
import { errorResponse, methodNotAllowed } from '../http/errors.ts';
import { shopOf } from './guard.ts';
import { responseMeta, SPEC_URL } from './profile.ts';
import { negotiatedOf, ucpAccess } from './access.ts';

/** Resolves language/currency for a request; unsupported values become warnings. */
export function localeFor(c: Context<AppEnv>, context: RequestContext | undefined, contextPath = '$.context') {
  const { locale, notices } = resolveLocale(shopOf(c), context, c.req.header('accept-language'), contextPath);
  const messages: Message[] = notices.map((n) => ({ type: 'warning', code: n.code, path: n.path, content: n.content }));
  c.header('Content-Language', locale.language);
  return { locale, messages };
}

function withMessages<T extends object>(body: T, messages: Message[]): T & { messages?: Message[] } {
  return messages.length ? { ...body, messages } : body;
}

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

  app.post('/catalog/search', async (c) => {
    const req = await readBody(c, SearchRequest);
    const { locale, messages } = localeFor(c, req.context);
    const result = await searchCatalog(c.get('db'), shopOf(c), req, locale, c.get('origin'));
    return c.json(withMessages({ ucp: responseMeta('search', negotiatedOf(c)), ...result }, messages));
  });

  app.post('/catalog/lookup', async (c) => {
    const req = await readBody(c, LookupRequest);
    const { locale, messages } = localeFor(c, req.context);
    const result = await lookupCatalog(c.get('db'), shopOf(c), req, locale, c.get('origin'));
    return c.json(withMessages({ ucp: responseMeta('lookup', negotiatedOf(c)), products: result.products }, [...messages, ...result.messages]));
  });

  app.post('/catalog/product', async (c) => {
    const req = await readBody(c, GetProductRequest);
    const { locale, messages } = localeFor(c, req.context);
    try {
      const product = await getProduct(c.get('db'), shopOf(c), req, locale, c.get('origin'));
      return c.json(withMessages({ ucp: responseMeta('lookup', negotiatedOf(c)), product }, messages));
    } catch (e) {
      if (e instanceof BusinessError) return c.json(errorResponse(e, responseMeta('lookup', negotiatedOf(c)).capabilities, `${c.get('origin')}/`), 200);
      throw e;
    }
  });

  return app;
}

/** Registers 405 answers for the paths above (call after every feature mounted its routes). */
export function restMethodFallbacks(app: Hono<AppEnv>) {
  app.all('/', methodNotAllowed('GET'));
  for (const p of ['/catalog/search', '/catalog/lookup', '/catalog/product']) app.all(p, methodNotAllowed('POST'));
}
