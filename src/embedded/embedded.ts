/**
 * Embedded role (the spec's "Embedded Cart"): the storefront cart page at `continue_url`, loaded by a
 * host with `ep_version=…`. Picks the channel, runs the `ep.cart.ready` handshake (with the
 * MessagePort upgrade), then sends the cart notifications. See docs/embedded.md.
 *
 * Strict origin policy: the parent's origin comes from `location.ancestorOrigins[0]` (Chromium,
 * WebKit) or `document.referrer` (Firefox); if neither reveals it we do NOT fall back to posting the
 * first `ready` to "*": the page stays a plain page. The origin must also be in the shop's allowlist
 * (the same list as its CSP `frame-ancestors`), and is then the only target and accepted source.
 */
import type { ErrorResponse } from '../wire/common.ts';
import { EP, EP_VERSION, epError } from '../wire/ep.ts';
import { isAuthSuccess, isReadySuccess, parseResult } from './guards.ts';
import { createPeer, type Peer, type Send } from './rpc.ts';
import { originAllowed, originOf, stripEp } from './origins.ts';

export type ColorScheme = 'light' | 'dark';

export interface EmbeddedParams {
  version: string;
  auth?: string;
  delegate: string[];
  colorScheme?: ColorScheme;
}

/** Any cart object as returned by the server (sent whole, EMBEDDED.md §7). */
export type CartLike = { id: string };

export interface EmbeddedSession {
  /** `ep_auth` from the URL, else the handshake's `credential`; memory only. */
  credential?: string;
  colorScheme?: ColorScheme;
  /** How the host is reached: a framing/opening window (upgraded to a MessagePort) or native globals. */
  channel: 'port' | 'window' | 'native';
  start(cart: CartLike): void;
  lineItemsChanged(cart: CartLike): void;
  messagesChanged(cart: CartLike): void;
  buyerChanged(cart: CartLike): void;
  /** The checkout button: tell the host, do not navigate (the host hands off, §11). */
  complete(cart: CartLike): void;
  /** Session error (`params.error`); the session is dead afterwards. */
  error(errorResponse: ErrorResponse): void;
  /** `ep.cart.auth`: a fresh credential, or undefined if the host refused. */
  refreshCredential(type: string): Promise<string | undefined>;
}

const SCHEMES = ['light', 'dark'];

/** Embedded mode iff `ep_version` (or `ec_version`) is in the query. */
export function detectEmbedded(loc: Pick<Location, 'search'>): EmbeddedParams | null {
  const q = new URLSearchParams(loc.search);
  const version = q.get('ep_version') ?? q.get('ec_version');
  if (!version) return null;
  const delegate = (q.get('ep_cart_delegate') ?? q.get('ec_delegate') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const cs = q.get('ep_color_scheme') ?? q.get('ec_color_scheme');
  const auth = q.get('ep_auth') ?? q.get('ec_auth');
  return {
    version,
    delegate,
    ...(auth ? { auth } : {}),
    ...(cs && SCHEMES.includes(cs) ? { colorScheme: cs as ColorScheme } : {}),
  };
}

/** `ep_color_scheme` wins over `prefers-color-scheme` at once (views read `data-color-scheme`). */
export function applyColorScheme(doc: Document, cs?: ColorScheme) {
  if (!cs) return;
  const root = doc.documentElement;
  root.style.colorScheme = cs;
  root.dataset.colorScheme = cs;
}

export interface StartOptions {
  /** The shop's allowed host origins (its CSP frame-ancestors list; `:*` port wildcard and `'self'` allowed). */
  allowedOrigins: string[];
  /** Ask the host for a credential of this type in `ready` when the URL carried no `ep_auth`. */
  authType?: string;
  /** Handshake answer timeout (ms). */
  timeout?: number;
}

interface Channel {
  kind: 'window' | 'native';
  send: Send;
  listen(peer: Peer): () => void;
}

type NativeSink = { postMessage(s: string): void };

function nativeChannel(w: Window): Channel | null {
  const g = w as unknown as {
    EmbeddedCartProtocolConsumer?: NativeSink;
    webkit?: { messageHandlers?: { EmbeddedCartProtocolConsumer?: NativeSink } };
    EmbeddedCartProtocol?: NativeSink;
  };
  const sink = g.EmbeddedCartProtocolConsumer ?? g.webkit?.messageHandlers?.EmbeddedCartProtocolConsumer;
  if (!sink || typeof sink.postMessage !== 'function') return null;
  return {
    kind: 'native',
    send: (m) => sink.postMessage(JSON.stringify(m)),
    listen(peer) {
      // Defined before the first `ready` is sent (EMBEDDED.md §5).
      g.EmbeddedCartProtocol = {
        postMessage(s: string) {
          try {
            peer.receive(JSON.parse(s));
          } catch {
            /* not JSON: ignore */
          }
        },
      };
      return () => delete g.EmbeddedCartProtocol;
    },
  };
}

/** The framing (or opening, for the popup fallback) window and its origin, if allowed. */
function webChannel(w: Window, allowed: string[]): Channel | null {
  const framed = w.parent !== w;
  const target: Window | null = framed ? w.parent : w.opener;
  if (!target) return null;
  const origin = (framed && w.location.ancestorOrigins?.[0]) || originOf(w.document.referrer);
  if (!origin || !originAllowed(origin, allowed, w.location.origin)) return null;
  return {
    kind: 'window',
    send: (m, transfer = []) => target.postMessage(m, { targetOrigin: origin, transfer }),
    listen(peer) {
      const on = (e: MessageEvent) => {
        if (e.source === target && e.origin === origin) peer.receive(e.data);
      };
      w.addEventListener('message', on);
      return () => w.removeEventListener('message', on);
    },
  };
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as object;

/**
 * Run the handshake. Resolves null when the page is not driven by an allowed host (not framed, an
 * unknown or unrevealed parent origin, a handshake error, no answer): render a plain page then.
 */
export async function startEmbedded(params: EmbeddedParams, opts: StartOptions, w: Window = window): Promise<EmbeddedSession | null> {
  applyColorScheme(w.document, params.colorScheme);
  const ch = nativeChannel(w) ?? webChannel(w, opts.allowedOrigins);
  if (!ch) return null;

  const peer = createPeer(ch.send);
  let unlisten = ch.listen(peer);
  let port: MessagePort | undefined;
  const stop = () => {
    peer.close();
    unlisten();
    port?.close();
  };

  if (params.version !== EP_VERSION) {
    peer.notify(EP.error, { error: epError('version_unsupported', `Embedded protocol version ${params.version} is not supported; use ${EP_VERSION}.`, stripEp(w.location.href)) });
    stop();
    return null;
  }

  const authType = params.auth ? undefined : opts.authType;
  // No cart delegations exist at this version: we accept none of what the host asked for.
  const ready = async () => {
    const r = parseResult(isReadySuccess, await peer.request(EP.ready, { delegate: [], ...(authType ? { auth: { type: authType } } : {}) }, opts.timeout));
    if (!r.ok) throw new Error('handshake refused');
    return r.data;
  };

  let credential = params.auth;
  try {
    let res = await ready();
    const p = res.upgrade?.port;
    if (p) {
      // Switch to the port; everything else in this answer is ignored; `ready` again over it.
      unlisten();
      unlisten = () => {};
      port = p;
      peer.send = (m, transfer = []) => p.postMessage(m, transfer);
      p.onmessage = (e) => peer.receive(e.data);
      res = await ready();
      if (res.upgrade) throw new Error('second upgrade');
    }
    credential ??= res.credential;
  } catch {
    // Handshake error or no answer: go silent (EMBEDDED.md §6.4) and be a plain page.
    stop();
    return null;
  }

  let dead = false;
  const note = (method: string) => (cart: CartLike) => {
    if (!dead) peer.notify(method, { cart: plain(cart) });
  };
  const session: EmbeddedSession = {
    credential,
    colorScheme: params.colorScheme,
    channel: port ? 'port' : ch.kind,
    start: note(EP.start),
    lineItemsChanged: note(EP.lineItems),
    messagesChanged: note(EP.messages),
    buyerChanged: note(EP.buyer),
    complete: note(EP.complete),
    error(err) {
      if (dead) return;
      peer.notify(EP.error, { error: plain({ ...err, ucp: { version: EP_VERSION, status: 'error' } }) });
      dead = true;
      stop();
    },
    async refreshCredential(type) {
      if (dead) return undefined;
      try {
        const r = parseResult(isAuthSuccess, await peer.request(EP.auth, { type }, opts.timeout));
        if (r.ok) return (session.credential = r.data.credential);
      } catch {
        /* no answer */
      }
      return undefined;
    },
  };
  return session;
}
