/**
 * Issue 39 point 3: the request inspector never shows a secret, wherever an exchange stores text.
 * A table of shapes, each a place (request or response body, a header, the agent field, the
 * idempotency key, a note) and a secret that must not come back out of the store; run against the
 * store itself (what the routes and the CLI read), plus the two routes end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BODY_MAX_CHARS, exchangesOf, logFor, nextExchangeId, type Recorded } from '../server/http/inspector/store.ts';
import { isSecretKey, redactText } from '../server/http/inspector/redact.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const S = 'Zq9sEcReT7vAlUe'; // the secret every shape hides; never a word the server says itself
const JWT = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ${S}In0.c2lnbmF0dXJl${S}`;

type Place = 'body' | 'answer' | 'header' | 'agent' | 'key' | 'note';
const json = (v: unknown) => JSON.stringify(v);
const pad = (n: number) => 'x'.repeat(n);

/** [name, place, text (or [header, value]), what must not be shown]. */
const SHAPES: Array<[string, Place, string | [string, string], string?]> = [
  // secret-named keys, any value type
  ...['token', 'access_token', 'refresh_token', 'id_token', 'client_secret', 'secret', 'password', 'passwd', 'passphrase', 'private_key', 'privateKey', 'api_key', 'apiKey', 'x-api-key', 'jwt', 'session', 'session_id', 'sessionId', 'otp', 'hmac', 'signature', 'authorization', 'Authorization', 'cookie', 'credentials', 'channel_key', 'ep_auth', 'ec_auth', 'auth', 'pin', 'cvv', 'card_number', 'webhook_secret', 'signingKey', 'AWS_SECRET_ACCESS_KEY'].map(
    (k): [string, Place, string] => [`key ${k}: string`, 'body', json({ a: 1, nested: { [k]: S } })],
  ),
  ['key token: number', 'body', `{"token": 7${S.length}123456789}`, `7${S.length}123456789`],
  ['key password: number in array', 'body', json({ list: [{ password: 918273645 }] }), '918273645'],
  ['key secret: object', 'body', json({ secret: { value: S, nested: [S] } })],
  ['key secret: array', 'body', json({ client_secret: [S, { x: S }] })],
  ['key token: true/false', 'body', json({ token: { ok: true, v: S } })],
  ['escaped key client_\\u0073ecret', 'body', `{"client_\\u0073ecret":"${S}"}`],
  ['escaped key \\u0074oken', 'body', `{"\\u0074oken":{"inner":"${S}"}}`],
  ['escaped key p\\u0061ssword', 'body', `{"p\\u0061ssword":"${S}"}`],
  ['escaped value ucp\\u005fsk_', 'body', `{"note":"ucp\\u005fsk_${S}${S}"}`, `${S}${S}`],
  ['secret across the 8 KiB cut (string)', 'body', `{"pad":"${pad(BODY_MAX_CHARS - 30)}","token":"${S}${pad(200)}"}`],
  ['secret across the 8 KiB cut (object)', 'body', `{"pad":"${pad(BODY_MAX_CHARS - 40)}","secret":{"a":"${pad(100)}","b":"${S}"}}`],
  ['secret across the 8 KiB cut (array)', 'body', `{"pad":"${pad(BODY_MAX_CHARS - 12)}","password":["${S}"]}`],
  ['secret deep in a huge body', 'body', `{"pad":"${pad(40_000)}","token":"${S}"}`],
  ['truncated JSON, secret open at the end', 'body', `{"a":[1,2],"secret":{"x":"${S}`],
  ['secret key in an array of objects', 'body', json([{ ok: 1 }, { otp: S }])],
  ['duplicate key', 'body', `{"token":"a","token":"${S}"}`],
  // value shapes in any string
  ['ucp_sk_ in a string', 'body', json({ note: `use ucp_sk_${S}` })],
  ['sft_ token in a string', 'body', json({ note: `sft_1a2b.${S}` })],
  ['Bearer in a string', 'body', json({ how: `Bearer ${S}` })],
  ['Basic in a string', 'body', json({ how: `Basic ${S}` })],
  ['JWT in a string', 'body', json({ x: JWT }), JWT.split('.')[1]],
  ['?token= in a URL', 'body', json({ url: `https://a.example/p?token=${S}` })],
  ['&access_token= in a URL', 'body', json({ url: `https://a.example/p?x=1&access_token=${S}` })],
  ['?client_secret= in a URL', 'body', json({ url: `https://a.example/?client_secret=${S}` })],
  ['?api_key= in a URL', 'body', json({ url: `https://a.example/?api_key=${S}` })],
  ['?key= in a URL', 'body', json({ url: `https://maps.example/?key=${S}` })],
  ['?sig= in a URL', 'body', json({ url: `https://a.example/?sig=${S}` })],
  ['?code= in a URL', 'body', json({ url: `https://a.example/cb?code=${S}&state=1` })],
  ['#access_token= in a fragment', 'body', json({ url: `https://a.example/cb#access_token=${S}` })],
  ['?X-Amz-Signature=', 'body', json({ url: `https://s3.example/o?X-Amz-Signature=${S}` })],
  ['?X-Amz-Security-Token=', 'body', json({ url: `https://s3.example/o?X-Amz-Security-Token=${S}` })],
  ['userinfo user:pass@', 'body', json({ url: `https://user:${S}@a.example/` })],
  ['userinfo token@', 'body', json({ url: `https://${S}@a.example/` })],
  ['postgres URL password', 'body', json({ dsn: `postgres://app:${S}@db.example:5432/x` })],
  ['Stripe-like key', 'body', json({ k: `sk_live_${S}` })],
  ['GitHub token', 'body', json({ k: `ghp_${S}${S}` })],
  ['AWS access key id', 'body', json({ k: 'AKIAIOSFODNN7EXAMPLE' }), 'AKIAIOSFODNN7EXAMPLE'],
  ['form body password=', 'body', `user=a&password=${S}`],
  ['form body token= first', 'body', `token=${S}&x=1`],
  ['plain text Bearer', 'body', `Authorization: Bearer ${S}`],
  // answers too
  ['answer: key token', 'answer', json({ token: S })],
  ['answer: continue_url ep_auth', 'answer', json({ continue_url: `https://demo.localhost/cart/1?ep_auth=${S}` })],
  ['answer: sft_ token', 'answer', json({ storefront_token: `sft_1a.${S}` })],
  // headers
  ...['Authorization', 'Proxy-Authorization', 'Cookie', 'Set-Cookie', 'Signature', 'Signature-Input', 'X-Api-Key', 'X-Auth-Token', 'X-Access-Token', 'Api-Key', 'X-Client-Secret', 'X-Refresh-Token', 'X-Amz-Security-Token', 'X-CSRF-Token', 'X-Session-Id', 'DPoP', 'X-Hub-Signature-256', 'X-Shopify-Hmac-Sha256'].map(
    (h): [string, Place, [string, string]] => [`header ${h}`, 'header', [h, `Bearer ${S}`]],
  ),
  ['header Referer ?token=', 'header', ['Referer', `https://a.example/p?token=${S}`]],
  ['header Referer userinfo', 'header', ['Referer', `https://u:${S}@a.example/p`]],
  ['header UCP-Agent ucp_sk_', 'header', ['UCP-Agent', `profile="https://a.example/?k=ucp_sk_${S}"`]],
  ['header UCP-Agent ?token=', 'header', ['UCP-Agent', `profile="https://a.example/p?token=${S}"`]],
  ['header Location with ?code=', 'header', ['Location', `https://a.example/cb?code=${S}`]],
  ['header X-Custom carrying a JWT', 'header', ['X-Custom', JWT], JWT.split('.')[1]],
  // the agent field
  ['agent: ucp_sk_', 'agent', `ucp_sk_${S}`],
  ['agent: sft_', 'agent', `sft_1a.${S}`],
  ['agent: ?token=', 'agent', `https://agent.example/profile?token=${S}`],
  ['agent: userinfo', 'agent', `https://me:${S}@agent.example/profile`],
  ['agent: Bearer', 'agent', `Bearer ${S}`],
  // the key and the notes
  ['idempotency key holding a ucp_sk_', 'key', `ucp_sk_${S}`],
  ['note repeating a profile ?token=', 'note', `The agent profile was refused: https://agent.example/p?token=${S} is not reachable`],
  ['note repeating a JWT', 'note', `refused ${JWT}`, JWT.split('.')[1]],
];

function recorded(place: Place, text: string | [string, string]): Recorded {
  const t = typeof text === 'string' ? text : '';
  return {
    id: nextExchangeId(),
    at: Date.now(),
    transport: 'rest',
    method: 'POST',
    path: '/api/ucp/carts',
    operation: 'create_cart',
    status: 200,
    durationMs: 1,
    agent: place === 'agent' ? t : null,
    idempotencyKey: place === 'key' ? t : null,
    requestHeaders: place === 'header' ? ['Host', 'demo.localhost', ...(text as [string, string])] : ['Host', 'demo.localhost'],
    responseHeaders: place === 'header' ? [text as [string, string]] : [],
    requestBody: place === 'body' ? t : null,
    responseBody: place === 'answer' ? t : null,
    notes: place === 'note' ? [{ code: 'ucp_agent_unsupported', message: t }] : [],
  };
}

describe('the inspector store shows no secret (issue 39 point 3)', () => {
  it(`${SHAPES.length} shapes, each in its place`, () => {
    expect(SHAPES.length).toBeGreaterThanOrEqual(79);
    const leaks: string[] = [];
    for (const [name, place, text, secret = S] of SHAPES) {
      const shop = `shop_redact_${place}`;
      logFor(shop, `${place}.test`).add(recorded(place, text));
      const shown = JSON.stringify(exchangesOf(shop, { limit: 1 })[0]);
      if (shown.includes(secret)) leaks.push(`${name}: ${shown.slice(0, 300)}`);
      const beyondCut = typeof text === 'string' && text.length > BODY_MAX_CHARS && !/cut \((string|object)\)/.test(name);
      if (!beyondCut && !shown.includes('[redacted]')) leaks.push(`${name}: no [redacted] marker`);
    }
    expect(leaks).toEqual([]);
  });

  it('a JSON body stays JSON, with what is not secret kept as sent', () => {
    logFor('shop_redact_keep', 'keep.test').add(recorded('body', json({ query: 'tee', idempotency_key: 'k-1', code: 'not_found', footprint: 'ok', author: 'Sam', context: { token: S, tokens_used: 3 } })));
    const body = JSON.parse(exchangesOf('shop_redact_keep', { limit: 1 })[0].request.body!);
    expect(body).toEqual({ query: 'tee', idempotency_key: 'k-1', code: 'not_found', footprint: 'ok', author: 'Sam', context: { token: '[redacted]', tokens_used: '[redacted]' } });
  });

  it('secret names by words, not by letters anywhere', () => {
    for (const k of ['footprint', 'author', 'shipping', 'description', 'passenger', 'idempotency_key', 'code', 'keyword']) expect([k, isSecretKey(k)]).toEqual([k, false]);
    for (const k of ['x-auth-token', 'clientSecret', 'PRIVATE_KEY', 'sessionId', 'hmac_sha256', 'accesstoken']) expect([k, isSecretKey(k)]).toEqual([k, true]);
    expect(redactText('see https://a.example/?q=tee&page=2')).toBe('see https://a.example/?q=tee&page=2');
  });

  it('an auth scheme word in prose is not a credential: the note text and product names stay', () => {
    for (const t of ['Without it the shop cannot tell agents apart or negotiate capabilities.', 'A Basic Tee in navy', 'token limits apply', 'Bearer bonds', 'Digest of the week']) expect(redactText(t)).toBe(t);
    for (const t of [`negotiate ${S}`, 'Bearer abcdefgh1', 'basic dXNlcjpwYXNz', 'Token tok_live_abc']) expect(redactText(t)).toMatch(/^\w+ \[redacted\]$/);
  });
});

describe('end to end: REST and MCP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('the agent field, escaped keys and secret headers never come back from /dev/shops/…/requests', async () => {
    const key = `ucp_sk_${S}`;
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', `{"query":"tee","context":{"client_\\u0073ecret":{"v":"${S}"}}}`, { 'ucp-agent': `profile="https://agent.example/p?token=${S}"`, 'x-auth-token': S, 'api-key': S, referer: `https://u:${S}@a.example/?token=${S}` });
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'mug' }, { 'ucp-agent': key });
    await s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile: `https://agent.example/p?token=${S}` }, 'idempotency-key': randomUUID() }, cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } } } });
    const r = await s.req('localhost', 'GET', '/dev/shops/shop_demo/requests?limit=3');
    expect(r.body.exchanges).toHaveLength(3);
    expect(r.text).not.toContain(S);
    expect(r.text).toContain('[redacted]');
  });
});
