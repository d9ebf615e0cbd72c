/**
 * The MCP Apps view carries its own CSP (issue 47 point 5): the `ui://` document served by
 * `resources/read` (dist/apps/shop.html, vite.apps.config.ts) starts with a
 * `<meta http-equiv="Content-Security-Policy">` that admits its one inline script and its one inline
 * style by hash, nothing else that runs, no connections, no eval. That it is in force in a browser,
 * under a host, is e2e/mcp-apps.spec.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appHtml } from '../server/mcp/apps.ts';

const html = appHtml()!;
const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values] as const));

describe('the view document\'s own CSP', () => {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  const csp = directives(meta?.[1] ?? '');

  it('is a meta element in the head, before anything it governs', () => {
    expect(meta).not.toBeNull();
    const at = html.indexOf(meta![0]);
    expect(at).toBeLessThan(html.indexOf('<style'));
    expect(at).toBeLessThan(html.indexOf('<script'));
    expect(html.slice(0, at)).toBe('<!doctype html><html lang="en"><head><meta charset="utf-8">');
  });

  it('no connections, no frames, plugins, base or form targets; nothing by default', () => {
    expect(csp.get('connect-src')).toEqual(["'none'"]);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    for (const d of ['frame-src', 'object-src', 'base-uri', 'form-action']) expect(csp.get(d), d).toEqual(["'none'"]);
  });

  it('admits its one inline script and its one inline style by hash, and nothing else that runs or styles', () => {
    const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(csp.get('script-src')).toEqual([hash(scripts[0])]);
    expect(csp.get('style-src')).toEqual([hash(styles[0])]);
    expect(meta![1]).not.toMatch(/unsafe-(eval|inline|hashes)|wasm-unsafe-eval|strict-dynamic|\*/);
  });

  it('images from the shops\' http(s) origins (the host\'s resourceDomains narrow them per shop), fonts over https', () => {
    expect(csp.get('img-src')).toEqual(['https:', 'http:', 'data:']);
    expect(csp.get('font-src')).toEqual(['https:', 'data:']);
  });
});
