/**
 * Every HTML page this server sends carries `X-Content-Type-Options: nosniff` and a
 * Content-Security-Policy (docs/security.md). Pages built in code set their own policy (account
 * service: server/oauth/web.ts `page`; storefront: server/storefront/pages.ts `pageCsp`); the
 * middleware here is the net under a whole area, so an HTML response that forgot (an error page, a
 * 413) still leaves with both, and static HTML files (the demo agent) get a nonce for their scripts.
 */
import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** The strictest useful policy: nothing loads, inline styles only, forms post to this origin. */
export const LOCKED_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const isHtml = (res: Response) => /^text\/html\b/i.test(res.headers.get('content-type') ?? '');

/** Adds nosniff, and `csp` where the response has no policy of its own, to HTML responses of the area it guards. */
export function htmlSecurityHeaders(csp = LOCKED_PAGE_CSP): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!isHtml(c.res)) return;
    c.header('X-Content-Type-Options', 'nosniff');
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', csp);
  };
}

/**
 * A static HTML file, answered with a fresh nonce on each of its `<script>` tags and a policy built
 * for that nonce (scripts it adds at run time, such as an import map, reuse the nonce). Other
 * responses pass through untouched.
 */
export async function withStaticHtmlPolicy(res: Response, policy: (nonce: string) => string): Promise<Response> {
  if (!isHtml(res)) return res;
  const nonce = randomBytes(16).toString('base64');
  const html = (await res.text()).replace(/<script\b/gi, `<script nonce="${nonce}"`);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.set('Content-Security-Policy', policy(nonce));
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Cache-Control', 'no-store'); // the nonce is per response
  return new Response(html, { status: res.status, headers });
}
