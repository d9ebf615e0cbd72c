/**
 * The account service's HTTP pieces shared by its pages (authorization flow, admin, front page):
 * the HTML page answer with its security headers, form reading, and the per-merchant addresses.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { textProblem } from '../../src/wire/input.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';

/** The per-merchant addresses (documented in docs/oauth.md). */
export function merchantEndpoints(base: string, merchantId: string) {
  const id = encodeURIComponent(merchantId);
  return { admin: `${base}/admin/${id}`, api: `${base}/merchants/${id}` };
}

/** An HTML page of the account service: never cached, never framed, forms post only to http(s). */
export function page(c: Context<AppEnv>, html: string, status: 200 | 400 | 401 | 403 | 404 | 422 | 429 = 200) {
  c.header('Cache-Control', 'no-store');
  c.header('X-Frame-Options', 'DENY');
  c.header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'");
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(html, status);
}

/** Form body as a map; a parameter sent twice is an error (RFC 6749 §3.1 / §3.2). */
export async function readForm(c: Context<AppEnv>): Promise<{ form: Record<string, string>; duplicate?: string }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) return { form: {} };
  const params = new URLSearchParams(await c.req.text());
  // No prototype: the keys are the client's (`constructor` would look sent twice, `__proto__` would vanish).
  const form: Record<string, string> = Object.create(null);
  let duplicate: string | undefined;
  for (const [k, v] of params) {
    if (Object.hasOwn(form, k)) duplicate ??= k;
    const problem = textProblem(k) ?? textProblem(v);
    if (problem) throw new FormTextError(k, problem);
    form[k] = v;
  }
  return { form, duplicate };
}

/** A form field the store cannot accept (NUL); rendered by the platform as a 400 naming the field. */
export class FormTextError extends DomainError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super('malformed', ERROR_CODES.invalidRequest, `The form field ${JSON.stringify(field.replace(/\0/g, '\\u0000'))} is not acceptable: ${problem}`);
  }
}
