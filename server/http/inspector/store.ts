/**
 * The request inspector's memory (docs/sandbox.md "What is kept, and what it costs"): per shop, a
 * ring of its most recent exchanges and the little state the hygiene notes need (notes.ts).
 *
 * Recording is cheap on the request path: an exchange keeps references to what the server already
 * holds (the body texts, Node's raw header list, the response headers) and bounded copies of the
 * rest; redaction (redact.ts), cutting and serializing happen when the inspector is read, once per
 * exchange (the shown form then replaces the raw one).
 *
 * Memory has a real bound (issue 39 point 1: three fields escaped the 8 KiB cut and a development
 * server died of a heap out-of-memory). Every field is bounded: a body text is kept whole up to
 * KEEP_CHARS, else as a copy of its first KEEP_CHARS (a copy, not a slice: V8's slice would keep the
 * whole 1 MiB parent alive); the agent's profile and the idempotency key are copied at most
 * FIELD_CHARS; the notes' fingerprints and key map are hashes; header lists are bounded by Node's
 * 16 KiB header limit. The inspector counts the characters it holds (`inspectorBytes()`: two bytes a
 * character, the worst case) and, past MAX_BYTES across all shops, drops the oldest exchanges first,
 * whatever their shop. Beside it: RING_SIZE exchanges per shop, MAX_SHOPS shops, MAX_KEYS keys and
 * MAX_WAITS waits per shop. One process's memory: under `start:cluster` each worker sees its own.
 */
import type { Exchange, InspectorTransport, Note } from './exchange.ts';
import { headerPairs, redactBody, redactHeaders, redactText } from './redact.ts';

export type { Exchange, InspectorTransport, Note, NoteCode } from './exchange.ts';

export const RING_SIZE = 100;
export const BODY_MAX_CHARS = 8 * 1024;
/** A body longer than this is kept as a copy of its beginning (redacted by structure up to here, then cut at BODY_MAX_CHARS). */
export const KEEP_CHARS = 16 * 1024;
/** The agent's profile URL and the idempotency key, as kept. */
export const FIELD_CHARS = 512;
export const MAX_SHOPS = 20;
export const MAX_KEYS = 500;
export const MAX_WAITS = 500;
/** What the inspector may hold across all shops (its own accounting), in bytes. */
export const MAX_BYTES = 24 * 1024 * 1024;
/** What an exchange costs besides its texts: the object, its numbers, notes, the arrays around it. */
const EXCHANGE_OVERHEAD = 1024;

/** An exchange as recorded on the request path: references and bounded copies, nothing redacted yet. */
export interface Recorded {
  id: number;
  at: number;
  transport: InspectorTransport;
  method: string;
  path: string;
  operation: string;
  status: number;
  durationMs: number;
  agent: string | null;
  idempotencyKey: string | null;
  /** Node's raw header list of the request ([name, value, …]), by reference. */
  requestHeaders: readonly string[];
  /** The answer's headers as the adapter holds them: a Headers, pairs, or a plain object. */
  responseHeaders: Iterable<[string, string]> | Record<string, string>;
  requestBody: string | null;
  requestCut: boolean;
  responseBody: string | null;
  responseCut: boolean;
  notes: Note[];
}

/** A copy of at most `max` characters that holds no reference to `s` (a V8 slice would keep all of `s` alive). */
export function own(s: string, max: number): string {
  if (s.length <= max) return s;
  return Buffer.from(s.slice(0, max), 'utf16le').toString('utf16le');
}

/** A body text as kept: itself when short, else a detached copy of its beginning. */
export function keepBody(text: string | null): { body: string | null; cut: boolean } {
  if (text === null || text === '') return { body: null, cut: false };
  return text.length <= KEEP_CHARS ? { body: text, cut: false } : { body: own(text, KEEP_CHARS), cut: true };
}

function headerChars(raw: readonly string[]): number {
  let n = 0;
  for (const s of raw) n += s.length;
  return n;
}

/** What a recorded exchange holds, in bytes (two a character: the worst case of V8's strings). */
function sizeOf(r: Recorded | Exchange): number {
  if ('requestHeaders' in r) {
    return EXCHANGE_OVERHEAD + 2 * ((r.requestBody?.length ?? 0) + (r.responseBody?.length ?? 0) + headerChars(r.requestHeaders) + (r.agent?.length ?? 0) + (r.idempotencyKey?.length ?? 0) + r.path.length + r.operation.length) + 2048;
  }
  return EXCHANGE_OVERHEAD + 2 * ((r.request.body?.length ?? 0) + (r.response.body?.length ?? 0) + JSON.stringify(r.request.headers).length + JSON.stringify(r.response.headers).length + (r.agent?.length ?? 0) + (r.idempotency_key?.length ?? 0) + r.path.length + r.operation.length);
}

/** The exchange as the inspector shows it: redacted, cut, plain data. */
function show(r: Recorded): Exchange {
  const req = r.requestBody === null ? { body: null, truncated: false } : redactBody(r.requestBody, BODY_MAX_CHARS, r.requestCut);
  const res = r.responseBody === null ? { body: null, truncated: false } : redactBody(r.responseBody, BODY_MAX_CHARS, r.responseCut);
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    transport: r.transport,
    method: r.method,
    path: r.path,
    operation: r.operation,
    status: r.status,
    duration_ms: Math.round(r.durationMs * 10) / 10,
    agent: r.agent === null ? null : redactText(r.agent).slice(0, 300),
    version: r.responseBody === null ? null : answeredVersions(r.responseBody),
    idempotency_key: r.idempotencyKey === null ? null : redactText(r.idempotencyKey).slice(0, 200),
    request: { headers: redactHeaders(headerPairs(r.requestHeaders)), body: req.body, truncated: req.truncated },
    response: { headers: redactHeaders(Symbol.iterator in r.responseHeaders ? (r.responseHeaders as Iterable<[string, string]>) : Object.entries(r.responseHeaders)), body: res.body || null, truncated: res.truncated },
    notes: [],
  };
}

/**
 * The UCP version(s) an answer was given in: each `"ucp":{"version":"…"` of the body (REST: the one at
 * its start; MCP: one per structuredContent of a batch; the text copy in content[] is escaped, so it
 * does not match). Only date-shaped values, so the field stays what the server wrote. Read when the
 * exchange is shown, from the kept body, never on the request path: a scan of every answer there
 * (a search answer is a rope of cached fragments: flattened, then searched) cost more than the rest
 * of the recording. An MCP batch beyond KEEP_CHARS names the versions in its kept part.
 */
const UCP_VERSION_RE = /"ucp":\{"version":"(\d{4}-\d{2}-\d{2})"/g;
export function answeredVersions(text: string): string | null {
  const found = new Set<string>();
  for (const m of text.matchAll(UCP_VERSION_RE)) found.add(m[1]);
  return found.size ? [...found].join(', ') : null;
}

/** An idempotency key as first seen: a hash of what it was sent with. */
export interface KeyUse {
  fingerprint: string;
  exchange: number;
}

/** A Retry-After the agent was given, for its next request of the same operation. */
export interface Wait {
  until: number;
  seconds: number;
  status: number;
  at: number;
  /** What was refused: its key's hash and its fingerprint, so only a retry of it is measured against the wait. */
  key: string | null;
  fingerprint: string;
}

/** Insertion-ordered map held to `max` entries (oldest dropped). */
function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

interface Slot {
  recorded?: Recorded;
  shown?: Exchange;
  notes: Note[];
  bytes: number;
  id: number;
}

let totalBytes = 0;

export class ShopLog {
  /** A circular buffer: `count` slots, the newest just before `head`. */
  private readonly ring: Array<Slot | undefined> = new Array(RING_SIZE);
  private head = 0;
  private count = 0;
  readonly keys = new Map<string, KeyUse>();
  readonly waits = new Map<string, Wait>();
  constructor(
    readonly shopId: string,
    readonly domain: string,
  ) {}

  add(r: Recorded): void {
    const slot: Slot = { recorded: r, notes: r.notes, bytes: sizeOf(r), id: r.id };
    if (this.count === RING_SIZE) this.dropOldest();
    this.ring[this.head] = slot;
    this.head = (this.head + 1) % RING_SIZE;
    this.count++;
    totalBytes += slot.bytes;
    if (totalBytes > MAX_BYTES) dropOldestUntilWithinBound(slot);
  }

  private at(i: number): Slot | undefined {
    return this.ring[(this.head - i + RING_SIZE * 2) % RING_SIZE];
  }

  /** This shop's oldest exchange, if any. */
  oldest(): Slot | undefined {
    return this.count ? this.at(this.count) : undefined;
  }

  /** Drops this shop's oldest exchange. */
  dropOldest(): void {
    const slot = this.at(this.count);
    if (slot) this.drop(slot);
  }

  /** Drops one exchange: always its shop's oldest. */
  drop(slot: Slot): void {
    if (this.count > 0 && this.at(this.count) === slot) {
      this.ring[(this.head - this.count + RING_SIZE * 2) % RING_SIZE] = undefined;
      this.count--;
    }
    totalBytes -= slot.bytes;
    slot.bytes = 0;
    slot.recorded = undefined;
    slot.shown = undefined;
  }

  /** Newest first: at most `limit`, only ids above `since`; each shown (redacted) once, then kept shown. */
  list(limit = RING_SIZE, since = 0): Exchange[] {
    const out: Exchange[] = [];
    for (let i = 1; i <= this.count && out.length < limit; i++) {
      const slot = this.at(i)!;
      if (slot.id <= since) break; // ids grow with position: everything older is older still
      if (!slot.shown) {
        slot.shown = show(slot.recorded!);
        slot.recorded = undefined;
        const bytes = sizeOf(slot.shown);
        totalBytes += bytes - slot.bytes;
        slot.bytes = bytes;
      }
      out.push({ ...slot.shown, notes: slot.notes.map((n) => ({ code: n.code, message: redactText(n.message) })) });
    }
    return out;
  }

  /** Forgets everything of this shop (it is dropped from the tracked shops). */
  clear(): void {
    while (this.count) this.dropOldest();
  }

  rememberKey(key: string, use: KeyUse): void {
    boundedSet(this.keys, key, use, MAX_KEYS);
  }

  rememberWait(who: string, wait: Wait): void {
    boundedSet(this.waits, who, wait, MAX_WAITS);
  }
}

/**
 * Past MAX_BYTES, the oldest exchange across shops goes first, until the inspector is within it
 * again (never `keep`, the one just added). Ids grow across the process, so the oldest is the
 * lowest id among each shop's oldest: a look at MAX_SHOPS slots, and only when over the bound (no
 * queue of every exchange kept on the request path).
 */
function dropOldestUntilWithinBound(keep: Slot): void {
  while (totalBytes > MAX_BYTES) {
    let from: ShopLog | undefined;
    let oldest: Slot | undefined;
    for (const log of shops.values()) {
      const slot = log.oldest();
      if (slot && slot !== keep && (!oldest || slot.id < oldest.id)) [from, oldest] = [log, slot];
    }
    if (!from || !oldest) return;
    from.drop(oldest);
  }
}

const shops = new Map<string, ShopLog>();
let newestShop: string | undefined;
let lastId = 0;

export const nextExchangeId = () => ++lastId;

let paused = false;
/**
 * Recording paused (`POST /dev/recording {"recording": false}`, like a browser's network panel's
 * record button): the middleware then does one comparison more and keeps nothing; what was kept
 * stays. This process only (under `start:cluster` each worker has its own inspector).
 */
export const recordingPaused = () => paused;
export function setRecordingPaused(value: boolean): void {
  paused = value;
}

/** The bytes the inspector holds now, by its own accounting. */
export const inspectorBytes = () => totalBytes;

/** The shop's log, created on its first exchange; the least recently recorded shop beyond MAX_SHOPS is forgotten. */
export function logFor(shopId: string, domain: string): ShopLog {
  let log = shops.get(shopId);
  if (log && shopId === newestShop) return log; // already the most recent: no reordering
  if (!log) log = new ShopLog(shopId, domain);
  newestShop = shopId;
  shops.delete(shopId);
  shops.set(shopId, log);
  if (shops.size > MAX_SHOPS) {
    const [oldestId, oldest] = shops.entries().next().value as [string, ShopLog];
    oldest.clear();
    shops.delete(oldestId);
  }
  return log;
}

/** The shop's exchanges, newest first (empty when nothing was recorded). */
export function exchangesOf(shopId: string, opts: { limit?: number; since?: number } = {}): Exchange[] {
  return shops.get(shopId)?.list(opts.limit, opts.since) ?? [];
}

/** After a reset the server has forgotten its idempotency keys: so do the notes. The exchanges stay (a log). */
export function forgetKeys(shopId: string): void {
  shops.get(shopId)?.keys.clear();
}

/** A deleted shop (a clone): everything the inspector kept of it goes. */
export function forgetShop(shopId: string): void {
  shops.get(shopId)?.clear();
  shops.delete(shopId);
  if (newestShop === shopId) newestShop = undefined;
}
