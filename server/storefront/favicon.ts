/** The site icon (public/favicon.svg), answered on every host at /favicon.svg and /favicon.ico. */
import { readFileSync } from 'node:fs';
import type { Context } from 'hono';

const ICON = readFileSync(new URL('../../public/favicon.svg', import.meta.url));

export function faviconHandler(c: Context): Response {
  return c.body(ICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' });
}
