/**
 * The currency a file's prices are in, read off its first 64 KiB, for a new shop whose currency no
 * option names: a feed's `25.00 EUR`, JSON-LD's `"priceCurrency": "EUR"`, our own file's
 * `"currency": "EUR"`. Undefined when the file does not say (a platform CSV: give --currency).
 */
export function sniffCurrency(head: string): string | undefined {
  const jsonld = /"priceCurrency"\s*:\s*"([A-Z]{3})"/.exec(head);
  if (jsonld) return jsonld[1];
  const ours = /"settings"\s*:\s*\{[^{}]*"currency"\s*:\s*"([A-Z]{3})"/.exec(head);
  if (ours) return ours[1];
  const feed = /<g:price>\s*[\d.,]+\s+([A-Z]{3})\s*</.exec(head) ?? /\t[\d.,]+ ([A-Z]{3})(?:\t|\r?\n)/.exec(head);
  return feed?.[1];
}
