// Demo storefront: the currency and language switchers set the widgets' `currency` and `lang`
// attributes at run time (the widgets re-price and re-word, the cart included), and remember the
// choice in first-party cookies the server reads to render the next page in it
// (server/storefront/prefs.ts). External file: the pages' CSP allows no inline script.
for (const [id, attr, cookie] of [['currency-switch', 'currency', 'ucp_currency'], ['lang-switch', 'lang', 'ucp_lang']]) {
  const select = document.getElementById(id);
  if (!select) continue;
  select.addEventListener('change', () => {
    // The shop's own currency is the default: no cookie for it, but the widgets are told it
    // explicitly, so a cart priced in another currency is re-priced back.
    const remembered = select.value !== select.dataset.shopCurrency;
    document.cookie = `${cookie}=${encodeURIComponent(select.value)}; path=/; max-age=${remembered ? 31536000 : 0}; SameSite=Lax`;
    if (attr === 'lang') document.documentElement.lang = select.value;
    for (const el of document.querySelectorAll('ucp-product, ucp-cart, ucp-search')) el.setAttribute(attr, select.value);
    // Server-rendered text (headings, descriptions, labels) follows on the next page; reload for it now.
    if (attr === 'lang') location.reload();
  });
}

// The checkout handoff page (server/storefront/checkout.ts): a form POST to the shop's checkout goes
// on by itself; its button stays for when this script does not run.
for (const form of document.querySelectorAll('form[data-autosubmit]')) form.submit();

// A page the server rendered shows the address it was rendered for. Entries `<ucp-search sync-url>`
// pushed before a reload stay the reloaded document's own (Chromium: the reload keeps the entry's
// document, shared with the entries pushed beside it), so Back from a reloaded `?page=2` to the
// element's `/` is a popstate in the server's page 2, where nothing draws page 1: load the address
// instead. A page with the element lets it draw each of its entries (src/search/search.ts).
const rendered = location.pathname + location.search;
addEventListener('popstate', () => {
  if (location.pathname + location.search !== rendered && !document.querySelector('ucp-search[sync-url]')) location.reload();
});
