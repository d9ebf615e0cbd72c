/**
 * Cart operations, transport-neutral: REST (cart-routes.ts) and MCP call exactly these. Each
 * validates its input (throwing InvalidRequest for wire-shape errors), applies idempotency when a
 * key is given, and returns the status and the exact REST JSON body:
 *   201/200 cart · 200 UCP error_response (not_found, invalid lines) · 409/503 flat {code, content}.
 */
import { createHash } from 'node:crypto';
import type { RawBuilder } from 'kysely';
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import type { ErrorResponse, Message } from '../../src/wire/common.ts';
import { CreateCartRequest, UpdateCartRequest, type Cart } from '../../src/wire/cart.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import { CartRejected, cancelCart, cartInsert, findCart, writeNewCart, prepareCart, renderCart, stockOf, updateCart, updateCartUnlocked, type CartRecord, type StockMap } from '../core/carts/carts.ts';
import { fingerprint, runIdempotent, runIdempotentInsert } from '../core/carts/idempotency.ts';
import { validate } from '../core/shared/validate.ts';
import { UCP_INPUT } from '../http/body.ts';
import { CAP, responseMeta } from '../core/shops/ucp-profile.ts';
import { resolveLocale } from '../core/shared/localize.ts';
import { answerIn, cartRequestIn } from './versions.ts';
import { UCP_VERSION, type UcpVersion } from '../version.ts';

export interface OperationContext {
  db: DB;
  shop: Shop;
  origin: string;
  acceptLanguage?: string;
  idempotencyKey?: string;
  /** Who sends it (http/authenticate.ts callerIdentity): an idempotency key is stored under its caller. */
  caller?: string;
  /** Capabilities negotiated with the calling platform (default: all of ours). */
  negotiated?: Iterable<string>;
  /** The negotiated UCP version (server/ucp/versions.ts); default the seed's. */
  version?: UcpVersion;
}

export interface OperationResult {
  status: 200 | 201;
  body: unknown;
}

type Exec = DB;

/** The `ucp` block of cart responses: version, negotiated cart (+ discount) capabilities, embedded binding. */
export function cartMeta(negotiated?: Iterable<string>) {
  return {
    version: UCP_VERSION,
    services: { 'dev.ucp.shopping': [{ version: UCP_VERSION, transport: 'embedded', config: { delegate: [] as string[] } }] },
    capabilities: responseMeta('cart', negotiated).capabilities,
  };
}

/** The cart as stock allows now: `stock` from the write that produced it, else read now (core/products/stock.ts). */
function cartBody(ctx: OperationContext, record: CartRecord, messages: Message[], stock: StockMap): Cart {
  const cart: Cart = { ucp: cartMeta(ctx.negotiated), ...renderCart(record, ctx.shop, ctx.origin, messages, undefined, stock) };
  if (ctx.negotiated !== undefined && !new Set(ctx.negotiated).has(CAP.discount)) delete cart.discounts;
  return cart;
}

function errorBody(ctx: OperationContext, messages: Message[]): ErrorResponse {
  return {
    ucp: { version: UCP_VERSION, status: 'error', capabilities: responseMeta('cart', ctx.negotiated).capabilities },
    messages,
    continue_url: `${ctx.origin}/`,
  };
}

function notFound(ctx: OperationContext, id: string): OperationResult {
  return {
    status: 200,
    body: errorBody(ctx, [{ type: 'error', code: 'not_found', content: `No cart '${id}' (it may have expired).`, severity: 'unrecoverable' }]),
  };
}

function rejected(ctx: OperationContext, e: CartRejected): OperationResult {
  return {
    status: 200,
    body: errorBody(
      ctx,
      e.cartIssues.map((i) => ({ type: 'error', code: i.code, path: i.path, content: i.content, severity: i.severity })),
    ),
  };
}

/**
 * Runs an operation: inside the idempotency transaction when a key is given, else in a plain
 * transaction (or, for `atomic` operations whose only write is one statement, without one: fewer
 * round trips on the single-connection embedded database).
 */
async function guarded(
  ctx: OperationContext,
  operation: string,
  cartId: string | null,
  input: unknown,
  run: (db: Exec) => Promise<OperationResult>,
  atomic = false,
): Promise<OperationResult> {
  const exec = async (db: Exec): Promise<OperationResult> => {
    try {
      return await run(db);
    } catch (e) {
      if (e instanceof CartRejected) return rejected(ctx, e);
      throw e;
    }
  };
  if (!ctx.idempotencyKey) return atomic ? exec(ctx.db) : ctx.db.transaction().execute((tx) => exec(tx));
  return idempotent(() => runIdempotent(ctx.db, keyScope(ctx, operation, cartId, input), (tx) => exec(tx)));
}

/**
 * What an idempotency key is stored under: the shop, the operation, the caller and the key, and what
 * was asked. The caller is folded into the stored key as a hash (`c.<hash>.<key>`: the unique
 * (shop, operation, key) constraint then scopes keys per caller, and no credential is stored), so a
 * second caller sending a known key and body gets its own cart, never the first caller's.
 */
function keyScope(ctx: OperationContext, operation: string, cartId: string | null, input: unknown) {
  const key = `c.${callerHash(ctx.caller ?? 'unknown')}.${ctx.idempotencyKey!}`;
  return { shopId: ctx.shop.id, operation, key, fingerprint: fingerprint({ operation, cart_id: cartId, body: input ?? null }) };
}

const callerHash = (caller: string) => createHash('sha256').update(caller).digest('base64url').slice(0, 22);

/**
 * A stored (or replayed) answer as an operation result. A reused key (IdempotencyConflict) and a
 * store that cannot be read or written (IdempotencyUnavailable: fail closed) are thrown on to each
 * edge's error table (409 / 503 on REST, -32000 on MCP).
 */
async function idempotent(run: () => Promise<{ status: number; body: unknown }>): Promise<OperationResult> {
  const r = await run();
  return { status: r.status as OperationResult['status'], body: r.body };
}

/**
 * The discount extension is only in play when negotiated (DIGEST §6): without it, codes sent by the
 * platform are ignored, with a warning saying why, instead of silently changing the price.
 */
function negotiatedDiscounts<T extends { discounts?: unknown }>(ctx: OperationContext, req: T): { req: T; messages: Message[] } {
  const allowed = ctx.negotiated === undefined || new Set(ctx.negotiated).has(CAP.discount);
  if (allowed || req.discounts === undefined) return { req, messages: [] };
  const { discounts: _ignored, ...rest } = req;
  return {
    req: rest as T,
    messages: [
      {
        type: 'warning',
        code: 'capability_not_negotiated',
        path: '$.discounts',
        content: `Discount codes were ignored: your platform profile does not negotiate ${CAP.discount}.`,
      },
    ],
  };
}

/**
 * The result in the request's version (server/ucp/versions.ts), mapped after the idempotency layer:
 * what a key stores is the core's answer, and a replay is answered in the version of the replay.
 */
function answer(ctx: OperationContext, r: OperationResult): OperationResult {
  const v = ctx.version ?? UCP_VERSION;
  const body = r.body as { context?: Record<string, unknown> };
  const language = () => resolveLocale(ctx.shop, body.context as never, ctx.acceptLanguage).locale.language;
  return { status: r.status, body: answerIn(v, body, { shop: ctx.shop, origin: ctx.origin, language }) };
}

/** The request body as the idempotency fingerprint sees it: a matching `id` in the body changes nothing asked. */
function withoutId(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, 'id')) return input;
  const { id: _id, ...rest } = input as Record<string, unknown>;
  return rest;
}

/**
 * One create path. The cart is validated and priced first (reads only); its one write is one
 * INSERT (cartInsert). With an Idempotency-Key that INSERT also claims the key, in the same
 * statement (runIdempotentInsert); without one it is written with the other new carts of the
 * moment, in one statement (writeNewCart).
 */
export async function createCartOp(ctx: OperationContext, input: unknown): Promise<OperationResult> {
  return answer(ctx, await createCart(ctx, cartRequestIn(ctx.version ?? UCP_VERSION, input)));
}

async function createCart(ctx: OperationContext, input: unknown): Promise<OperationResult> {
  const { req, messages: notes } = negotiatedDiscounts(ctx, validate(CreateCartRequest, input, UCP_INPUT));
  const prepare = async (): Promise<{ result: OperationResult; insert?: (when: RawBuilder<boolean>) => RawBuilder<unknown>; write?: () => Promise<void> }> => {
    try {
      const { record, messages, now, stock } = await prepareCart(ctx.db, ctx.shop, req, { acceptLanguage: ctx.acceptLanguage });
      return {
        result: { status: 201, body: cartBody(ctx, record, [...notes, ...messages], stock) },
        insert: (when) => cartInsert(record, now, when),
        write: () => writeNewCart(ctx.db, record, now),
      };
    } catch (e) {
      if (e instanceof CartRejected) return { result: rejected(ctx, e) };
      throw e;
    }
  };
  if (ctx.idempotencyKey) return idempotent(() => runIdempotentInsert<OperationResult>(ctx.db, keyScope(ctx, 'create_cart', null, input), prepare));
  const { result, write } = await prepare();
  if (write) await write();
  return result;
}

export async function getCartOp(ctx: OperationContext, id: string): Promise<OperationResult> {
  const record = await findCart(ctx.db, ctx.shop, id);
  if (!record) return answer(ctx, notFound(ctx, id));
  return answer(ctx, { status: 200, body: cartBody(ctx, record, [], await stockOf(ctx.db, ctx.shop, record.line_items.map((l) => l.variant_id))) });
}

export async function updateCartOp(ctx: OperationContext, id: string, input: unknown): Promise<OperationResult> {
  return answer(ctx, await updateCartIn(ctx, id, cartRequestIn(ctx.version ?? UCP_VERSION, input)));
}

async function updateCartIn(ctx: OperationContext, id: string, input: unknown): Promise<OperationResult> {
  const { req, messages: notes } = negotiatedDiscounts(ctx, validate(UpdateCartRequest, input, UCP_INPUT));
  if (req.id !== undefined && req.id !== id) {
    throw new InvalidRequest('invalid_request', `The body names cart '${req.id}' but the request is for '${id}'.`, [
      { path: '$.id', code: 'id_mismatch', content: 'Must equal the cart id of the request (or be omitted).' },
    ]);
  }
  // With a key: in the idempotency transaction (row locked). Without: the optimistic form, one
  // conditional UPDATE and no transaction held across round trips.
  const keyed = !!ctx.idempotencyKey;
  return guarded(
    ctx,
    'update_cart',
    id,
    withoutId(input),
    async (db) => {
      const r = await (keyed ? updateCart : updateCartUnlocked)(db, ctx.shop, id, req, { acceptLanguage: ctx.acceptLanguage });
      if (!r) return notFound(ctx, id);
      return { status: 200, body: cartBody(ctx, r.record, [...notes, ...r.messages], r.stock) };
    },
    !keyed,
  );
}

export async function cancelCartOp(ctx: OperationContext, id: string): Promise<OperationResult> {
  const r = await guarded(ctx, 'cancel_cart', id, null, async (db) => {
    const before = await cancelCart(db, ctx.shop, id);
    if (!before) return notFound(ctx, id);
    return { status: 200, body: cartBody(ctx, before, [], await stockOf(db, ctx.shop, before.line_items.map((l) => l.variant_id))) };
  });
  return answer(ctx, r);
}
