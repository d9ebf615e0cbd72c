/** Origin rules shared by both roles (docs/embedded.md "Origin rules"). */

const LOCAL = /^(localhost|127\.0\.0\.1|\[::1\]|.+\.localhost)$/;

/** A parsed origin, or null when `s` is not an http(s) URL/origin. */
function parse(s: string): URL | null {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

/** https everywhere; plain http only for loopback / `*.localhost` development hosts. */
export function isTrustworthy(origin: string): boolean {
  const u = parse(origin);
  return !!u && (u.protocol === 'https:' || LOCAL.test(u.hostname));
}

/**
 * Is `origin` in `patterns`? Patterns are CSP `frame-ancestors` source expressions as the shop
 * configures them: exact origins (`https://agent.example`), a port wildcard (`http://agent.localhost:*`)
 * or `'self'` (= `self`). No host wildcards. Matching is exact on scheme + host (+ port unless `:*`).
 */
export function originAllowed(origin: string, patterns: readonly string[], self?: string): boolean {
  const o = parse(origin);
  if (!o || o.origin !== origin || !isTrustworthy(origin)) return false;
  for (let p of patterns) {
    p = p.trim();
    if (p === "'self'") {
      if (self && self === origin) return true;
      continue;
    }
    const any = p.endsWith(':*');
    const u = parse(any ? p.slice(0, -2) : p);
    if (!u) continue;
    if (any ? u.protocol === o.protocol && u.hostname === o.hostname : u.origin === origin) return true;
  }
  return false;
}

/** The origin of a URL string, or '' if it has none. */
export function originOf(url: string | undefined | null): string {
  const u = url ? parse(url) : null;
  return u ? u.origin : '';
}

const EP_PARAM = /^(ep|ec)_/;

/** `url` without any `ep_*` / `ec_*` query parameter (the hand-off URL, EMBEDDED.md §11). */
export function stripEp(url: string): string {
  const u = new URL(url);
  for (const k of [...u.searchParams.keys()]) if (EP_PARAM.test(k)) u.searchParams.delete(k);
  return u.href;
}

/** `continue_url` + the `ep_*` parameters (stale copies replaced, the URL's own query kept). */
export function embedUrl(continueUrl: string, p: { version: string; auth?: string; delegate?: string[]; colorScheme?: string }): string {
  const u = new URL(stripEp(continueUrl));
  u.searchParams.set('ep_version', p.version);
  u.searchParams.set('ep_cart_delegate', (p.delegate ?? []).join(','));
  if (p.colorScheme) u.searchParams.set('ep_color_scheme', p.colorScheme);
  if (p.auth) u.searchParams.set('ep_auth', p.auth);
  return u.href;
}
