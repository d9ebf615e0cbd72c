/**
 * A product card's availability in words, one rule for `<ucp-search>` cards (src/search/search.ts)
 * and the server-rendered listing (server/storefront/catalog-pages.ts): nothing while some variant
 * can be bought from stock; "pre-order" or "backorder" when the buyable variants are all of that
 * kind; "out of stock" when none can be bought. (The product page says it per variant,
 * src/views/product.tsx.)
 */
export type CardAvailability = 'out_of_stock' | 'preorder' | 'backorder' | null;

export function cardAvailability(p: { variants?: ReadonlyArray<{ availability?: { available: boolean; status?: string } }> }): CardAvailability {
  const vs = p.variants ?? [];
  if (!vs.length) return null;
  const buyable = vs.filter((v) => v.availability?.available !== false);
  if (!buyable.length) return 'out_of_stock';
  for (const kind of ['preorder', 'backorder'] as const) if (buyable.every((v) => v.availability?.status === kind)) return kind;
  return null;
}
