/**
 * A cart line's customizations as one text, for the widget's cart (src/views/cart-body.tsx) and the
 * checkout handoff pages (server/storefront/checkout.ts): entries of one field are grouped under its
 * name once ("Extras: Greeting card, Ribbon", not "Extras: Greeting card, Extras: Ribbon"), fields
 * are separated by "; ". The server words each entry as "<field>: <choice>" (`display_text`,
 * server/core/carts/customizations.ts); an entry without one shows its value.
 */
export function customizationsText(cs: ReadonlyArray<{ id: string; value: string; display_text?: string }>): string {
  const out: string[] = [];
  let last: string | undefined;
  for (const c of cs) {
    const text = c.display_text ?? c.value;
    const at = text.indexOf(': ');
    if (c.id === last && at > 0) out[out.length - 1] += `, ${text.slice(at + 2)}`;
    else out.push(text);
    last = c.id;
  }
  return out.join('; ');
}
