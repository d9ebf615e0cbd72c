/**
 * A string from a request never reaches a property inherited from `Object.prototype` (issue 29):
 * lookups keyed by client text use own keys only (Object.hasOwn, a Map or a null-prototype object).
 * The MCP method and tool names are covered in test/mcp-envelope.test.ts; these are the other places.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContentDigest } from '../server/core/access/http-signatures.ts';
import { convert, exponent, supportsCurrency } from '../server/core/shared/money.ts';
import { text } from '../server/core/shared/localize.ts';
import { checkoutHandoff } from '../server/core/carts/checkout-handoff.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe('own keys only', () => {
  it('Content-Digest: an algorithm named like a prototype property is an unknown algorithm, not a crash', () => {
    for (const alg of ['constructor']) { // the one prototype name a structured-field key can spell
      expect(checkContentDigest('{}', `${alg}=:AAAA:`)).toMatchObject({ ok: false, code: 'digest_mismatch', message: expect.stringMatching(/no supported algorithm/) });
    }
  });

  it('money: a prototype name is no currency with an exponent or a rate', () => {
    const rates = { base: 'USD', rates: { EUR: 0.9 } };
    for (const name of PROTOTYPE_NAMES) {
      expect(exponent(name)).toBe(2);
      expect(supportsCurrency(rates, name)).toBe(false);
      expect(() => convert(100, rates, name)).toThrow(/no rate/);
    }
  });

  it('localized text: a prototype name as the language falls back to the text, never a function', () => {
    for (const name of PROTOTYPE_NAMES) expect(text({ en: 'Tee', fr: 'T-shirt' }, name, 'fr')).toBe('T-shirt');
  });

  it('checkout handoff templates: a {constructor} placeholder stays as written', () => {
    const setting = { method: 'GET', url: 'https://shop.example/c/{lines}?x={constructor}&y={tostring}', line: '{variant_id}:{quantity}{__proto__}', separator: ',' };
    const cart = { id: 'cart_1', currency: 'USD', line_items: [{ item: { id: 'var_1' }, quantity: 2 }], messages: [] };
    expect(checkoutHandoff(setting as never, cart as never, 'https://shop.example')).toEqual({ kind: 'redirect', url: 'https://shop.example/c/var_1:2{__proto__}?x={constructor}&y={tostring}' });
  });
});

describe('OAuth forms', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('a field named like a prototype property is not "sent more than once"', async () => {
    const r = await s.req('localhost', 'POST', '/oauth2/access_token', 'constructor=1&__proto__=2&grant_type=nope', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBeLessThan(500);
    expect(r.body.error_description ?? '').not.toMatch(/more than once/);
    expect(r.body.error).toBe('unsupported_grant_type');
  });
});

describe('the typed client', () => {
  it('fieldErrors keys a customization named like a prototype property as its own entry', async () => {
    const { fieldErrors } = await import('../src/client/api.ts');
    const messages = [
      { type: 'error', code: 'invalid', path: '$.line_items[0].customizations[0].value', content: 'Too long.' },
      { type: 'error', code: 'invalid', path: '$.line_items[0].customizations[1]', content: 'Unknown.' },
    ] as never;
    const out = fieldErrors(messages, 0, [{ id: 'constructor' }, { id: '__proto__' }]);
    expect(Object.hasOwn(out, 'constructor') && out.constructor).toBe('Too long.');
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('Unknown.');
  });
});
