/**
 * The cart operations shared with REST (server/ucp/cart-operations.ts), loaded on first use. The
 * contract is restated here so the MCP transport type-checks independently of the cart module.
 */
import type { DB } from '../db/index.ts';
import type { Shop } from '../core/types.ts';

export interface OperationContext {
  db: DB;
  shop: Shop;
  origin: string;
  acceptLanguage?: string;
  idempotencyKey?: string;
}
export interface OperationResult {
  status: 200 | 201 | 409 | 503;
  body: unknown;
}
interface CartOps {
  createCartOp(ctx: OperationContext, input: unknown): Promise<OperationResult>;
  getCartOp(ctx: OperationContext, id: string): Promise<OperationResult>;
  updateCartOp(ctx: OperationContext, id: string, input: unknown): Promise<OperationResult>;
  cancelCartOp(ctx: OperationContext, id: string): Promise<OperationResult>;
}

const MODULE = '../ucp/cart-operations.ts';
let ops: Promise<CartOps> | undefined;
const load = () => (ops ??= import(/* @vite-ignore */ MODULE) as Promise<CartOps>);

export const createCartOp: CartOps['createCartOp'] = async (ctx, input) => (await load()).createCartOp(ctx, input);
export const getCartOp: CartOps['getCartOp'] = async (ctx, id) => (await load()).getCartOp(ctx, id);
export const updateCartOp: CartOps['updateCartOp'] = async (ctx, id, input) => (await load()).updateCartOp(ctx, id, input);
export const cancelCartOp: CartOps['cancelCartOp'] = async (ctx, id) => (await load()).cancelCartOp(ctx, id);
