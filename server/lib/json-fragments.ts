/**
 * JSON text of response bodies whose large, repeated parts were serialized before. A rendered
 * product in a search listing is the same object for every request that shows it (catalog.ts keeps
 * it per stored document and locale), so its JSON is made once and remembered here; a body is then
 * written by joining those texts instead of stringifying every product again. Remembered objects
 * are frozen: the text must stay the object's JSON.
 */

const fragments = new WeakMap<object, string>();

/** Freezes `value` (deeply) and remembers its JSON; returns it. */
export function serializedOnce<T extends object>(value: T): T {
  fragments.set(deepFreeze(value), JSON.stringify(value));
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * `JSON.stringify(body)`, with remembered texts used for the body's own values and the items of its
 * arrays (the depth where listings live); anything else is stringified as usual.
 */
export function toJson(body: object): string {
  const known = fragments.get(body);
  if (known !== undefined) return known;
  let out = '';
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function') continue;
    out += `${out ? ',' : '{'}${JSON.stringify(key)}:${valueJson(value)}`;
  }
  return out ? `${out}}` : '{}';
}

function valueJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const known = fragments.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object' && fragments.has(v))) {
    return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : valueJson(v))).join(',')}]`;
  }
  return JSON.stringify(value);
}
