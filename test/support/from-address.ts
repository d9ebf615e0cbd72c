/**
 * Requests from a chosen loopback source address (127.0.0.0/8 is all ours on Linux), so tests can
 * play several clients against one server without trusting a proxy header: the server sees each
 * as its own socket peer.
 */
import { request as httpRequest } from 'node:http';
import type { TestResponse } from './server.ts';

export interface FromOptions {
  port: number;
  /** Source address, e.g. 127.0.2.1; default: the system's choice (127.0.0.1). */
  from?: string;
  host: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function requestFrom<T = any>(o: FromOptions): Promise<TestResponse<T>> {
  const payload = o.body === undefined ? undefined : typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { host: `${o.host}:${o.port}`, ...(o.headers ?? {}) };
  if (payload !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const r = httpRequest({ host: '127.0.0.1', port: o.port, method: o.method, path: o.path, headers, ...(o.from ? { localAddress: o.from, agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: body as T });
      });
    });
    r.on('error', reject);
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/** Form-encoded body and header, for the account service's forms. */
export const formBody = (form: Record<string, string>) => ({
  body: new URLSearchParams(form).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
