/**
 * Which page a browser says sent a request (server/http/origin.ts `provenance`): the one rule the
 * development routes, the checkout handoff page and the account service's forms judge by.
 */
import { describe, expect, it } from 'vitest';
import { provenance } from '../server/http/origin.ts';

const req = (headers: Record<string, string>) => ({ header: (name: string) => headers[name] });
const OWN = ['http://demo.localhost:8080'];

describe('provenance', () => {
  it('a page of our own origin is same, whatever the scheme a TLS-ending proxy left us', () => {
    expect(provenance(req({ origin: 'http://demo.localhost:8080', 'sec-fetch-site': 'same-origin' }), OWN)).toBe('same');
    expect(provenance(req({ origin: 'https://demo.localhost:8080' }), OWN)).toBe('same');
    expect(provenance(req({ origin: 'https://accounts.example' }), [...OWN, 'https://accounts.example'])).toBe('same');
  });

  it('another origin is foreign: by Origin, by Sec-Fetch-Site, or by a scheme that is not http(s)', () => {
    expect(provenance(req({ origin: 'https://evil.example' }), OWN)).toBe('foreign');
    expect(provenance(req({ origin: 'http://demo.localhost:9090' }), OWN)).toBe('foreign');
    expect(provenance(req({ 'sec-fetch-site': 'cross-site' }), OWN)).toBe('foreign');
    expect(provenance(req({ 'sec-fetch-site': 'same-site', origin: 'http://demo.localhost:8080' }), OWN)).toBe('foreign');
    expect(provenance(req({ origin: 'file:///tmp/x.html' }), OWN)).toBe('foreign');
  });

  it('Origin: null (or anything naming no origin) is opaque', () => {
    expect(provenance(req({ origin: 'null' }), OWN)).toBe('opaque');
    expect(provenance(req({ origin: 'not a url' }), OWN)).toBe('opaque');
  });

  it('nothing said is unnamed (curl, scripts; a navigation typed in says Sec-Fetch-Site: none)', () => {
    expect(provenance(req({}), OWN)).toBe('unnamed');
    expect(provenance(req({ 'sec-fetch-site': 'none' }), OWN)).toBe('unnamed');
  });

  it('Referer stands in for Origin only when asked', () => {
    expect(provenance(req({ referer: 'https://evil.example/page' }), OWN)).toBe('unnamed');
    expect(provenance(req({ referer: 'https://evil.example/page' }), OWN, { referer: true })).toBe('foreign');
    expect(provenance(req({ referer: 'http://demo.localhost:8080/products/x' }), OWN, { referer: true })).toBe('same');
  });
});
