/** The Embedded Protocol's JSON-RPC 2.0 peer (src/embedded/rpc.ts). */
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { createPeer, MAX_MESSAGE_CHARS, RpcError } from '../src/embedded/rpc.ts';

/** The peer takes a params guard (host.js uses src/embedded/guards.ts); here one backed by zod. */
const guard = (s: z.ZodMiniType) => (x: unknown) => z.safeParse(s, x).success;
const P = guard(z.looseObject({ n: z.int() }));

function pair() {
  const sentByA: any[] = [];
  const sentByB: any[] = [];
  const b = createPeer((m) => {
    sentByB.push(m);
    queueMicrotask(() => a.receive(m));
  }, {
    add: { params: P, run: (p: { n: number }) => ({ sum: p.n + 1 }) },
    boom: { params: P, run: () => { throw new Error('secret detail'); } },
    typed: { params: P, run: () => { throw new RpcError(-32000, 'custom'); } },
  }, {
    note: { params: P, run: vi.fn() },
  });
  const a = createPeer((m) => {
    sentByA.push(m);
    queueMicrotask(() => b.receive(m));
  });
  return { a, b, sentByA, sentByB };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('JSON-RPC peer', () => {
  it('answers a request with the same id and resolves the caller', async () => {
    const { a, sentByA, sentByB } = pair();
    await expect(a.request('add', { n: 41 })).resolves.toEqual({ sum: 42 });
    expect(sentByA[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'add', params: { n: 41 } });
    expect(sentByB[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { sum: 42 } });
  });

  it('answers an unknown request with -32601 (also for prototype names)', async () => {
    const { a } = pair();
    await expect(a.request('nope', {})).rejects.toMatchObject({ code: -32601 });
    await expect(a.request('toString', {})).rejects.toMatchObject({ code: -32601 });
    await expect(a.request('__proto__', {})).rejects.toMatchObject({ code: -32601 });
  });

  it('answers bad params with -32602 and never runs the handler', async () => {
    const { a } = pair();
    await expect(a.request('add', { n: 'x' })).rejects.toMatchObject({ code: -32602 });
  });

  it('hides handler failures behind -32603 but keeps deliberate RpcErrors', async () => {
    const { a, sentByB } = pair();
    await expect(a.request('boom', { n: 1 })).rejects.toMatchObject({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(sentByB)).not.toContain('secret');
    await expect(a.request('typed', { n: 1 })).rejects.toMatchObject({ code: -32000, message: 'custom' });
  });

  it('runs known notifications, ignores unknown ones and bad params, never answers them', async () => {
    const run = vi.fn();
    const sent: any[] = [];
    const b = createPeer((m) => sent.push(m), {}, { note: { params: P, run } });
    b.receive({ jsonrpc: '2.0', method: 'note', params: { n: 1 } });
    b.receive({ jsonrpc: '2.0', method: 'unknown.note', params: {} });
    b.receive({ jsonrpc: '2.0', method: 'note', params: { n: 'bad' } });
    await flush();
    expect(run).toHaveBeenCalledTimes(1);
    expect(run.mock.calls[0][0]).toEqual({ n: 1 });
    expect(sent).toEqual([]);
  });

  it('drops non-JSON-RPC traffic silently and rejects malformed requests with -32600', async () => {
    const sent: any[] = [];
    const b = createPeer((m) => sent.push(m), { add: { params: P, run: () => 1 } });
    for (const junk of [null, 'ep.cart.ready', 42, { type: 'APPLY', id: 1, path: [] }, { jsonrpc: '1.0', id: 1, method: 'add', params: { n: 1 } }, { id: 1, method: 'add' }]) {
      b.receive(junk);
    }
    await flush();
    expect(sent).toEqual([]);
    b.receive({ jsonrpc: '2.0', id: 7, method: 'add', params: [1, 2] }); // positional params are not allowed
    await flush();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request' } }]);
  });

  it('ignores responses to ids it never sent', async () => {
    const sent: any[] = [];
    const b = createPeer((m) => sent.push(m));
    b.receive({ jsonrpc: '2.0', id: 99, result: { ucp: {} } });
    await flush();
    expect(sent).toEqual([]);
  });

  it('drops oversized messages unread', async () => {
    const run = vi.fn();
    const b = createPeer(() => {}, {}, { note: { params: guard(z.looseObject({})), run } });
    b.receive({ jsonrpc: '2.0', method: 'note', params: { pad: 'x'.repeat(MAX_MESSAGE_CHARS) } });
    await flush();
    expect(run).not.toHaveBeenCalled();
  });

  it('lets a handler transfer objects and act after its answer was sent', async () => {
    const order: string[] = [];
    const sends: Array<[any, any]> = [];
    const b = createPeer((m, t) => { sends.push([m, t]); order.push('sent'); }, {
      up: { params: guard(z.looseObject({})), run: (_p, reply) => { const mc = new MessageChannel(); reply.transfer.push(mc.port2); reply.after = () => order.push('after'); return { ok: true }; } },
    });
    b.receive({ jsonrpc: '2.0', id: 'a', method: 'up', params: {} });
    await flush();
    expect(order).toEqual(['sent', 'after']);
    expect(sends[0][1]).toHaveLength(1);
    expect(sends[0][1][0]).toBeInstanceOf(MessagePort);
    (sends[0][1][0] as MessagePort).close();
  });

  it('times out an unanswered request and rejects everything on close', async () => {
    const a = createPeer(() => {});
    await expect(a.request('x', {}, 10)).rejects.toThrow(/no answer/);
    const p = a.request('y', {});
    a.close();
    await expect(p).rejects.toThrow('closed');
  });

  it('a swapped send (port upgrade) is used for everything afterwards', async () => {
    const first = vi.fn();
    const second = vi.fn();
    const a = createPeer(first);
    a.notify('n', {});
    a.send = second;
    a.notify('n', {});
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
  });
});
