/**
 * The request inspector's memory (docs/sandbox.md "What is kept, and what it costs"): per shop, a
 * ring of its most recent exchanges and the little state the hygiene notes need (notes.ts).
 *
 * Recording is cheap on the request path: an exchange's texts (the request's raw header list, the
 * answer's headers, both bodies) are copied into one buffer outside the JavaScript heap (arena.ts),
 * and a small record of the rest is kept; redaction (redact.ts), cutting, and what a REST request's
 * headers say about its sender (fields.ts) wait until the inspector is read.
 *
 * Memory has a real bound (issue 39 point 1: three fields escaped the 8 KiB cut and a development
 * server died of a heap out-of-memory). The texts live in the arena, MAX_BYTES in all: when it is
 * full the oldest exchanges across shops are overwritten first, and an exchange whose texts are gone
 * is gone. A body is kept up to KEEP_CHARS (then cut); the agent's profile and the idempotency key
 * are copied at most FIELD_CHARS; the notes' fingerprints and key map are hashes. Beside it:
 * RING_SIZE records per shop, MAX_SHOPS shops, MAX_KEYS keys and MAX_WAITS waits per shop. One
 * process's memory: under `start:cluster` each worker sees its own.
 */
import type { Exchange, InspectorTransport, Note } from './exchange.ts';
import { FIELD_CHARS, headerIn, own, profileOf, restTransportOf } from './fields.ts';
import { exchangeNotes, type KeyUse, type Sequence, type Wait } from './notes.ts';
import { headerPairs, redactBody, redactHeaders, redactText } from './redact.ts';
import { TextArena } from './arena.ts';

export type { Exchange, InspectorTransport, Note, NoteCode } from './exchange.ts';

export const RING_SIZE = 100;
export const BODY_MAX_CHARS = 8 * 1024;
/** A body longer than this is kept as a copy of its beginning (redacted by structure up to here, then cut at BODY_MAX_CHARS). */
export const KEEP_CHARS = 16 * 1024;
export const MAX_SHOPS = 20;
export const MAX_KEYS = 500;
export const MAX_WAITS = 500;
/** The texts the inspector may hold across all shops (its arena), in bytes. */
export const MAX_BYTES = 24 * 1024 * 1024;
/** A request's header list beyond this many characters is cut (Node's own limit is 16 KiB). */
const HEADER_CHARS = 64 * 1024;

/**
 * An exchange as the request path hands it over: references to its texts, bounded copies of the
 * rest. A REST exchange leaves `transport`, `agent`, `idempotencyKey` and `agentNamed` undefined:
 * they are read from its request headers when it is shown (fields.ts). MCP says them from the body
 * it parsed.
 */
export interface Recorded {
  id: number;
  at: number;
  transport?: InspectorTransport;
  method: string;
  path: string;
  operation: string;
  status: number;
  durationMs: number;
  agent?: string | null;
  idempotencyKey?: string | null;
  /** Every call named an agent profile (MCP: each tools/call's meta; REST: a UCP-Agent header). */
  agentNamed?: boolean;
  /** A discovery error the server answered (the profile refused): bounded copies of its code and text. */
  refusal?: { code: string; content: string };
  /** The shop's own origin (`https://demo.localhost:8080`): the embedded cart's referer is on it. */
  origin?: string;
  /** Node's raw header list of the request ([name, value, …]). */
  requestHeaders: readonly string[];
  /** The answer's headers as the adapter holds them: a Headers, pairs, or a plain object. */
  responseHeaders: Iterable<[string, string]> | Record<string, string>;
  /**
   * The body texts, whole (null: none, or never read); the store keeps KEEP_CHARS of each. An
   * answer sent as UTF-8 bytes (REST's JSON) is kept as bytes and decoded only when shown.
   */
  requestBody: string | null;
  responseBody: string | Uint8Array | null;
  /** What the agent's sequence of requests said (notes.ts hygieneNotes); more may be added after (a catalog lookup). */
  notes: Note[];
}

/**
 * What the store keeps of an exchange: the record without its texts, and where the texts are in
 * the arena (their byte lengths; -1 for a body there was none of). keep() sets every field, so
 * every slot has one shape.
 */
type Slot = Omit<Recorded, 'requestHeaders' | 'responseHeaders' | 'requestBody' | 'responseBody'> & {
  start: number;
  headerBytes: number;
  requestBodyBytes: number;
  responseBodyBytes: number;
  requestCut: boolean;
  responseCut: boolean;
  /** The answer is kept as UTF-8 bytes (up to UTF8_KEEP_BYTES), cut to KEEP_CHARS when shown. */
  responseUtf8: boolean;
};

/** Bytes of an answer's UTF-8 that always hold its first KEEP_CHARS UTF-16 units whole (at most 3 bytes each, one character cut at the end). */
const UTF8_KEEP_BYTES = KEEP_CHARS * 3 + 3;

const arena = new TextArena(MAX_BYTES);

/**
 * Both header lists as one text, one line each name and value (neither can hold a line break; a
 * value can be empty): the request list's length, its items, then the answer's names and values.
 * Joined by hand: measured cheaper than JSON.stringify of the same lists, and the answer's Headers
 * is iterated once here and its sorted list reused when the adapter writes it.
 */
function headerText(r: Recorded): string {
  const raw = r.requestHeaders;
  let text = `${raw.length}\n`;
  for (let i = 0; i < raw.length; i++) text += `${raw[i]}\n`;
  if (text.length > HEADER_CHARS) {
    const list = cutList(raw);
    return list.length ? `${list.length}\n${list.join('\n')}\n` : '0\n';
  }
  const answer = r.responseHeaders;
  if (Symbol.iterator in answer) for (const [name, value] of answer as Iterable<[string, string]>) text += `${name}\n${value}\n`;
  else for (const name in answer) text += `${name}\n${(answer as Record<string, string>)[name]}\n`;
  return text;
}

/** A request header list cut to HEADER_CHARS in all (a list past Node's own limit: a server started with a larger one). */
function cutList(raw: readonly string[]): string[] {
  const out: string[] = [];
  let n = 0;
  for (const s of raw) {
    n += s.length + 1;
    if (n > HEADER_CHARS) break;
    out.push(s);
  }
  return out.length % 2 ? out.slice(0, -1) : out;
}

function readHeaders(text: string): { request: string[]; response: Array<[string, string]> } {
  const lines = text.split('\n');
  const n = Number(lines[0]);
  const response: Array<[string, string]> = [];
  for (let i = n + 1; i + 1 < lines.length; i += 2) response.push([lines[i], lines[i + 1]]);
  return { request: lines.slice(1, n + 1), response };
}

const kept = (body: string | null) => (body === null || body.length <= KEEP_CHARS ? body : body.slice(0, KEEP_CHARS));

/** Copies an exchange's texts into the arena; the slot says where. */
function keep(r: Recorded): Slot {
  const headers = headerText(r);
  const requestBody = kept(r.requestBody);
  const answer = r.responseBody;
  // An answer in bytes is copied as bytes: decoding it on the request path made the search's largest allocation.
  const answerBytes = answer instanceof Uint8Array ? answer.subarray(0, UTF8_KEEP_BYTES) : undefined;
  const responseBody = answer instanceof Uint8Array ? null : kept(answer);
  const start = arena.begin(headers.length + (requestBody?.length ?? 0) + (responseBody?.length ?? 0), answerBytes?.length ?? 0);
  return {
    id: r.id,
    at: r.at,
    transport: r.transport,
    method: r.method,
    path: r.path,
    operation: r.operation,
    status: r.status,
    durationMs: r.durationMs,
    agent: r.agent,
    idempotencyKey: r.idempotencyKey,
    agentNamed: r.agentNamed,
    refusal: r.refusal,
    origin: r.origin,
    notes: r.notes,
    start,
    headerBytes: arena.put(headers),
    requestBodyBytes: requestBody === null ? -1 : arena.put(requestBody),
    responseBodyBytes: answerBytes ? arena.putBytes(answerBytes) : responseBody === null ? -1 : arena.put(responseBody),
    requestCut: requestBody !== r.requestBody,
    responseCut: answerBytes ? answerBytes.length < (answer as Uint8Array).length : responseBody !== answer,
    responseUtf8: answerBytes !== undefined,
  };
}

/** The exchange as the inspector shows it: read back, redacted, cut, plain data, with the notes it says by itself. */
function show(s: Slot): Exchange {
  let at = s.start;
  const text = (bytes: number) => {
    const t = bytes < 0 ? null : arena.read(at, bytes);
    at += Math.max(0, bytes);
    return t;
  };
  const { request: requestHeaders, response: responseHeaders } = readHeaders(text(s.headerBytes)!);
  const requestBody = text(s.requestBodyBytes) || null;
  let responseCut = s.responseCut;
  let responseBody: string | null;
  if (s.responseUtf8) {
    const whole = arena.readUtf8(at, s.responseBodyBytes);
    // Cut as a text answer is (kept()): its first KEEP_CHARS characters.
    responseCut ||= whole.length > KEEP_CHARS;
    responseBody = (whole.length > KEEP_CHARS ? whole.slice(0, KEEP_CHARS) : whole) || null;
  } else responseBody = text(s.responseBodyBytes) || null;
  const req = requestBody === null ? { body: null, truncated: false } : redactBody(requestBody, BODY_MAX_CHARS, s.requestCut);
  const res = responseBody === null ? { body: null, truncated: false } : redactBody(responseBody, BODY_MAX_CHARS, responseCut);
  const transport = s.transport ?? restTransportOf(requestHeaders, s.origin);
  const agent = s.agent !== undefined ? s.agent : profileOf(headerIn(requestHeaders, 'ucp-agent'));
  const key = s.idempotencyKey !== undefined ? s.idempotencyKey : (headerIn(requestHeaders, 'idempotency-key') ?? null);
  const notes = [...s.notes, ...exchangeNotes(transport, s.agentNamed ?? agent !== null, s.refusal)];
  return {
    id: s.id,
    at: new Date(s.at).toISOString(),
    transport,
    method: s.method,
    path: s.path,
    operation: s.operation,
    status: s.status,
    duration_ms: Math.round(s.durationMs * 10) / 10,
    agent: agent === null ? null : redactText(agent).slice(0, 300),
    version: responseBody === null ? null : answeredVersions(responseBody),
    idempotency_key: key === null ? null : redactText(own(key, FIELD_CHARS)).slice(0, 200),
    request: { headers: redactHeaders(headerPairs(requestHeaders)), body: req.body, truncated: req.truncated },
    response: { headers: redactHeaders(responseHeaders), body: res.body || null, truncated: res.truncated },
    // The sequence's notes (they may grow after recording: a catalog lookup), then the exchange's own.
    notes: notes.map((n) => ({ code: n.code, message: redactText(n.message) })),
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

/** Insertion-ordered map held to `max` entries (oldest dropped). */
function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export class ShopLog implements Sequence {
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
    const slot = keep(r);
    this.ring[this.head] = slot; // over the oldest when the ring is full
    this.head = (this.head + 1) % RING_SIZE;
    if (this.count < RING_SIZE) this.count++;
  }

  /** The i-th newest (1: the newest). */
  private at(i: number): Slot | undefined {
    return this.ring[(this.head - i + RING_SIZE * 2) % RING_SIZE];
  }

  /** Newest first: at most `limit`, only ids above `since`; each read back from the arena and redacted. */
  list(limit = RING_SIZE, since = 0): Exchange[] {
    this.forgetOverwritten();
    const out: Exchange[] = [];
    for (let i = 1; i <= this.count && out.length < limit; i++) {
      const slot = this.at(i)!;
      if (slot.id <= since) break; // ids grow with position: everything older is older still
      out.push(show(slot));
    }
    return out;
  }

  /** Drops the oldest exchanges whose texts the arena has since overwritten (newer shops' traffic). */
  private forgetOverwritten(): void {
    while (this.count && !arena.intact(this.at(this.count)!.start)) {
      this.ring[(this.head - this.count + RING_SIZE * 2) % RING_SIZE] = undefined;
      this.count--;
    }
  }

  /** Forgets everything of this shop (it is dropped from the tracked shops). */
  clear(): void {
    this.ring.fill(undefined);
    this.count = 0;
  }

  rememberKey(key: string, use: KeyUse): void {
    boundedSet(this.keys, key, use, MAX_KEYS);
  }

  rememberWait(who: string, wait: Wait): void {
    boundedSet(this.waits, who, wait, MAX_WAITS);
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

/** The bytes of exchange texts the inspector holds now (its arena's, up to MAX_BYTES). */
export const inspectorBytes = () => arena.used();

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
