/**
 * Hygiene notes: what the agent's own sequence of requests says about it, computed as each exchange
 * is recorded (store.ts keeps the state). Each note names the mistake and what to do instead, in
 * the words of docs/carts.md and docs/access.md:
 *  - a write (create, update, cancel) without an idempotency key;
 *  - a retry of an operation sooner than the Retry-After its last 429/503 gave;
 *  - one idempotency key sent with two different requests;
 *  - a product id where a cart line takes a variant id (record.ts: it needs the catalog);
 * and what one exchange says by itself (exchangeNotes, made when it is shown):
 *  - no UCP-Agent profile named, or one the server refused (discovery errors).
 */
import { hash } from 'node:crypto';
import type { InspectorTransport, Note } from './exchange.ts';

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

/** What the notes remember of a shop's traffic (store.ts ShopLog holds it). */
export interface Sequence {
  readonly keys: Map<string, KeyUse>;
  readonly waits: Map<string, Wait>;
  rememberKey(key: string, use: KeyUse): void;
  rememberWait(who: string, wait: Wait): void;
}

/** One UCP operation inside an exchange (an MCP batch has several). */
export interface Call {
  operation: string;
  write: boolean;
  /** The key as shown (at most store.ts FIELD_CHARS, a copy) and a hash of all of it (what the notes compare). */
  idempotencyKey?: string;
  keyHash?: string;
  /**
   * What was asked: a hash of its canonical JSON, so the same request twice gives the same value
   * ('' for reads and when the body was not read). A hash, not the text: 500 remembered keys of
   * 1 MiB bodies were 1 GB (issue 39 point 1). Computed only when a note compares it (a keyed
   * write, a request under a Retry-After): most requests never pay for it.
   */
  fingerprint: () => string;
  /** A UCP-Agent header or MCP meta["ucp-agent"] was sent. */
  agentNamed: boolean;
}

export interface Seen {
  exchangeId: number;
  /** When the request arrived, and when its answer left (Retry-After counts from there). */
  at: number;
  endedAt: number;
  /** The agent: its profile, else its address (so two agents' sequences never mix). */
  who: string;
  transport: 'rest' | 'mcp';
  calls: Call[];
  status: number;
  retryAfterS?: number;
}

/** JSON with object keys sorted, so key order does not make two equal requests differ. */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
}

/** A short stable digest of `text` (not a secret: it only tells equal requests from different ones). */
export const digest = (text: string) => hash('sha1', text, 'base64url');

/** `f`'s value, computed on first use. */
export function lazy<T>(f: () => T): () => T {
  let done = false;
  let v: T;
  return () => {
    if (!done) [v, done] = [f(), true];
    return v;
  };
}

const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** An agent's own traffic is held to these; the shop's pages (host.js) send no UCP-Agent by design. */
const AGENT_TRANSPORTS = new Set<InspectorTransport>(['rest', 'mcp']);

function keyNotes(log: Sequence, s: Seen, call: Call): Note[] {
  if (!call.write) return [];
  if (!call.idempotencyKey) return [keyMissing(call.operation, s.transport === 'mcp')];
  if (!call.keyHash) return [];
  const fingerprint = call.fingerprint();
  if (fingerprint === '') return []; // not read: nothing to compare
  // Keys are the caller's (the server scopes them so: server/ucp/cart-operations.ts keyScope).
  const scoped = `${digest(s.who)}.${call.keyHash}`;
  const first = log.keys.get(scoped);
  if (!first) {
    log.rememberKey(scoped, { fingerprint, exchange: s.exchangeId });
    return [];
  }
  if (first.fingerprint === fingerprint) return []; // a true retry
  return [{ code: 'idempotency_key_reused', message: `Idempotency key '${call.idempotencyKey.slice(0, 80)}' was first sent with a different request (exchange #${first.exchange}). A key names one logical write: send a fresh key for a new request, the same key only to retry the same request.` }];
}

function retryNote(log: Sequence, s: Seen, call: Call): Note[] {
  const slot = `${s.who}\n${call.operation}`;
  const wait = log.waits.get(slot);
  if (!wait) return [];
  if (s.at >= wait.until) {
    log.waits.delete(slot);
    return [];
  }
  // Only a retry of what was refused is measured against its Retry-After: the same key, or without
  // keys the same request (issue 39 point 11: later creates with other keys and bodies were told
  // they had retried too soon).
  const retry = wait.key !== null || call.keyHash !== undefined ? wait.key === (call.keyHash ?? null) : wait.fingerprint === call.fingerprint();
  if (!retry) return [];
  return [{ code: 'retry_too_soon', message: `${call.operation} retried ${seconds(s.at - wait.at)} after a ${wait.status} that said Retry-After: ${wait.seconds}. Wait at least the Retry-After (the typed client does), then retry with the same idempotency key.` }];
}

/**
 * The notes every exchange of a kind gets, made once: the request path allocates nothing for them
 * (notes are never changed after they are made; the inspector copies them when it shows them).
 */
const AGENT_MISSING: Record<'rest' | 'mcp', Note> = {
  rest: { code: 'ucp_agent_missing', message: missingAgent('a UCP-Agent: profile="<URL>" header') },
  mcp: { code: 'ucp_agent_missing', message: missingAgent('arguments.meta["ucp-agent"].profile on every tools/call') },
};

function missingAgent(how: string): string {
  return `No agent profile named: send ${how} (on a development server the demo agent's profile works; docs/access.md "Zero setup"). Without it the shop cannot tell agents apart or negotiate capabilities.`;
}

const keyMissingNotes = new Map<string, Note>();
/** The note for a write sent without a key, one per operation and transport (a bounded set: operation names are 60 characters at most, and at most 64 kept). */
function keyMissing(operation: string, mcp: boolean): Note {
  const id = `${mcp ? 'mcp' : 'rest'} ${operation}`;
  let note = keyMissingNotes.get(id);
  if (!note) {
    const how = mcp ? 'arguments.meta["idempotency-key"]' : 'the Idempotency-Key header';
    note = { code: 'idempotency_key_missing', message: `${operation} is a write sent without an idempotency key: if the answer is lost, a retry applies it twice. Send a fresh UUID in ${how}, and the same one only to retry this request.` };
    if (keyMissingNotes.size < 64) keyMissingNotes.set(id, note);
  }
  return note;
}

/** The notes of one exchange, and the sequence state updated with it. */
export function hygieneNotes(log: Sequence, s: Seen): Note[] {
  const notes: Note[] = [];
  for (const call of s.calls) {
    // Most exchanges are reads with no wait pending: no key to build, nothing to look up.
    if (log.waits.size) notes.push(...retryNote(log, s, call));
    if (call.write) notes.push(...keyNotes(log, s, call));
  }
  if ((s.status === 429 || s.status === 503) && s.retryAfterS !== undefined) {
    for (const call of s.calls) log.rememberWait(`${s.who}\n${call.operation}`, { until: s.endedAt + s.retryAfterS * 1000, seconds: s.retryAfterS, status: s.status, at: s.endedAt, key: call.keyHash ?? null, fingerprint: call.fingerprint() });
  } else if (s.status < 400 && log.waits.size) {
    // An answer got through: the wait it was under is over, whatever its Retry-After said.
    for (const call of s.calls) log.waits.delete(`${s.who}\n${call.operation}`);
  }
  return notes;
}

/** No notes: one frozen list shared by every exchange that has none. */
export const NO_NOTES = Object.freeze([]) as unknown as Note[];

/**
 * What one exchange says by itself, whatever came before: its agent named no profile (an agent's
 * own traffic only), or named one the server refused. Made when the exchange is shown.
 */
export function exchangeNotes(transport: InspectorTransport, agentNamed: boolean, refusal: { code: string; content: string } | undefined): Note[] {
  if (AGENT_TRANSPORTS.has(transport) && !agentNamed) return [transport === 'mcp' ? AGENT_MISSING.mcp : AGENT_MISSING.rest];
  if (refusal) return [{ code: 'ucp_agent_unsupported', message: `The agent profile was refused (${refusal.code}): ${refusal.content.slice(0, 300)}` }];
  return NO_NOTES;
}
