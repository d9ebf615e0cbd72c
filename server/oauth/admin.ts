/**
 * The platform admin pages, on the platform address. `/admin` signs a user in (the same account check
 * and failure budgets as the authorization flow's login page, `signIn`) and sends them on to
 * `/admin/{merchant_id}` of their own merchant, which shows the merchant's addresses and the OAuth
 * apps this user registered: a form registers one (its client secret is shown on the answer page
 * only), a button deletes one together with every token and code issued to it. Every POST carries
 * the session's CSRF token and is refused with a foreign Origin.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { KEPT_APP_IDS, appProblems, createOwner, deleteOwnedApp, findUser, listApps, listUsers, ownerLimitProblem, registerApp, type User } from '../core/accounts/accounts.ts';
import { findShopById } from '../core/shops/shops.ts';
import { adminLoginPage, adminPage, appCreatedPage, errorPage, type AppForm, type PlatformSection } from './pages.ts';
import { issuerOf } from './bearer.ts';
import { merchantEndpoints, page, readForm } from './web.ts';
import { signIn } from './budgets.ts';
import { csrfOk, endSession, ensureSession, getSession, loginSession, type Session } from './session.ts';

const adminPath = (merchantId: string) => `/admin/${encodeURIComponent(merchantId)}`;

function seeOther(c: Context<AppEnv>, path: string) {
  c.header('Cache-Control', 'no-store');
  return c.redirect(path, 303);
}

const expired = (c: Context<AppEnv>) =>
  page(c, errorPage('Session expired', 'This form expired or you were signed out. Sign in again and retry.', { admin: true }), 403);
const notFound = (c: Context<AppEnv>, message: string) => page(c, errorPage('Not found', message, { admin: true }), 404);

/** The signed-in user of this request's session, or null. */
async function signedIn(c: Context<AppEnv>): Promise<{ session: Session; user: User } | null> {
  const session = await getSession(c);
  const user = session?.userId ? await findUser(c.get('db'), session.userId) : null;
  return session && user ? { session, user } : null;
}

/** The shop `merchantId` names when it is the user's own; anyone else's is not revealed. */
async function ownShop(c: Context<AppEnv>, user: User) {
  const merchantId = c.req.param('merchantId');
  return user.merchantId === merchantId ? findShopById(c.get('db'), merchantId) : null;
}

const NO_MERCHANT = 'No such merchant for this account.';

/**
 * A form posted to the user's own `/admin/{merchant_id}/...`: without a signed-in session, the
 * session's CSRF token or with a foreign Origin 403; another merchant's id 404. Else the form, the
 * user and the shop.
 */
async function ownMerchantPost(c: Context<AppEnv>) {
  const { form } = await readForm(c);
  const who = await signedIn(c);
  if (!who || !csrfOk(c, who.session, form.csrf)) return expired(c);
  const shop = await ownShop(c, who.user);
  if (!shop) return notFound(c, NO_MERCHANT);
  return { form, who, shop };
}

async function renderAdmin(
  c: Context<AppEnv>,
  who: { session: Session; user: User },
  shop: { id: string; name: string },
  o: { form?: AppForm; errors?: string[]; platform?: Omit<PlatformSection, 'owners'> } = {},
) {
  const apps = await listApps(c.get('db'), who.user.id);
  const platform = who.user.platformAdmin ? { ...o.platform, owners: await listUsers(c.get('db')) } : undefined;
  const html = adminPage({
    keptApps: KEPT_APP_IDS,
    merchantName: shop.name,
    merchantId: shop.id,
    apiBase: merchantEndpoints(issuerOf(c), shop.id).api,
    signedInAs: who.user.username,
    csrf: who.session.csrf,
    apps,
    form: o.form,
    errors: o.errors,
    platform,
  });
  return page(c, html, o.errors?.length || o.platform?.errors?.length ? 422 : 200);
}

/** One redirect URI a line; blank lines and repeats are dropped. */
const redirectLines = (text: string) => [...new Set(text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean))];

export function adminRoutes() {
  const r = new Hono<AppEnv>();

  // `/admin/` is how people type it (issue 29: a 404). One canonical address; a relative redirect,
  // so the scheme and host a proxy put in front stay the browser's.
  r.get('/admin/', (c) => c.redirect(`/admin${new URL(c.req.url).search}`, 301));

  r.get('/admin', async (c) => {
    const who = await signedIn(c);
    if (who) return seeOther(c, adminPath(who.user.merchantId));
    const session = await ensureSession(c);
    return page(c, adminLoginPage({ csrf: session.csrf }));
  });

  r.post('/admin/login', async (c) => {
    const session = await getSession(c);
    const { form } = await readForm(c);
    if (!session || !csrfOk(c, session, form.csrf)) return expired(c);
    const result = await signIn(c, form.username ?? '', form.password ?? '');
    if (!result.ok) return page(c, adminLoginPage({ csrf: session.csrf, error: result.error, username: form.username }), result.status);
    await loginSession(c, session, result.user.id);
    return seeOther(c, adminPath(result.user.merchantId));
  });

  r.post('/admin/logout', async (c) => {
    const session = await getSession(c);
    const { form } = await readForm(c);
    if (session && !csrfOk(c, session, form.csrf)) return expired(c);
    if (session) await endSession(c, session);
    return seeOther(c, '/admin');
  });

  r.get('/admin/:merchantId', async (c) => {
    const who = await signedIn(c);
    if (!who) {
      const session = await ensureSession(c);
      return page(c, adminLoginPage({ csrf: session.csrf, error: 'Sign in to see this page.' }), 401);
    }
    const shop = await ownShop(c, who.user);
    if (!shop) return notFound(c, NO_MERCHANT);
    return renderAdmin(c, who, shop);
  });

  r.post('/admin/:merchantId/apps', async (c) => {
    const post = await ownMerchantPost(c);
    if (post instanceof Response) return post;
    const { form, who, shop } = post;
    const type = form.type === 'public' || form.type === 'confidential' ? form.type : null;
    const input: AppForm = { name: form.name ?? '', redirectUris: form.redirect_uris ?? '', type: type ?? 'confidential' };
    const redirectUris = redirectLines(input.redirectUris);
    const errors = appProblems({ name: input.name, redirectUris });
    if (!type) errors.push('choose whether the app is confidential or public');
    const full = await ownerLimitProblem(c.get('db'), who.user.id);
    if (full) errors.push(full);
    if (errors.length) return renderAdmin(c, who, shop, { form: input, errors });
    const { app, secret } = await registerApp(c.get('db'), { name: input.name, redirectUris, confidential: type === 'confidential', ownerUserId: who.user.id });
    return page(c, appCreatedPage({ merchantId: shop.id, app, secret }));
  });

  // A platform administrator creates an owner for any shop (the rules of `owners create`: one core function).
  r.post('/admin/:merchantId/owners', async (c) => {
    const post = await ownMerchantPost(c);
    if (post instanceof Response) return post;
    const { form, who, shop } = post;
    if (!who.user.platformAdmin) return page(c, errorPage('Not allowed', 'Only a platform administrator creates owners. Ask one, or use ucp-storefront owners create.', { admin: true }), 403);
    const input = { shop: (form.shop ?? '').trim(), email: form.email ?? '', name: form.name ?? '' };
    const created = await createOwner(c.get('db'), { shopId: input.shop, email: input.email, name: input.name.trim() ? input.name : undefined, password: form.password ?? '' });
    if (!created.ok) return renderAdmin(c, who, shop, { platform: { form: input, errors: [created.problem] } });
    return renderAdmin(c, who, shop, { platform: { created: { email: created.user.username, shop: created.user.merchantId } } });
  });

  r.post('/admin/:merchantId/apps/:id/delete', async (c) => {
    const post = await ownMerchantPost(c);
    if (post instanceof Response) return post;
    const { who, shop } = post;
    if (KEPT_APP_IDS.includes(c.req.param('id'))) {
      return page(c, errorPage('Kept', 'The seeded demo apps stay: the start banner and the docs print their credentials.', { admin: true }), 403);
    }
    if (!(await deleteOwnedApp(c.get('db'), c.req.param('id'), who.user.id))) return notFound(c, 'You registered no app with this client_id.');
    return seeOther(c, adminPath(shop.id));
  });

  return r;
}
