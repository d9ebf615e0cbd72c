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

/** The remembered JSON of an object made with serializedOnce, if it is one. */
export function rememberedJson(value: object): string | undefined {
  return fragments.get(value);
}

/**
 * `JSON.stringify(body)`, with remembered texts used for the body's own values and the items of its
 * arrays (the depth where listings live); anything else is stringified as usual.
 */
export function toJson(body: object): string {
  let out = '';
  walk(body, (piece) => {
    out += piece;
  });
  return out;
}

/**
 * `toJson(body)` as UTF-8 bytes, what a REST answer sends (issue 47 point 10): a remembered piece's
 * bytes are remembered beside it (made the first time REST serves it), so a search answer is one
 * buffer of copies. Sent as a string, the same answer was measured through twice more per request:
 * its UTF-8 length for Content-Length, then its encoding into the socket write.
 */
export function toJsonBytes(body: object): Buffer {
  const pieces: Array<string | Buffer> = [];
  let size = 0;
  walk(body, (piece, owner) => {
    const bytes = owner === undefined ? piece : bytesOf(owner, piece);
    pieces.push(bytes);
    size += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
  });
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) at += typeof p === 'string' ? out.write(p, at) : p.copy(out, at);
  return out;
}

const fragmentBytes = new WeakMap<object, Buffer>();

function bytesOf(owner: object, text: string): Buffer {
  let b = fragmentBytes.get(owner);
  if (b === undefined) {
    // A buffer of its own, not a slice of Node's shared pool (which a kept slice would keep whole).
    b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    b.write(text);
    fragmentBytes.set(owner, b);
  }
  return b;
}

/**
 * The body's JSON, and that JSON as the contents of a JSON string (`JSON.stringify(text)` without
 * its quotes): what an MCP answer carries beside the body (server/mcp/result-json.ts). Escaping is
 * per character, so the escaped text is the escaped pieces joined, and a remembered piece's escaped
 * form is remembered beside it (made the first time MCP serves it).
 */
export function toJsonWithEscaped(body: object): { text: string; escaped: string } {
  let text = '';
  let escaped = '';
  walk(body, (piece, owner) => {
    text += piece;
    escaped += owner === undefined ? escape(piece) : escapedOf(owner, piece);
  });
  return { text, escaped };
}

const escapedFragments = new WeakMap<object, string>();

function escapedOf(owner: object, text: string): string {
  let e = escapedFragments.get(owner);
  if (e === undefined) escapedFragments.set(owner, (e = escape(text)));
  return e;
}

const escape = (text: string) => JSON.stringify(text).slice(1, -1);

/** Emits the body's JSON in pieces; a remembered text comes with the object it is the JSON of. */
function walk(body: object, emit: (piece: string, owner?: object) => void): void {
  const known = fragments.get(body);
  if (known !== undefined) return emit(known, body);
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    emit(`${first ? '{' : ','}${JSON.stringify(key)}:`);
    first = false;
    valueJson(value, emit);
  }
  emit(first ? '{}' : '}');
}

function valueJson(value: unknown, emit: (piece: string, owner?: object) => void): void {
  if (value === null || typeof value !== 'object') return emit(JSON.stringify(value));
  const known = fragments.get(value);
  if (known !== undefined) return emit(known, value);
  if (Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object' && fragments.has(v))) {
    emit('[');
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i]; // holes read as undefined: null, as JSON.stringify writes them
      if (i > 0) emit(',');
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') emit('null');
      else valueJson(v, emit);
    }
    return emit(']');
  }
  emit(JSON.stringify(value));
}
