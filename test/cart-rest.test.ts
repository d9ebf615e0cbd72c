import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { purgeExpiredCarts } from '../server/core/carts/carts.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const HOST = 'demo.localhost';
const create = (body: unknown, headers: Record<string, string> = {}, host = HOST) => s.req(host, 'POST', '/api/ucp/carts', body, headers);
const get = (id: string, host = HOST) => s.req(host, 'GET', `/api/ucp/carts/${id}`);
const update = (id: string, body: unknown, headers: Record<string, string> = {}) => s.req(HOST, 'PUT', `/api/ucp/carts/${id}`, body, headers);
const cancel = (id: string, headers: Record<string, string> = {}) => s.req(HOST, 'POST', `/api/ucp/carts/${id}/cancel`, undefined, headers);

const FLASK_LINE = {
  item: { id: 'var_flask_steel' },
  quantity: 1,
  customizations: [
    { id: 'engraving', value: 'For Sam' },
    { id: 'gift_box', value: 'kraft' },
    { id: 'extras', value: 'card' },
    { id: 'extras', value: 'ribbon' },
  ],
};
const TEE = { item: { id: 'var_tee_s_white' }, quantity: 2 };

const total = (totals: any[], type: string) => totals.find((t) => t.type === type)?.amount;
const expectCart = (body: unknown) => {
  expectUcpValid('shopping/cart.json', body);
  expectUcpValid('shopping/discount.json#/$defs/dev.ucp.shopping.cart', body);
};
const expectError = (body: unknown) => expectUcpValid('shopping/types/error_response.json', body);

describe('cart answers and caches', () => {
  it('every cart answer says Cache-Control: private, no-store and Vary: UCP-Agent (the version negotiated from it)', async () => {
    const made = await create({ line_items: [TEE] }, { origin: 'https://agent.example' });
    const read = await get(made.body.id);
    const changed = await update(made.body.id, { line_items: [TEE] });
    for (const r of [made, read, changed]) {
      expect(r.headers['cache-control']).toBe('private, no-store');
      expect(String(r.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(['UCP-Agent', 'Accept-Language']));
    }
  });
});

describe('POST /api/ucp/carts', () => {
  it('creates a priced cart (201) with customization modifiers, ucp block and continue_url', async () => {
    const r = await create({ line_items: [FLASK_LINE, TEE] });
    expect(r.status).toBe(201);
    expectCart(r.body);
    const c = r.body;
    expect(c.id).toMatch(/^cart_/);
    expect(c.currency).toBe('USD');
    expect(c.ucp.version).toBe('2026-04-08');
    expect(c.ucp.services['dev.ucp.shopping']).toEqual([{ version: '2026-04-08', transport: 'embedded', config: { delegate: [] } }]);
    expect(Object.keys(c.ucp.capabilities)).toEqual(['dev.ucp.shopping.cart', 'dev.ucp.shopping.discount']);
    expect(c.continue_url).toBe(`http://demo.localhost:${s.port}/cart/${c.id}`);
    expect(Date.parse(c.expires_at)).toBeGreaterThan(Date.now());
    // 3200 + 300 + 250 + 150 = 3900 (docs/catalog-format.md)
    expect(c.line_items[0].item).toMatchObject({ id: 'var_flask_steel', price: 3900 });
    expect(c.line_items[0].customizations).toHaveLength(4);
    expect(total(c.line_items[0].totals, 'subtotal')).toBe(3900);
    expect(total(c.line_items[1].totals, 'total')).toBe(5000);
    expect(c.totals.filter((t: any) => t.type === 'subtotal')).toHaveLength(1);
    expect(total(c.totals, 'subtotal')).toBe(8900);
    expect(total(c.totals, 'tax')).toBeUndefined(); // no address, default rate 0: omitted
    expect(total(c.totals, 'total')).toBe(8900);
    expect(c.discounts).toEqual({ codes: [], applied: [] });

    const g = await get(c.id);
    expect(g.status).toBe(200);
    expectCart(g.body);
    expect(g.body.totals).toEqual(c.totals);
    expect(g.body.line_items).toEqual(c.line_items);
  });

  it('localizes names, converts prices and estimates tax from context', async () => {
    const r = await create({ line_items: [TEE], context: { language: 'fr', currency: 'EUR', address_country: 'FR' } });
    expect(r.status).toBe(201);
    expectCart(r.body);
    expect(r.body.currency).toBe('EUR');
    expect(r.body.line_items[0].item.title).toMatch(/^T-shirt classique/);
    expect(r.body.line_items[0].item.price).toBe(2300); // 25.00 USD * 0.92
    expect(total(r.body.totals, 'tax')).toBe(920); // 20 % of 46.00
    expect(total(r.body.totals, 'total')).toBe(4600 + 920);
    const ca = await create({ line_items: [TEE], context: { address_country: 'US', address_region: 'CA' } });
    expect(total(ca.body.totals, 'tax')).toBe(363); // 7.25 % of 50.00 = 362.5 -> 363
  });

  it('warns about unsupported currency and language, still creating the cart', async () => {
    const r = await create({ line_items: [TEE], context: { currency: 'XYZ', language: 'de' } });
    expect(r.status).toBe(201);
    expectCart(r.body);
    expect(r.body.currency).toBe('USD');
    expect(r.body.messages.map((m: any) => m.code)).toEqual(['unsupported_language', 'unsupported_currency']);
  });

  it('rejects invalid customizations with a 200 error_response naming each field', async () => {
    const r = await create({
      line_items: [
        TEE,
        {
          item: { id: 'var_flask_steel' },
          quantity: 1,
          customizations: [
            { id: 'engraving', value: 'x'.repeat(21) },
            { id: 'gift_box', value: 'gold' },
            { id: 'bogus', value: '1' },
            { id: 'extras', value: 'card' },
            { id: 'extras', value: 'ribbon' },
            { id: 'extras', value: 'funnel' },
          ],
        },
        { item: { id: 'var_mug_white' }, quantity: 1 },
        { item: { id: 'var_tee_m_white' }, quantity: 1, customizations: [{ id: 'x', value: 'y' }] },
      ],
    });
    expect(r.status).toBe(200);
    expectError(r.body);
    expect(r.body.ucp.status).toBe('error');
    const got = r.body.messages.map((m: any) => [m.code, m.path]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['customization_too_long', '$.line_items[1].customizations[0].value'],
        ['customization_invalid_option', '$.line_items[1].customizations[1].value'],
        ['customization_unknown', '$.line_items[1].customizations[2].id'],
        ['customization_too_many_selections', '$.line_items[1].customizations[5]'],
        ['customization_required', '$.line_items[2].customizations'],
        ['customization_not_supported', '$.line_items[3].customizations'],
      ]),
    );
    expect(r.body.messages.every((m: any) => m.type === 'error' && m.severity === 'requires_buyer_input' && m.content)).toBe(true);
  });

  it('rejects unknown variants (200 error_response) and creates nothing', async () => {
    const before = await countCarts();
    const r = await create({ line_items: [TEE, { item: { id: 'var_nope' }, quantity: 1 }] });
    expect(r.status).toBe(200);
    expectError(r.body);
    expect(r.body.messages).toEqual([expect.objectContaining({ code: 'not_found', path: '$.line_items[1].item.id' })]);
    expect(await countCarts()).toBe(before);
  });

  it('rejects wire-shape violations with 400 invalid_request and paths', async () => {
    const q0 = await create({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 0 }] });
    expect(q0.status).toBe(400);
    expect(q0.body.code).toBe('invalid_request');
    expect(q0.body.messages.map((m: any) => m.path)).toEqual(['$.line_items[0].quantity']);
    const missing = await create({});
    expect(missing.status).toBe(400);
    expect(missing.body.messages.map((m: any) => m.path)).toContain('$.line_items');
    const types = await create({ line_items: [{ item: { id: 5 }, quantity: '1' }] });
    expect(types.status).toBe(400);
    expect(types.body.messages.map((m: any) => m.path).sort()).toEqual(['$.line_items[0].item.id', '$.line_items[0].quantity']);
    const json = await s.req(HOST, 'POST', '/api/ucp/carts', '{nope');
    expect(json.status).toBe(400);
  });

  it('enforces documented limits: lines, quantity, customization text size', async () => {
    const lines = await create({ line_items: Array.from({ length: 101 }, () => TEE) });
    expect(lines.status).toBe(400);
    expect(lines.body.messages[0].path).toBe('$.line_items');
    const qty = await create({ line_items: [{ ...TEE, quantity: 1000 }] });
    expect(qty.status).toBe(400);
    expect(qty.body.messages[0].path).toBe('$.line_items[0].quantity');
    const big = await create({ line_items: [{ item: { id: 'var_mug_white' }, quantity: 1, customizations: [{ id: 'name', value: 'x'.repeat(1001) }] }] });
    expect(big.status).toBe(400);
    expect(big.body.messages[0].path).toBe('$.line_items[0].customizations[0].value');
  });
});

async function countCarts(): Promise<number> {
  const r = await s.db.selectFrom('carts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('discount codes', () => {
  it('applies codes case-insensitively with allocations; rejected codes are warnings', async () => {
    const r = await create({ line_items: [FLASK_LINE, TEE], discounts: { codes: ['welcome10', 'NOPE', 'SUMMER2024', 'WELCOME10', 'BIGSPENDER'] } });
    expect(r.status).toBe(201);
    expectCart(r.body);
    const [applied] = r.body.discounts.applied;
    expect(r.body.discounts.applied).toHaveLength(1);
    expect(applied).toMatchObject({ code: 'WELCOME10', title: '10% off', amount: 890 });
    expect(applied.allocations.reduce((a: number, x: any) => a + x.amount, 0)).toBe(890);
    expect(applied.allocations.map((x: any) => x.path)).toEqual(['$.line_items[0]', '$.line_items[1]']);
    expect(total(r.body.totals, 'items_discount')).toBe(-890);
    expect(total(r.body.totals, 'total')).toBe(8900 - 890);
    expect(r.body.messages.map((m: any) => [m.type, m.code, m.path])).toEqual([
      ['warning', 'discount_code_invalid', '$.discounts.codes[1]'],
      ['warning', 'discount_code_expired', '$.discounts.codes[2]'],
      ['warning', 'discount_code_already_applied', '$.discounts.codes[3]'],
      ['warning', 'discount_code_min_subtotal_not_met', '$.discounts.codes[4]'],
    ]);
  });

  it('a French cart says it in French (labels and warnings); codes and paths are the same; English stays the default', async () => {
    const body = { line_items: [FLASK_LINE, TEE], discounts: { codes: ['WELCOME10', 'NOPE', 'SUMMER2024', 'BIGSPENDER'] } };
    const fr = await create({ ...body, context: { language: 'fr', address_country: 'US', address_region: 'CA' } });
    const en = await create({ ...body, context: { address_country: 'US', address_region: 'CA' } });
    expectCart(fr.body);
    const label = (c: any, type: string) => c.totals.find((t: any) => t.type === type)?.display_text;
    expect(label(fr.body, 'items_discount')).toBe('Réductions');
    expect(label(en.body, 'items_discount')).toBe('Discounts');
    expect(label(fr.body, 'tax')).toBe('Taxes estimées');
    expect(label(en.body, 'tax')).toBe('Estimated tax');
    expect(fr.body.line_items[0].totals.find((t: any) => t.type === 'items_discount').display_text).toBe('Réduction');
    expect(fr.body.messages.map((m: any) => m.content)).toEqual([
      'Le code «\u00a0NOPE\u00a0» n’est pas un code de réduction valide.',
      'Le code «\u00a0SUMMER2024\u00a0» a expiré.',
      expect.stringMatching(/^Le code «\u00a0BIGSPENDER\u00a0» demande un sous-total d’au moins \d+,\d\d\s\$US\.$/), // money formatted like the prices (issue 16)
    ]);
    expect(en.body.messages[0].content).toBe("Code 'NOPE' is not a valid discount code.");
    const shape = (c: any) => c.messages.map((m: any) => [m.type, m.code, m.path]);
    expect(shape(fr.body)).toEqual(shape(en.body));
    // Customization problems too (the definition's French label; codes and paths as in English).
    const noEngraving = { item: { id: 'var_flask_steel' }, quantity: 1, customizations: [{ id: 'gift_box', value: 'kraft' }] };
    const frBad = await create({ line_items: [noEngraving], context: { language: 'fr' } });
    const enBad = await create({ line_items: [noEngraving] });
    expect(frBad.body.messages[0]).toMatchObject({ code: 'customization_required', path: '$.line_items[0].customizations' });
    expect(frBad.body.messages[0].content).toBe("'engraving' (Gravure) est obligatoire\u00a0: un texte de 20 caractères au plus.");
    expect(enBad.body.messages[0].content).toBe("'engraving' (Engraving) is required: a text of up to 20 characters.");
    expect(shape(frBad.body)).toEqual(shape(enBad.body));
    // A line that cannot be added is rejected in the cart's language too.
    const bad = await create({ line_items: [{ item: { id: 'var_nope' }, quantity: 1 }], context: { language: 'fr' } });
    expect(bad.body.messages[0]).toMatchObject({ code: 'not_found', path: '$.line_items[0].item.id', content: 'Aucune variante «\u00a0var_nope\u00a0» dans cette boutique.' });
  });

  it('customizations are echoed with a display_text in the cart language (labels, not option ids)', async () => {
    const en = await create({ line_items: [FLASK_LINE] });
    const fr = await create({ line_items: [FLASK_LINE], context: { language: 'fr' } });
    expectCart(en.body);
    expectCart(fr.body);
    expect(en.body.line_items[0].customizations).toEqual([
      { id: 'engraving', value: 'For Sam', display_text: 'Engraving: For Sam' },
      { id: 'gift_box', value: 'kraft', display_text: 'Gift box: Kraft box' },
      { id: 'extras', value: 'card', display_text: 'Extras: Greeting card' },
      { id: 'extras', value: 'ribbon', display_text: 'Extras: Ribbon' },
    ]);
    expect(fr.body.line_items[0].customizations.map((c: any) => c.display_text)).toEqual(['Gravure: For Sam', 'Coffret: Coffret kraft', 'Options: Carte de vœux', 'Options: Ruban']);
    // An update that echoes the entries back (display_text included) is accepted and re-labels them.
    const again = await update(fr.body.id, { line_items: [{ ...FLASK_LINE, customizations: fr.body.line_items[0].customizations }], context: { language: 'en' } });
    expect(again.status).toBe(200);
    expect(again.body.line_items[0].customizations[1]).toEqual({ id: 'gift_box', value: 'kraft', display_text: 'Gift box: Kraft box' });
  });

  it('replaces codes on update, keeps them when omitted, clears them with []', async () => {
    const c = (await create({ line_items: [TEE], discounts: { codes: ['SAVE5'] } })).body;
    expect(total(c.totals, 'total')).toBe(4500);
    const kept = await update(c.id, { line_items: [{ ...TEE, quantity: 8 }] });
    expectCart(kept.body);
    expect(kept.body.discounts.codes).toEqual(['SAVE5']);
    expect(total(kept.body.totals, 'total')).toBe(20000 - 500);
    const big = await update(c.id, { line_items: [{ ...TEE, quantity: 8 }], discounts: { codes: ['bigspender'] } });
    expect(big.body.discounts.applied.map((d: any) => [d.code, d.amount])).toEqual([['BIGSPENDER', 2000]]);
    expect(total(big.body.totals, 'total')).toBe(18000);
    const cleared = await update(c.id, { line_items: [TEE], discounts: { codes: [] } });
    expectCart(cleared.body);
    expect(cleared.body.discounts).toEqual({ codes: [], applied: [] });
    expect(total(cleared.body.totals, 'items_discount')).toBeUndefined();
  });
});

describe('PUT /api/ucp/carts/{id}', () => {
  it('replaces every line and re-prices when the currency switches', async () => {
    const c = (await create({ line_items: [FLASK_LINE, TEE] })).body;
    const r = await update(c.id, { id: c.id, line_items: [{ item: { id: 'var_candle_fig' }, quantity: 3 }], context: { currency: 'EUR' } });
    expect(r.status).toBe(200);
    expectCart(r.body);
    expect(r.body.id).toBe(c.id);
    expect(r.body.currency).toBe('EUR');
    expect(r.body.line_items).toHaveLength(1);
    expect(r.body.line_items[0].item).toMatchObject({ id: 'var_candle_fig', price: 2208 }); // 24.00 * 0.92
    expect(total(r.body.totals, 'subtotal')).toBe(6624);
    expect((await get(c.id)).body.currency).toBe('EUR');
  });

  it('changes nothing when the update is invalid', async () => {
    const c = (await create({ line_items: [TEE] })).body;
    const r = await update(c.id, { line_items: [{ item: { id: 'var_mug_white' }, quantity: 1, customizations: [{ id: 'name', value: 'A very long name indeed' }] }] });
    expect(r.status).toBe(200);
    expectError(r.body);
    expect(r.body.messages[0]).toMatchObject({ code: 'customization_too_long', path: '$.line_items[0].customizations[0].value' });
    expect((await get(c.id)).body.line_items).toEqual(c.line_items);
  });

  it('answers 400 when the body id differs from the path id', async () => {
    const c = (await create({ line_items: [TEE] })).body;
    const r = await update(c.id, { id: 'cart_other', line_items: [] });
    expect(r.status).toBe(400);
    expect(r.body.messages[0].path).toBe('$.id');
  });
});

describe('POST /api/ucp/carts/{id}/cancel', () => {
  it('returns the cart as it stood and leaves it with no items', async () => {
    const c = (await create({ line_items: [FLASK_LINE, TEE], discounts: { codes: ['WELCOME10'] } })).body;
    const r = await cancel(c.id);
    expect(r.status).toBe(200);
    expectCart(r.body);
    expect(r.body.line_items).toEqual(c.line_items);
    expect(r.body.totals).toEqual(c.totals);
    const after = await get(c.id);
    expect(after.status).toBe(200);
    expectCart(after.body);
    expect(after.body.line_items).toEqual([]);
    expect(total(after.body.totals, 'total')).toBe(0);
  });
});

describe('not found and isolation', () => {
  it('answers unknown, other-shop and expired carts with a not_found error_response', async () => {
    const unknown = await get('cart_nope');
    expect(unknown.status).toBe(200);
    expectError(unknown.body);
    expect(unknown.body.messages[0]).toMatchObject({ type: 'error', code: 'not_found', severity: 'unrecoverable' });
    expect(unknown.body.continue_url).toBe(`http://demo.localhost:${s.port}/`);

    const c = (await create({ line_items: [TEE] })).body;
    for (const r of [await get(c.id, 'other.localhost'), await s.req('other.localhost', 'PUT', `/api/ucp/carts/${c.id}`, { line_items: [] }), await s.req('other.localhost', 'POST', `/api/ucp/carts/${c.id}/cancel`)]) {
      expect(r.status).toBe(200);
      expectError(r.body);
      expect(r.body.messages[0].code).toBe('not_found');
    }
    expect((await get(c.id)).body.line_items).toHaveLength(1);

    await s.db.updateTable('carts').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', c.id).execute();
    for (const r of [await get(c.id), await update(c.id, { line_items: [TEE] }), await cancel(c.id)]) {
      expect(r.status).toBe(200);
      expectError(r.body);
      expect(r.body.messages[0].code).toBe('not_found');
    }
    expect(await purgeExpiredCarts(s.db)).toBeGreaterThanOrEqual(1);
    expect(await s.db.selectFrom('carts').select('id').where('id', '=', c.id).executeTakeFirst()).toBeUndefined();
  });

  it('answers wrong methods with 405 and Allow', async () => {
    const r = await s.req(HOST, 'DELETE', '/api/ucp/carts/cart_x');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, PUT');
    expect((await s.req(HOST, 'GET', '/api/ucp/carts')).status).toBe(405);
    expect((await s.req(HOST, 'GET', '/api/ucp/carts/x/cancel')).status).toBe(405);
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored response byte for byte and executes nothing', async () => {
    const key = crypto.randomUUID();
    const body = { line_items: [TEE], discounts: { codes: ['WELCOME10'] } };
    const first = await create(body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const before = await countCarts();
    const again = await create({ discounts: { codes: ['WELCOME10'] }, line_items: [TEE] }, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(await countCarts()).toBe(before);
  });

  it('answers 409 for the same key with a different body', async () => {
    const key = crypto.randomUUID();
    await create({ line_items: [TEE] }, { 'idempotency-key': key });
    const r = await create({ line_items: [{ ...TEE, quantity: 3 }] }, { 'idempotency-key': key });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ code: 'idempotency_conflict', content: expect.any(String) });
  });

  it('scopes keys per operation and cart; cancel and update replay', async () => {
    const key = crypto.randomUUID();
    const c = (await create({ line_items: [TEE] }, { 'idempotency-key': key })).body;
    const u1 = await update(c.id, { line_items: [{ ...TEE, quantity: 4 }] }, { 'idempotency-key': key });
    expect(u1.status).toBe(200);
    await update(c.id, { line_items: [{ ...TEE, quantity: 9 }] }); // a later change without key
    const u2 = await update(c.id, { line_items: [{ ...TEE, quantity: 4 }] }, { 'idempotency-key': key });
    expect(u2.text).toBe(u1.text);
    const k2 = crypto.randomUUID();
    const c1 = await cancel(c.id, { 'idempotency-key': k2 });
    expect(c1.body.line_items).toHaveLength(1);
    const c2 = await cancel(c.id, { 'idempotency-key': k2 });
    expect(c2.text).toBe(c1.text);
    const c3 = await cancel(c.id);
    expect(c3.body.line_items).toEqual([]);
  });

  it('stores a rejected create under its key too: the replay is the same error, and nothing is written', async () => {
    const key = crypto.randomUUID();
    const before = await countCarts();
    const bad = { line_items: [{ item: { id: 'var_does_not_exist' }, quantity: 1 }] };
    const first = await create(bad, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expectUcpValid('shopping/types/error_response.json', first.body);
    expect(first.body.messages[0]).toMatchObject({ code: 'not_found', path: '$.line_items[0].item.id' });
    const again = await create(bad, { 'idempotency-key': key });
    expect(again.text).toBe(first.text);
    expect((await create({ line_items: [TEE] }, { 'idempotency-key': key })).status).toBe(409);
    expect(await countCarts()).toBe(before);
  });

  it('rejects malformed keys with 400', async () => {
    for (const bad of ['', 'x'.repeat(256), 'has space', 'tab\tkey', 'é']) {
      const r = await create({ line_items: [TEE] }, { 'idempotency-key': bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.code).toBe('invalid_idempotency_key');
    }
  });

  it('50 concurrent creates with one key make exactly one cart', async () => {
    const key = crypto.randomUUID();
    const before = await countCarts();
    const rs = await Promise.all(Array.from({ length: 50 }, () => create({ line_items: [TEE] }, { 'idempotency-key': key })));
    expect(rs.every((r) => r.status === 201)).toBe(true);
    expect(new Set(rs.map((r) => r.text)).size).toBe(1);
    expect(await countCarts()).toBe(before + 1);
  });

  it('fails closed with 503 when the key store is unavailable', async () => {
    await sql`alter table idempotency_keys rename to idempotency_keys_off`.execute(s.db);
    try {
      const before = await countCarts();
      const r = await create({ line_items: [TEE] }, { 'idempotency-key': crypto.randomUUID() });
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('service_unavailable');
      expect(r.headers['retry-after']).toBeDefined();
      expect(await countCarts()).toBe(before);
    } finally {
      await sql`alter table idempotency_keys_off rename to idempotency_keys`.execute(s.db);
    }
  });
});
