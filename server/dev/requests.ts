/**
 * The request inspector's read side (docs/sandbox.md "Request inspector"):
 * `GET /dev/shops/{id or domain}/requests?limit=N&since=ID` answers the shop's recent exchanges,
 * newest first, as recorded by server/http/inspector/record.ts. Shops are named by id
 * (`shop_demo`) or domain (`demo.localhost`, a `:port` ignored), here and by reset.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import { findShopByIdOrDomain } from '../core/shops/shops.ts';
import { NoSuchShop } from '../seed/reset.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import * as z from 'zod/mini';
import { BODY_MAX_CHARS, exchangesOf, MAX_SHOPS, recordingPaused, RING_SIZE, setRecordingPaused } from '../http/inspector/store.ts';
import { readJson } from '../http/body.ts';
import { validate } from '../core/shared/validate.ts';

/** A shop by its id or its domain; NoSuchShop (404) naming both forms otherwise. */
export async function shopByRef(db: DB, ref: string): Promise<Shop> {
  const shop = await findShopByIdOrDomain(db, ref);
  if (!shop) throw new NoSuchShop(`No shop with id or domain '${ref.slice(0, 200)}'. Name a shop by its id (shop_demo) or its domain (demo.localhost); the platform's home page, /, lists them.`);
  return shop;
}

/** A query parameter as a whole number in [min, max], or the field error that says so. */
function whole(c: Context, name: string, min: number, max: number): number | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  if (!/^\d{1,15}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new InvalidRequest('invalid_request', `${name} must be a whole number from ${min} to ${max}; got '${v.slice(0, 40)}'.`, [{ path: `$.query.${name}`, code: 'invalid_value', content: `A whole number from ${min} to ${max}.` }]);
  }
  return Number(v);
}

export async function listRequests(c: Context<AppEnv>): Promise<Response> {
  const shop = await shopByRef(c.get('db'), c.req.param('shop') ?? '');
  const limit = whole(c, 'limit', 1, RING_SIZE);
  const since = whole(c, 'since', 0, Number.MAX_SAFE_INTEGER);
  const exchanges = exchangesOf(shop.id, { ...(limit !== undefined ? { limit } : {}), ...(since !== undefined ? { since } : {}) });
  c.header('Cache-Control', 'no-store');
  return c.json({
    shop: { id: shop.id, domain: shop.domain },
    // UCP_INSPECTOR=off or paused: nothing is recorded (the list stays empty); say so rather than look idle.
    recording: isRecording(c),
    exchanges,
    // What a follower sends next: the newest id seen (unchanged when nothing is new).
    since: exchanges[0]?.id ?? since ?? 0,
    kept: { exchanges_per_shop: RING_SIZE, body_chars: BODY_MAX_CHARS, shops: MAX_SHOPS },
  });
}

const isRecording = (c: Context<AppEnv>) => c.get('config').inspector !== false && !recordingPaused();

const RecordingRequest = z.strictObject({ recording: z.boolean() });

/**
 * `POST /dev/recording {"recording": false | true}`: pauses or resumes the inspector's recording in
 * this process (a load test that should not fill it, or measure it: bench/run.ts alternates it on
 * one server). Answers `{recording}`; with UCP_INSPECTOR=off it stays false.
 */
export async function setRecording(c: Context<AppEnv>): Promise<Response> {
  const body = validate(RecordingRequest, await readJson(c), { code: 'invalid_request' });
  setRecordingPaused(!body.recording);
  return c.json({ recording: isRecording(c) });
}
