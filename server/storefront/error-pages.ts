/**
 * Shops answer people with pages: a browser that asks a shop for a page that does not exist, or
 * while the shop cannot serve (the database is down), gets an HTML page in the shop's chrome, in the
 * shopper's language, with a title; API clients keep the flat JSON error (`{code, content}`) they
 * get today. The choice is by `Accept` (browsers ask for `text/html` when they navigate) and by path
 * (the protocol, MCP, OAuth and merchant APIs always answer JSON). docs/errors.md "Pages for people".
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { html } from './html.ts';
import { page, pageCsp } from './pages.ts';

export { notFoundPage } from './pages.ts';
import { storeWords } from './words.ts';
import { prefsOf } from './prefs.ts';

/** Paths that belong to APIs: they answer JSON whatever the Accept header says. */
const API_PATH = /^\/(api|mcp|ucp|oauth2|merchants|graphql|\.well-known|livez|readyz|dev)(\/|$)/;

/** A navigation from a browser: GET/HEAD, `text/html` accepted, not an API path. */
export function wantsPage(c: Context<AppEnv>): boolean {
  const m = c.req.method;
  return (m === 'GET' || m === 'HEAD') && /\btext\/html\b/.test(c.req.header('accept') ?? '') && !API_PATH.test(c.req.path);
}

/**
 * A 5xx as a page: 503 "unavailable" (Retry-After kept: waiting helps), else 500 "something went
 * wrong". In the shop's chrome when the shop is known (its settings are cached), else a plain page:
 * with the database down, an unknown host cannot be told apart from a shop. No host.js and no
 * switchers: neither would work while the shop cannot serve.
 */
export function serverErrorPage(c: Context<AppEnv>, status: 500 | 503, retryAfter: string | null) {
  const shop = c.get('shop');
  const lang = shop ? prefsOf(c, shop).language : 'en';
  const say = storeWords(lang);
  if (retryAfter) c.header('Retry-After', retryAfter);
  const title = say(status === 503 ? 'down_title' : 'err_title');
  const body = html`<h1>${title}</h1><p>${say(status === 503 ? 'down_lead' : 'err_lead')}</p><p><a href="${c.req.path}">${say('retry')}</a></p>`;
  if (shop) return page(c, { ...shop, protocolEnabled: false }, title, body, { status });
  const doc = html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/storefront.css">
</head>
<body>
<main id="main">
${body}
</main>
</body>
</html>
`;
  c.header('Content-Security-Policy', pageCsp());
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  return c.html(doc.html, status);
}
