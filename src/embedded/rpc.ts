/**
 * A tiny JSON-RPC 2.0 peer for the Embedded Protocol. It knows nothing about windows or origins: the
 * caller checks `event.source` / `event.origin` and then hands `event.data` to `receive()`; `send` is
 * swapped when the channel is upgraded to a MessagePort.
 *
 * Rules (EMBEDDED.md §4, §12): non-JSON-RPC traffic is dropped silently (other SDKs share the
 * channel); an unknown request gets -32601, invalid params -32602, a throwing handler -32603; unknown
 * notifications, notifications with bad params and responses to nothing are ignored.
 */
import { RPC } from '../wire/ep.ts';
import { isEnvelope, type Guard } from './guards.ts';

export type Send = (msg: object, transfer?: Transferable[]) => void;

/** Extra powers a request handler has over its own answer. */
export interface Reply {
  /** Objects to transfer with the answer (the MessagePort of an upgrade). */
  transfer: Transferable[];
  /** Runs right after the answer was sent (e.g. switch the channel). */
  after?: () => void;
}

export interface Method<T = any> {
  /** Validates `params` (src/embedded/guards.ts; equivalent to a zod schema of src/wire/embedded.ts). */
  params: Guard<T> | ((x: unknown) => boolean);
  /** Requests: the return value is the `result`. Notifications: ignored. */
  run(params: T, reply: Reply): unknown;
}

export type Methods = Record<string, Method<any>>;

/** Anything bigger than this (serialised) is dropped unread. */
export const MAX_MESSAGE_CHARS = 1 << 20;

export class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface Peer {
  receive(data: unknown): void;
  request(method: string, params: object, timeoutMs?: number): Promise<unknown>;
  notify(method: string, params: object): void;
  send: Send;
  close(): void;
}

export function createPeer(send: Send, requests: Methods = {}, notifications: Methods = {}): Peer {
  let seq = 0;
  let closed = false;
  const pending = new Map<string | number, { ok(v: unknown): void; ko(e: Error): void; t?: ReturnType<typeof setTimeout> }>();
  const own = (m: Methods, k: string) => (Object.hasOwn(m, k) ? m[k] : undefined);

  const peer: Peer = {
    send,
    receive(data) {
      if (closed || typeof data !== 'object' || data === null) return;
      try {
        if (JSON.stringify(data).length > MAX_MESSAGE_CHARS) return;
      } catch {
        return;
      }
      if (!isEnvelope(data)) {
        // JSON-RPC-looking but malformed requests get -32600; everything else is someone else's traffic.
        const d = data as { jsonrpc?: unknown; id?: unknown; method?: unknown };
        if (d.jsonrpc === '2.0' && typeof d.method === 'string' && (typeof d.id === 'string' || typeof d.id === 'number')) {
          answerError(d.id, RPC.invalidRequest, 'Invalid Request');
        }
        return;
      }
      const m = data;
      const id = m.id as string | number | null | undefined;
      if (id != null && typeof id !== 'string' && typeof id !== 'number') return;
      if (m.method === undefined) {
        // A response.
        const p = id === undefined || id === null ? undefined : pending.get(id);
        if (!p) return;
        pending.delete(id!);
        clearTimeout(p.t);
        if (m.error) p.ko(new RpcError(m.error.code, m.error.message));
        else p.ok(m.result);
        return;
      }
      const isRequest = id !== undefined && id !== null;
      const method = own(isRequest ? requests : notifications, m.method);
      if (!method) {
        if (isRequest) answerError(id, RPC.methodNotFound, `Method not found: ${m.method}`);
        return;
      }
      const params = m.params ?? {};
      if (!method.params(params)) {
        if (isRequest) answerError(id, RPC.invalidParams, 'Invalid params');
        return;
      }
      const reply: Reply = { transfer: [] };
      if (!isRequest) {
        try {
          method.run(params, reply);
        } catch (e) {
          console.error('[ucp] notification handler failed', e);
        }
        return;
      }
      Promise.resolve()
        .then(() => method.run(params, reply))
        .then(
          (result) => {
            if (closed) return;
            peer.send({ jsonrpc: '2.0', id, result }, reply.transfer);
            reply.after?.();
          },
          (e) => answerError(id, e instanceof RpcError ? e.code : RPC.internal, e instanceof RpcError ? e.message : 'Internal error'),
        );
    },
    request(method, params, timeoutMs = 10_000) {
      const id = ++seq;
      return new Promise((ok, ko) => {
        if (closed) return ko(new Error('closed'));
        const t = setTimeout(() => {
          pending.delete(id);
          ko(new RpcError(RPC.internal, `${method}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { ok, ko, t });
        peer.send({ jsonrpc: '2.0', id, method, params });
      });
    },
    notify(method, params) {
      if (!closed) peer.send({ jsonrpc: '2.0', method, params });
    },
    close() {
      closed = true;
      for (const p of pending.values()) {
        clearTimeout(p.t);
        p.ko(new Error('closed'));
      }
      pending.clear();
    },
  };

  function answerError(id: string | number, code: number, message: string) {
    if (!closed) peer.send({ jsonrpc: '2.0', id, error: { code, message } });
  }

  return peer;
}
