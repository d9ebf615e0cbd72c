/**
 * The platform's front page (`http://localhost:8080/`): where a newcomer lands from the README.
 * Links to what lives on this address (admin, OAuth metadata, each merchant API and its OpenAPI
 * document) and to each shop's UCP addresses (discovery, OpenAPI, MCP), from the database.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { allowInsecureProfiles } from '../http/authenticate.ts';
import { demoAgentProfileUrl } from '../core/shops/ucp-profile.ts';
import { layout } from './pages.ts';
import { page } from './web.ts';
import { issuerOf } from './bearer.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const link = (href: string, text = href) => `<a href="${esc(href)}">${esc(text)}</a>`;

export async function platformHome(c: Context<AppEnv>): Promise<Response> {
  // The platform's public address: AUTH_URL when set (always in production), never a stranger's Host.
  const origin = issuerOf(c);
  const { protocol, port } = new URL(c.get('origin'));
  const shops = await c.get('db').selectFrom('shops').select(['id', 'domain', 'name', 'protocol_enabled']).orderBy('domain').execute();
  // Shops are served on their own domains: https in production (core/orders/webhook-endpoints.ts shopPublicOrigin), like this request in development.
  const production = c.get('config').mode === 'production';
  const shopOrigin = (domain: string) => (production ? `https://${domain}` : `${protocol}//${domain}${port ? `:${port}` : ''}`);
  const rows = shops.map((s) => {
    const o = shopOrigin(s.domain);
    const ucp = s.protocol_enabled
      ? `${link(`${o}/.well-known/ucp`, 'discovery')} · ${link(`${o}/api/ucp/openapi.json`, 'UCP OpenAPI')}`
      : 'protocol off';
    return `<tr><td>${link(`${o}/`, s.domain)}</td><td>${ucp}</td><td>${link(`${origin}/merchants/${encodeURIComponent(s.id)}/3.0/openapi.json`, `merchant API (${s.id})`)}</td></tr>`;
  });
  const dev = allowInsecureProfiles(c.get('config'))
    ? `<p>While developing, agents name the demo agent's profile ${link(demoAgentProfileUrl(origin))} in <code>UCP-Agent</code> or MCP <code>meta</code>.</p>`
    : '';
  return page(
    c,
    layout('UCP storefront platform', `<h1>UCP storefront platform</h1>
<p>This address serves the account service and the merchant API; each shop is served on its own domain.</p>
<ul>
<li>${link('/admin', 'Admin')}: sign in, see your merchant API address, register OAuth apps</li>
<li>${link('/.well-known/oauth-authorization-server', 'OAuth 2.0 authorization server metadata')} (RFC 8414)</li>
<li>Merchant API: <code style="word-break:break-all">${esc(origin)}/merchants/{merchant_id}/3.0/</code>, with an OpenAPI 3.1 document per merchant below</li>
</ul>
${dev}
<h2>Shops</h2>
${rows.length ? `<table><thead><tr><th>Shop</th><th>UCP</th><th>Merchant API</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>` : '<p>No shops yet: load one with <code>npm run seed -- FILE</code>.</p>'}`, { wide: true }),
  );
}
