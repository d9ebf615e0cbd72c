/**
 * The MCP Apps view's budget and hygiene, on the built document (dist/apps/shop.html, built by the
 * test setup when missing or stale): hosts fetch and vet it for every conversation, and a chat
 * column is often a phone's. The official SDK's bundled app alone is ~146 KB gzip; ours is a small
 * bridge over the views host.js already has (docs/mcp-apps.md).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

export const APP_BUDGET_BYTES = 40 * 1024;
const html = readFileSync(new URL('../dist/apps/shop.html', import.meta.url));

describe('dist/apps/shop.html', () => {
  it(`is at most ${APP_BUDGET_BYTES} bytes gzip`, () => {
    const size = gzipSync(html, { level: 9 }).length;
    expect(size, `shop.html is ${size} bytes gzip (budget ${APP_BUDGET_BYTES})`).toBeLessThanOrEqual(APP_BUDGET_BYTES);
  });

  it('holds its whole script inline, with no eval and no fetch of its own', () => {
    const text = html.toString('utf8');
    expect(text.match(/<script\b/g)).toHaveLength(1);
    expect(text).not.toMatch(/<script[^>]*\bsrc=/);
    expect(text).not.toMatch(/\beval\(|new Function\(/);
    // The view reaches the shop only through the host's tools/call (CSP connect-src 'none').
    expect(text).not.toMatch(/\bfetch\(|XMLHttpRequest|WebSocket\(/);
  });
});
