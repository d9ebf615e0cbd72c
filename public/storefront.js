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
