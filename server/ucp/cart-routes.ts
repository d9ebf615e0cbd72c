/**
 * REST cart routes (`/api/ucp/carts…`): read headers and body, call the transport-neutral
 * operations in cart-operations.ts, send their status and body as they are.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { readJson } from '../http/body.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { DomainError } from '../core/shared/errors.ts';
import { shopOf } from './guard.ts';
import { versionOf } from './access.ts';
import { callerIdentity } from '../http/authenticate.ts';
import { cancelCartOp, createCartOp, getCartOp, updateCartOp, type OperationContext, type OperationResult } from './cart-operations.ts';

/** 1–255 visible ASCII characters (UUIDs recommended). */
const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

function opContext(c: Context<AppEnv>): OperationContext {
  // UCP-Agent, the access tier and negotiation were handled by the access middleware (server/ucp/access.ts).
  const negotiated = c.get('access')?.negotiated;
  const key = c.req.header('idempotency-key');
  if (key !== undefined && !IDEMPOTENCY_KEY_RE.test(key)) {
    throw new DomainError('malformed', 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 visible ASCII characters (a UUID is recommended).');
  }
  return {
    db: c.get('db'),
    shop: shopOf(c),
    origin: c.get('origin'),
    acceptLanguage: c.req.header('accept-language'),
    ...(key !== undefined ? { idempotencyKey: key, caller: callerIdentity(c.get('access'), c.get('client')) } : {}),
    ...(negotiated ? { negotiated } : {}),
    version: versionOf(c),
  };
}

/**
 * A cart is one buyer's and answers in the version `UCP-Agent` negotiates and the language the
 * request asks for: never stored by a shared cache, and said to vary by what it depends on.
 */
function send(c: Context<AppEnv>, r: OperationResult): Response {
  c.header('Vary', 'UCP-Agent, Accept-Language', { append: true });
  c.header('Cache-Control', 'private, no-store');
  return c.body(JSON.stringify(r.body), r.status, { 'Content-Type': 'application/json' });
}

export function cartRoutes() {
  const app = new Hono<AppEnv>();

  app.post('/carts', async (c) => {
    const ctx = opContext(c);
    return send(c, await createCartOp(ctx, await readJson(c)));
  });

  app.get('/carts/:id', async (c) => send(c, await getCartOp(opContext(c), c.req.param('id'))));

  app.put('/carts/:id', async (c) => {
    const ctx = opContext(c);
    return send(c, await updateCartOp(ctx, c.req.param('id'), await readJson(c)));
  });

  // The body is optional and ignored (UCP shows none; examples send {}).
  app.post('/carts/:id/cancel', async (c) => send(c, await cancelCartOp(opContext(c), c.req.param('id'))));

  app.all('/carts', methodNotAllowed('POST'));
  app.all('/carts/:id', methodNotAllowed('GET, PUT'));
  app.all('/carts/:id/cancel', methodNotAllowed('POST'));
  return app;
}
