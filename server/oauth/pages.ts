/** Server-rendered pages of the account service. Every interpolated value goes through `esc`. */

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
  h1{font-size:1.4rem;margin-top:0} label{display:block;margin:.75rem 0 .25rem;font-weight:600}
  input[type=email],input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #888;border-radius:6px;font:inherit}
  button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #0060df;background:#0060df;color:#fff;cursor:pointer;margin-top:1rem}
  button.secondary{background:#fff;color:#0060df} .error{color:#b00020;font-weight:600} ul{padding-left:1.2rem}
  :focus-visible{outline:3px solid #ffbf47;outline-offset:2px}`;

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${esc(title)}</h1><p role="alert" class="error">${esc(message)}</p>
<p>The application that sent you here is misconfigured or the link is no longer valid; you were not redirected back to it.</p>`);
}

export function loginPage(o: { requestId: string; csrf: string; appName: string; error?: string; username?: string }): string {
  return layout('Sign in', `<h1>Sign in</h1>
<p><strong>${esc(o.appName)}</strong> wants to access your store. Sign in to continue.</p>
${o.error ? `<p role="alert" class="error">${esc(o.error)}</p>` : ''}
<form method="post" action="/oauth2/login">
  <input type="hidden" name="csrf" value="${esc(o.csrf)}">
  <input type="hidden" name="request" value="${esc(o.requestId)}">
  <label for="username">E-mail</label>
  <input id="username" name="username" type="email" autocomplete="username" required autofocus value="${esc(o.username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
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

export function adminPage(o: { merchantName: string; merchantId: string; apiBase: string; signedInAs: string }): string {
  return layout(`${o.merchantName} admin`, `<h1>${esc(o.merchantName)}</h1>
<p>Signed in as ${esc(o.signedInAs)}.</p>
<p>Merchant id: <code>${esc(o.merchantId)}</code></p>
<p>Merchant API: <code>${esc(o.apiBase)}/3.0/</code></p>
<p>Apps are registered with <code>npm run apps -- create --name NAME --redirect-uri URI [--public]</code>.</p>`);
}
