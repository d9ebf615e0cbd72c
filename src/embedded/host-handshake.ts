/**
 * The host's side of the embedded cart protocol as JSON-RPC methods for one channel (frame or
 * popup): the `ready` handshake (always offering the MessagePort upgrade, then `ready` again over
 * the port), credentials, and the cart notifications, which count only once the handshake is done.
 * What happens on each step is the caller's (host.ts): this file is the state machine only.
 */
import { EP, epError, epSuccess, type EpErrorResponse } from '../wire/ep.ts';
import { errorParams, isAuthParams, isCartParams, isErrorParams, isReadyParams, type EpCart } from './guards.ts';
import type { Methods } from './rpc.ts';
import type { OpenCartOptions } from '../host/types.ts';

export type CartNote = 'start' | 'line_items' | 'buyer' | 'messages' | 'complete';

export interface HandshakeSteps {
  /** The window channel is done: messages go over this port from now on. */
  upgraded(channel: MessageChannel): void;
  ready(delegate: string[]): void;
  fail(error: EpErrorResponse): void;
  /** What the cart said once the handshake is done: it started, something changed, or the buyer is done. */
  cart(kind: CartNote, cart: EpCart): void;
}

/** `continueUrl`: the cart's, for errors that hand the buyer over (known before any channel opens). */
export function hostMethods(auth: OpenCartOptions['auth'], continueUrl: string, on: HandshakeSteps): [requests: Methods, notifications: Methods] {
  let stage: 'window' | 'port' | 'done' = 'window';
  const cartNote = (kind: CartNote) => ({
    params: isCartParams,
    run: ({ cart }: { cart: EpCart }) => {
      if (stage === 'done') on.cart(kind, cart); // nothing counts before the handshake finished
    },
  });
  const requests: Methods = {
    [EP.ready]: {
      params: isReadyParams,
      run(p: { delegate: string[]; auth?: { type?: string } }, reply) {
        if (stage === 'done' || p.delegate.length) {
          // Out of order, or delegations we never asked for (ep_cart_delegate is empty).
          const code = stage === 'done' ? 'invalid_state_error' : 'not_supported_error';
          const words = 'The cart handshake failed.';
          reply.after = () => on.fail(epError(code, words, continueUrl));
          return epError(code, words);
        }
        if (stage === 'window') {
          const mc = new MessageChannel();
          reply.transfer.push(mc.port2);
          reply.after = () => {
            // From now on the port only: the window channel is closed for this session.
            stage = 'port';
            on.upgraded(mc);
          };
          return { ucp: epSuccess(), upgrade: { port: mc.port2 } };
        }
        stage = 'done';
        on.ready(p.delegate);
        if (p.auth) {
          if (!auth) {
            reply.after = () => on.fail(epError('not_supported_error', 'No credential is available for this cart.', continueUrl));
            return epError('not_supported_error', 'No credential is available for this cart.');
          }
          return { ucp: epSuccess(), credential: auth };
        }
        return { ucp: epSuccess() };
      },
    },
    [EP.auth]: {
      params: isAuthParams,
      run: () => (stage === 'done' && auth ? { ucp: epSuccess(), credential: auth } : epError('not_supported_error', 'No credential is available for this cart.', undefined, 'recoverable')),
    },
  };
  const notifications: Methods = {
    [EP.start]: cartNote('start'),
    [EP.lineItems]: cartNote('line_items'),
    [EP.buyer]: cartNote('buyer'),
    [EP.messages]: cartNote('messages'),
    [EP.complete]: cartNote('complete'),
    [EP.error]: {
      params: isErrorParams,
      // Accepted at any stage (e.g. version_unsupported before `ready`): tear down, hand off.
      run: (p) => on.fail(errorParams(p)!),
    },
  };
  return [requests, notifications];
}
