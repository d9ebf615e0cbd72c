/** Server-rendered pages of the account service. Every interpolated value goes through `esc`. */
import { APP_LIMITS, PASSWORD_RULES } from '../core/accounts/accounts.ts';

const PASSWORD_MIN = PASSWORD_RULES.minLength;

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
  body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f5f7;color:#1d1d1f}
  main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:12px;box-shadow:0 1px 4px #0002}
  main.wide{max-width:52rem} h2{font-size:1.15rem;margin-top:2rem}
  h1{font-size:1.4rem;margin-top:0} label{display:block;margin:.75rem 0 .25rem;font-weight:600}
  input[type=email],input[type=text],input[type=password],textarea{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #888;border-radius:6px;font:inherit}
  fieldset{border:0;padding:0;margin:.75rem 0 0} legend{font-weight:600} fieldset label{display:inline;font-weight:400}
  table{border-collapse:collapse;width:100%} th,td{text-align:left;vertical-align:top;padding:.4rem .5rem .4rem 0;border-bottom:1px solid #ddd}
  td code{word-break:break-all} form.inline{display:inline} form.inline button{margin-top:0;padding:.3rem .8rem}
  button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #0060df;background:#0060df;color:#fff;cursor:pointer;margin-top:1rem}
  button.secondary{background:#fff;color:#0060df} .error{color:#b00020;font-weight:600} ul{padding-left:1.2rem}
  :focus-visible{outline:3px solid #ffbf47;outline-offset:2px}`;

export function layout(title: string, body: string, o: { wide?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main${o.wide ? ' class="wide"' : ''}>${body}</main></body></html>`;
}

const APP_FLOW_HINT = '<p>The application that sent you here is misconfigured or the link is no longer valid; you were not redirected back to it.</p>';
const ADMIN_HINT = '<p><a href="/admin">Go to the admin sign-in</a></p>';

/** An error of the authorization flow, or with `admin` of the admin pages (which link back to /admin). */
export function errorPage(title: string, message: string, o: { admin?: boolean } = {}): string {
  return layout(title, `<h1>${esc(title)}</h1><p role="alert" class="error">${esc(message)}</p>
${o.admin ? ADMIN_HINT : APP_FLOW_HINT}`);
}

const alert = (error: string | undefined) => (error ? `<p role="alert" class="error">${esc(error)}</p>` : '');

/** The fields every sign-in form has: CSRF token, e-mail and password. */
function credentialFields(csrf: string, username: string | undefined): string {
  return `<input type="hidden" name="csrf" value="${esc(csrf)}">
  <label for="username">E-mail</label>
  <input id="username" name="username" type="email" autocomplete="username" required autofocus value="${esc(username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>`;
}

export function loginPage(o: { requestId: string; csrf: string; appName: string; error?: string; username?: string }): string {
  return layout('Sign in', `<h1>Sign in</h1>
<p><strong>${esc(o.appName)}</strong> wants to access your store. Sign in to continue.</p>
${alert(o.error)}
<form method="post" action="/oauth2/login">
  <input type="hidden" name="request" value="${esc(o.requestId)}">
  ${credentialFields(o.csrf, o.username)}
  <button type="submit">Sign in</button>
</form>`);
}

export function consentPage(o: {
  requestId: string;
  csrf: string;
  appName: string;
  userName: string;
  merchantName: string;
  scopes: Array<{ name: string; description: string }>;
}): string {
  return layout('Authorize access', `<h1>Authorize ${esc(o.appName)}</h1>
<p>Signed in as <strong>${esc(o.userName)}</strong>. <strong>${esc(o.appName)}</strong> asks for the following access to <strong>${esc(o.merchantName)}</strong>:</p>
<ul>${o.scopes.map((s) => `<li>${esc(s.description)} <small>(<code>${esc(s.name)}</code>)</small></li>`).join('')}</ul>
<form method="post" action="/oauth2/consent">
  <input type="hidden" name="csrf" value="${esc(o.csrf)}">
  <input type="hidden" name="request" value="${esc(o.requestId)}">
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`);
}

export function adminLoginPage(o: { csrf: string; error?: string; username?: string }): string {
  return layout('Platform admin: sign in', `<h1>Platform admin</h1>
<p>Sign in to see your store's addresses and to register OAuth apps.</p>
${alert(o.error)}
<form method="post" action="/admin/login">
  ${credentialFields(o.csrf, o.username)}
  <button type="submit">Sign in</button>
</form>`);
}

export interface AdminApp {
  id: string;
  name: string;
  confidential: boolean;
  redirectUris: string[];
  createdAt: Date;
}

/** What the registration form was sent with, shown again next to its errors. */
export interface AppForm {
  name: string;
  redirectUris: string;
  type: 'confidential' | 'public';
}

const appType = (confidential: boolean) => (confidential ? 'confidential' : 'public (PKCE)');

export function adminPage(o: {
  merchantName: string;
  merchantId: string;
  apiBase: string;
  signedInAs: string;
  csrf: string;
  apps: AdminApp[];
  /** Apps listed without a Delete button (the seeded demo apps). */
  keptApps?: readonly string[];
  form?: AppForm;
  errors?: string[];
  /** Shown to a platform administrator only: every shop's owners and the form that creates one. */
  platform?: PlatformSection;
}): string {
  const base = esc(`/admin/${encodeURIComponent(o.merchantId)}`);
  const form = o.form ?? { name: '', redirectUris: '', type: 'confidential' };
  const csrf = `<input type="hidden" name="csrf" value="${esc(o.csrf)}">`;
  const rows = o.apps.map(
    (a) => `<tr><td>${esc(a.name)}</td><td><code>${esc(a.id)}</code></td><td>${appType(a.confidential)}</td>
<td>${a.redirectUris.map((u) => `<code>${esc(u)}</code>`).join('<br>')}</td><td>${esc(a.createdAt.toISOString().slice(0, 16).replace('T', ' '))} UTC</td>
<td>${
      o.keptApps?.includes(a.id)
        ? 'seeded demo app'
        : `<form class="inline" method="post" action="${base}/apps/${esc(encodeURIComponent(a.id))}/delete">${csrf}<button type="submit" class="secondary" aria-label="Delete ${esc(a.name)}">Delete</button></form>`
    }</td></tr>`,
  );
  const radio = (value: AppForm['type'], label: string) =>
    `<input type="radio" id="type-${value}" name="type" value="${value}"${form.type === value ? ' checked' : ''}> <label for="type-${value}">${label}</label>`;
  return layout(`${o.merchantName} admin`, `<h1>${esc(o.merchantName)}</h1>
<div>Signed in as ${esc(o.signedInAs)}. <form class="inline" method="post" action="/admin/logout">${csrf}<button type="submit" class="secondary">Sign out</button></form></div>
<p>Merchant id: <code>${esc(o.merchantId)}</code></p>
<p>Merchant API: <code>${esc(o.apiBase)}/3.0/</code></p>
<h2>Your OAuth apps</h2>
${
  rows.length
    ? `<table><thead><tr><th>Name</th><th>client_id</th><th>Type</th><th>Redirect URIs</th><th>Created</th><th></th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
<p>Deleting an app revokes every token and authorization code issued to it.</p>`
    : '<p>You have not registered any app here yet.</p>'
}
<h2 id="register">Register an app</h2>
${o.errors?.length ? `<div role="alert" class="error"><p>The app was not registered:</p><ul>${o.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>` : ''}
<form method="post" action="${base}/apps">
  ${csrf}
  <label for="name">Name</label>
  <input id="name" name="name" type="text" required maxlength="${APP_LIMITS.name}" value="${esc(form.name)}">
  <label for="redirect_uris">Redirect URIs (one per line)</label>
  <textarea id="redirect_uris" name="redirect_uris" rows="3" required aria-describedby="redirect-help">${esc(form.redirectUris)}</textarea>
  <small id="redirect-help">https, http for loopback hosts only (127.0.0.1, localhost), or a private-use scheme (com.example.app:/callback); no fragment.</small>
  <fieldset><legend>Client type</legend>
  ${radio('confidential', 'Confidential (a server that keeps a client secret)')}<br>
  ${radio('public', 'Public (a browser or native app: no secret, PKCE)')}
  </fieldset>
  <button type="submit">Register</button>
</form>
<p>Apps can also be registered with <code>npm run apps -- create --name NAME --redirect-uri URI [--public]</code> (stop a server on the embedded database first).</p>
${o.platform ? platformSection(base, csrf, o.platform) : ''}`, { wide: true });
}

export interface OwnerForm {
  shop: string;
  email: string;
  name: string;
}

export interface PlatformSection {
  owners: Array<{ username: string; name: string; merchantId: string; platformAdmin: boolean }>;
  form?: OwnerForm;
  errors?: string[];
  /** The owner just created (sign-in name and shop). */
  created?: { email: string; shop: string };
}

/** A platform administrator's part of /admin: every shop's owners, and a form creating one (never echoing a password). */
function platformSection(base: string, csrf: string, p: PlatformSection): string {
  const form = p.form ?? { shop: '', email: '', name: '' };
  const rows = p.owners.map((u) => `<tr><td>${esc(u.username)}</td><td>${esc(u.name)}</td><td><code>${esc(u.merchantId)}</code></td><td>${u.platformAdmin ? 'platform administrator' : 'owner'}</td></tr>`);
  return `<h2 id="owners">Shop owners (platform administrator)</h2>
${p.created ? `<p role="status" class="notice">${esc(p.created.email)} now owns <code>${esc(p.created.shop)}</code> and can sign in here.</p>` : ''}
<table><thead><tr><th>E-mail</th><th>Name</th><th>Shop</th><th>Role</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
<h3>Create an owner</h3>
${p.errors?.length ? `<div role="alert" class="error"><p>The owner was not created:</p><ul>${p.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>` : ''}
<form method="post" action="${base}/owners">
  ${csrf}
  <label for="owner-shop">Shop id</label>
  <input id="owner-shop" name="shop" type="text" required value="${esc(form.shop)}">
  <label for="owner-email">E-mail (signs in with it)</label>
  <input id="owner-email" name="email" type="email" required autocomplete="off" value="${esc(form.email)}">
  <label for="owner-name">Name (optional: the e-mail's local part)</label>
  <input id="owner-name" name="name" type="text" value="${esc(form.name)}">
  <label for="owner-password">Password (at least ${PASSWORD_MIN} characters)</label>
  <input id="owner-password" name="password" type="password" required autocomplete="new-password">
  <button type="submit">Create owner</button>
</form>
<p>The same as <code>ucp-storefront owners create --shop SHOP_ID --email EMAIL --password-stdin</code>.</p>`;
}

/** Answer to a registration: the client secret is on this page and nowhere else, ever. */
export function appCreatedPage(o: { merchantId: string; app: { id: string; name: string; redirectUris: string[] }; secret: string | null }): string {
  return layout('App registered', `<h1>App registered</h1>
<p><strong>${esc(o.app.name)}</strong> can now send merchants through the authorization flow.</p>
<dl>
  <dt>client_id</dt><dd><code id="client_id">${esc(o.app.id)}</code></dd>
  ${
    o.secret
      ? `<dt>client_secret</dt><dd><code id="client_secret">${esc(o.secret)}</code></dd></dl>
<p role="alert" class="error">The client secret is shown once; only its digest is stored. Copy it now: it cannot be shown again.</p>`
      : `<dt>client_secret</dt><dd>none: a public client authenticates with PKCE (S256)</dd></dl>`
  }
<p>Redirect URIs: ${o.app.redirectUris.map((u) => `<code>${esc(u)}</code>`).join(', ')}</p>
<p><a href="/admin/${esc(encodeURIComponent(o.merchantId))}">Back to your apps</a></p>`, { wide: true });
}
