/*
 * Test fixture (e2e/security.spec.ts): frames http://demo.localhost:<this page's port>/cart/{?cart}?ep_version=2026-04-08.
 * Served from the fixtures' foreign origin (evil.localhost, development only) the shop's CSP
 * frame-ancestors must refuse it; from agent.localhost (allowed) the frame loads.
 */
const here = new URL(location.href);
const shop = new URL(`http://demo.localhost${here.port ? `:${here.port}` : ''}`);
const f = document.createElement('iframe');
f.title = 'Framed cart';
f.width = '480';
f.height = '600';
f.src = `${shop.origin}/cart/${encodeURIComponent(here.searchParams.get('cart') || 'none')}?ep_version=2026-04-08&ep_cart_delegate=`;
document.body.append(f);
