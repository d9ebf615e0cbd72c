// Demo storefront: the currency and language switchers set the widgets' `currency` and `lang`
// attributes at run time (no reload). External file: the pages' CSP allows no inline script.
for (const [id, attr] of [['currency-switch', 'currency'], ['lang-switch', 'lang']]) {
  const select = document.getElementById(id);
  if (!select) continue;
  select.addEventListener('change', () => {
    if (attr === 'lang') document.documentElement.lang = select.value;
    for (const el of document.querySelectorAll('ucp-product, ucp-cart')) {
      if (select.value) el.setAttribute(attr, select.value);
      else el.removeAttribute(attr);
    }
  });
}

// The checkout handoff page (server/storefront/checkout.ts): a form POST to the shop's checkout goes
// on by itself; its button stays for when this script does not run.
for (const form of document.querySelectorAll('form[data-autosubmit]')) form.submit();
