/** Message validation against the embedded OpenRPC shapes (src/wire/embedded.ts). */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AuthSuccess, CartParams, EpErrorResponse, ErrorParams, ReadyParams, ReadySuccess, RpcEnvelope, epError, errorParams, parseResult } from '../src/wire/embedded.ts';

const ok = (s: z.ZodMiniType, v: unknown) => z.safeParse(s, v).success;
const cart = {
  ucp: { version: '2026-04-08' },
  id: 'cart_1',
  line_items: [{ id: 'li_1', item: { id: 'var_tee_m_navy', title: 'Tee', price: 2500 }, quantity: 1, totals: [] }],
  currency: 'USD',
  totals: [{ type: 'total', amount: 2500 }],
  messages: [{ type: 'error', code: 'invalid_customization', content: 'Too long', path: '$.line_items[0].customizations[0]', severity: 'requires_buyer_input' }],
  continue_url: 'http://demo.localhost:8391/cart/cart_1',
  extra_field: { kept: true },
};

describe('EP wire shapes', () => {
  it('envelope: requires jsonrpc 2.0 and by-name params', () => {
    expect(ok(RpcEnvelope, { jsonrpc: '2.0', method: 'ep.cart.start', params: {} })).toBe(true);
    expect(ok(RpcEnvelope, { jsonrpc: '2.0', id: 1, result: {} })).toBe(true);
    expect(ok(RpcEnvelope, { jsonrpc: '2.0', id: 1, method: 'x', params: [1] })).toBe(false);
    expect(ok(RpcEnvelope, { jsonrpc: '2', method: 'x' })).toBe(false);
    expect(ok(RpcEnvelope, { jsonrpc: '2.0', method: 'x', params: 'str' })).toBe(false);
  });

  it('ep.cart.ready params: delegate required, pattern, unique; auth.type optional', () => {
    expect(ok(ReadyParams, { delegate: [] })).toBe(true);
    expect(ok(ReadyParams, { delegate: ['payment.instruments_change'], auth: { type: 'oauth' } })).toBe(true);
    expect(ok(ReadyParams, {})).toBe(false);
    expect(ok(ReadyParams, { delegate: ['Payment'] })).toBe(false);
    expect(ok(ReadyParams, { delegate: ['a.', 'b'] })).toBe(false);
    expect(ok(ReadyParams, { delegate: ['a', 'a'] })).toBe(false);
    expect(ok(ReadyParams, { delegate: [], auth: { type: 5 } })).toBe(false);
  });

  it('cart notifications: the full cart with its required fields, unknown fields kept', () => {
    const r = z.safeParse(CartParams, { cart });
    expect(r.success).toBe(true);
    expect((r.data as any).cart.extra_field).toEqual({ kept: true });
    expect((r.data as any).cart.messages[0].path).toBe('$.line_items[0].customizations[0]');
    for (const k of ['ucp', 'id', 'line_items', 'currency', 'totals']) {
      const c: any = { ...cart };
      delete c[k];
      expect(ok(CartParams, { cart: c }), k).toBe(false);
    }
    expect(ok(CartParams, {})).toBe(false);
    expect(ok(CartParams, { cart: { ...cart, messages: [{ type: 'fatal', content: 'x' }] } })).toBe(false);
  });

  it('error_response: status error, at least one message, no other properties', () => {
    const e = epError('security_error', 'Origin check failed', 'http://demo.localhost:8391/cart/c');
    expect(ok(EpErrorResponse, e)).toBe(true);
    expect(ok(EpErrorResponse, { ...e, messages: [] })).toBe(false);
    expect(ok(EpErrorResponse, { ...e, extra: 1 })).toBe(false);
    expect(ok(EpErrorResponse, { ...e, ucp: { version: '2026-04-08', status: 'success' } })).toBe(false);
  });

  it('ep.cart.error params: the OpenRPC {error} shape and the prose shape both normalise', () => {
    const e = epError('timeout_error', 'Timed out', undefined, 'recoverable');
    for (const p of [{ error: e }, e]) {
      expect(ok(ErrorParams, p)).toBe(true);
      expect(errorParams(p)).toEqual(e);
    }
    expect(ok(ErrorParams, { error: { messages: [] } })).toBe(false);
    expect(ok(ErrorParams, { error: { ...e, extra: 1 } })).toBe(false);
  });

  it('ready result: success, success with a real MessagePort, or error_response', () => {
    const success = { version: '2026-04-08', status: 'success' };
    expect(parseResult(ReadySuccess, { ucp: success })).toMatchObject({ ok: true });
    expect(parseResult(ReadySuccess, { ucp: success, credential: 'tok' })).toMatchObject({ ok: true, data: { credential: 'tok' } });
    const mc = new MessageChannel();
    expect(parseResult(ReadySuccess, { ucp: success, upgrade: { port: mc.port2 } })).toMatchObject({ ok: true });
    expect(parseResult(ReadySuccess, { ucp: success, upgrade: { port: { postMessage() {} } } })).toEqual({ ok: false });
    mc.port1.close();
    const err = epError('invalid_state_error', 'x');
    expect(parseResult(ReadySuccess, err)).toEqual({ ok: false, error: err });
    expect(parseResult(ReadySuccess, { ucp: { version: '2026-04-08', status: 'error' }, messages: [] })).toEqual({ ok: false, error: undefined });
    expect(parseResult(ReadySuccess, {})).toEqual({ ok: false });
    expect(parseResult(ReadySuccess, { ucp: success, credential: 42 })).toEqual({ ok: false });
  });

  it('auth result requires a credential', () => {
    expect(ok(AuthSuccess, { ucp: { version: '2026-04-08', status: 'success' }, credential: 't' })).toBe(true);
    expect(ok(AuthSuccess, { ucp: { version: '2026-04-08', status: 'success' } })).toBe(false);
  });
});
