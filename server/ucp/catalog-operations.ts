/**
 * Catalog operations, transport-neutral: REST (rest.ts) and MCP (mcp/tools.ts) call exactly these,
 * so both answer with the same body. Each validates its input (InvalidRequest for wire-shape
 * errors, which each transport renders its own way), resolves the locale and calls the core.
 */
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import type { Message } from '../../src/wire/common.ts';
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import { getProduct, lookupCatalog, searchCatalog } from '../core/catalog/catalog.ts';
import { noticeMessages, resolveLocale, type RequestContext } from '../core/shared/localize.ts';
import { BusinessError } from '../core/shared/errors.ts';
import { validate } from '../core/shared/validate.ts';
import { UCP_INPUT } from '../http/body.ts';
import { errorResponse } from '../http/errors.ts';
import { responseMeta } from '../core/shops/ucp-profile.ts';
import { answerIn } from './versions.ts';
import { UCP_VERSION, type UcpVersion } from '../version.ts';

export interface CatalogContext {
  db: DB;
  shop: Shop;
  origin: string;
  acceptLanguage?: string;
  /** Capabilities negotiated with the calling platform (default: all of ours). */
  negotiated?: Iterable<string>;
  /** The negotiated UCP version (server/ucp/versions.ts); default the seed's. */
  version?: UcpVersion;
}

export interface CatalogResult {
  /** The exact response body (REST JSON, MCP structuredContent). */
  body: object;
  /** The language the body is in (REST sends it as Content-Language). */
  language: string;
}

/** Language and currency for a request; unsupported values become warnings, never failures. */
export function localize(ctx: CatalogContext, context: RequestContext | undefined) {
  const { locale, notices } = resolveLocale(ctx.shop, context, ctx.acceptLanguage, '$.context');
  return { locale, messages: noticeMessages(notices) };
}

export function withMessages<T extends object>(body: T, messages: Message[]): T & { messages?: Message[] } {
  return messages.length ? { ...body, messages } : body;
}

/** The body in the request's version (server/ucp/versions.ts). */
function answer(ctx: CatalogContext, body: object, language: string): CatalogResult {
  return { body: answerIn(ctx.version ?? UCP_VERSION, body, { shop: ctx.shop, origin: ctx.origin, language }), language };
}

export async function searchCatalogOp(ctx: CatalogContext, input: unknown): Promise<CatalogResult> {
  const req = validate(SearchRequest, input, UCP_INPUT);
  const { locale, messages } = localize(ctx, req.context);
  const { messages: found = [], ...result } = await searchCatalog(ctx.db, ctx.shop, req, locale, ctx.origin);
  return answer(ctx, withMessages({ ucp: responseMeta('search', ctx.negotiated), ...result }, [...messages, ...found]), locale.language);
}

export async function lookupCatalogOp(ctx: CatalogContext, input: unknown): Promise<CatalogResult> {
  const req = validate(LookupRequest, input, UCP_INPUT);
  const { locale, messages } = localize(ctx, req.context);
  const result = await lookupCatalog(ctx.db, ctx.shop, req, locale, ctx.origin);
  return answer(ctx, withMessages({ ucp: responseMeta('lookup', ctx.negotiated), products: result.products }, [...messages, ...result.messages]), locale.language);
}

/** One product; a miss is a UCP error_response (a business outcome, not a failure). */
export async function getProductOp(ctx: CatalogContext, input: unknown): Promise<CatalogResult> {
  const req = validate(GetProductRequest, input, UCP_INPUT);
  const { locale, messages } = localize(ctx, req.context);
  try {
    const product = await getProduct(ctx.db, ctx.shop, req, locale, ctx.origin);
    return answer(ctx, withMessages({ ucp: responseMeta('lookup', ctx.negotiated), product }, messages), locale.language);
  } catch (e) {
    if (e instanceof BusinessError) {
      return answer(ctx, errorResponse(e, responseMeta('lookup', ctx.negotiated).capabilities, `${ctx.origin}/`), locale.language);
    }
    throw e;
  }
}
