/**
 * WebMCP gate, in the entry (docs/webmcp.md): when the browser offers `document.modelContext`, load
 * the tools chunk (src/webmcp/webmcp.ts, `host-webmcp-<hash>.js`) and hand it what it needs from the
 * entry (chunks never import the entry, docs/host-js.md). Nothing is loaded, and nothing logged, when
 * the API is absent, when the page switches it off (`data-webmcp="off"` on the script tag, an
 * element or `<html>`; the storefront pages of a shop with `settings.webmcp_enabled` off carry it),
 * when the page is not the shop's own (host.js from another origin), or when any ancestor frame is
 * another origin (an agent framing the cart: never register in a foreign frame's context).
 */
import { money, storeFor } from '../state/store.ts';
import { fieldErrors, linesOf } from '../client/api.ts';
import { loadPicker } from '../views/lazy.ts';
import { adoptStyles } from '../views/styles.ts';

export function startWebMcp(shop: string) {
  const mc = (document as { modelContext?: object }).modelContext;
  try {
    // `top.location.origin` throws for a cross-origin ancestor (and differs for an opaque one).
    if (!mc || shop !== location.origin || top!.location.origin !== shop || document.querySelector('[data-webmcp=off]')) return;
  } catch {
    return;
  }
  // The tools word customization errors as the picker does: its chunk loads alongside.
  Promise.all([import('../webmcp/webmcp.ts'), loadPicker()]).then(
    ([m, p]) => m.registerTools(mc, { store: storeFor(shop), fieldErrors, fieldText: p.fieldText, money, linesOf, adoptStyles }),
    () => {},
  );
}
