/** Links the view hands to its host (`ui/open-link`): web addresses only. */
/** An absolute http(s) URL: what the view may ask the host to open (never `javascript:` or `data:` from a tool result). */
export function webAddress(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}
