/**
 * The request inspector keeps its exchanges' texts in one buffer outside the JavaScript heap
 * (server/http/inspector/arena.ts): written in order, reused from the start once full, so the
 * oldest text is the one overwritten. What is read back is what was written, character for
 * character, and a text the writer has since come back over is known to be gone.
 */
import { describe, expect, it } from 'vitest';
import { TextArena } from '../server/http/inspector/arena.ts';
import { exchangesOf, KEEP_CHARS, logFor, nextExchangeId, type Recorded } from '../server/http/inspector/store.ts';

function write(arena: TextArena, ...texts: string[]): { start: number; bytes: number[] } {
  const start = arena.begin(texts.reduce((n, t) => n + t.length, 0));
  return { start, bytes: texts.map((t) => arena.put(t)) };
}

describe('the text arena', () => {
  it('reads back what was written: ASCII, Latin-1, emoji, a lone surrogate, empty text', () => {
    const arena = new TextArena(4096);
    const texts = ['{"q":"tee"}', 'crème brûlée — 5 €', '👕🧦', 'a\uD800b', ''];
    const { start, bytes } = write(arena, ...texts);
    let at = start;
    for (const [i, t] of texts.entries()) {
      expect(arena.read(at, bytes[i])).toBe(t);
      at += bytes[i];
    }
  });

  it('a run that does not fit at the end starts again at the beginning, whole', () => {
    const arena = new TextArena(100); // 50 characters
    const first = write(arena, 'x'.repeat(30)); // bytes 0-59
    const second = write(arena, 'y'.repeat(10)); // 60-79
    const third = write(arena, 'z'.repeat(15)); // 30 bytes: not in 80-99, so 100-129 (offset 0)
    expect(third.start).toBe(100);
    expect(arena.read(third.start, third.bytes[0])).toBe('z'.repeat(15));
    expect(arena.intact(third.start)).toBe(true);
    expect(arena.intact(second.start)).toBe(true); // 60-79 not reached yet
    expect(arena.intact(first.start)).toBe(false); // 0-29 written over
    expect(arena.read(second.start, second.bytes[0])).toBe('y'.repeat(10));
    expect(arena.used()).toBe(100);
  });

  it('the oldest goes first: after a lap, only the runs the writer has not come back over are intact', () => {
    const arena = new TextArena(1000);
    const runs = Array.from({ length: 40 }, (_, i) => write(arena, String(i).padStart(20, '0'))); // 40 bytes each
    const intact = runs.filter((r) => arena.intact(r.start)).map((r) => runs.indexOf(r));
    expect(intact).toEqual(Array.from({ length: 25 }, (_, i) => 15 + i)); // the newest 25 of 40 fit in 1,000 bytes
    for (const i of intact) expect(arena.read(runs[i].start, 40)).toBe(String(i).padStart(20, '0'));
  });

  it('refuses a run larger than itself, and has allocated nothing before its first text', () => {
    const arena = new TextArena(10);
    expect(() => arena.begin(6)).toThrow(RangeError);
    expect(arena.used()).toBe(0);
    expect(arena.read(0, 0)).toBe('');
  });
});

describe('an exchange read back from the arena', () => {
  const recorded = (over: Partial<Recorded>): Recorded => ({ id: nextExchangeId(), at: Date.now(), method: 'POST', path: '/api/ucp/catalog/search', operation: 'search_catalog', status: 200, durationMs: 1, requestHeaders: [], responseHeaders: {}, requestBody: null, responseBody: null, notes: [], ...over });

  it('shows its headers as sent: an empty value, a repeat (joined as HTTP joins it), `__proto__` as a name, every kind of answer headers', () => {
    const cases: Array<Recorded['responseHeaders']> = [{ 'content-type': 'application/json', etag: '"v1"' }, [['content-type', 'application/json'], ['etag', '"v1"']], new Headers({ 'content-type': 'application/json', etag: '"v1"' })];
    for (const responseHeaders of cases) {
      logFor('shop_arena_headers', 'headers.test').add(recorded({ requestHeaders: ['Host', 'demo.localhost', 'X-Empty', '', 'Accept', 'a', 'Accept', 'b', '__proto__', 'p'], responseHeaders, requestBody: '{"query":"tee"}', responseBody: '{"products":[]}' }));
      const [x] = exchangesOf('shop_arena_headers', { limit: 1 });
      expect(x.request.headers).toMatchObject({ host: 'demo.localhost', 'x-empty': '' });
      expect(x.request.headers.accept).toBe('a, b');
      expect(Object.entries(x.request.headers)).toContainEqual(['__proto__', 'p']);
      expect(x.response.headers).toMatchObject({ 'content-type': 'application/json', etag: '"v1"' });
      expect([x.request.body, x.response.body]).toEqual(['{"query":"tee"}', '{"products":[]}']);
    }
  });

  it('an answer sent as UTF-8 bytes (REST JSON) reads back as its text does: short, non-ASCII, and cut past KEEP_CHARS at a multi-byte character', () => {
    const long = (fill: string) => JSON.stringify({ products: [{ title: fill.repeat(Math.ceil((KEEP_CHARS + 50) / fill.length)) }] });
    const answers = ['{"products":[]}', '{"title":"Café ✓ 😀 \\u2028"}', long('é'), long('✓'), long('😀'), long('a')];
    for (const answer of answers) {
      const log = logFor('shop_arena_bytes', 'bytes.test');
      log.add(recorded({ responseBody: answer }));
      log.add(recorded({ responseBody: Buffer.from(answer) }));
      const [asBytes, asText] = exchangesOf('shop_arena_bytes', { limit: 2 });
      expect({ ...asBytes.response, headers: undefined }).toEqual({ ...asText.response, headers: undefined });
      expect(asBytes.version).toEqual(asText.version);
    }
  });

  it('a REST exchange says who sent it from its own headers: agent, key, transport, and the note when no profile was named', () => {
    const origin = 'http://demo.localhost:8080';
    logFor('shop_arena_who', 'who.test').add(recorded({ origin, requestHeaders: ['UCP-Agent', 'profile="https://agent.example/p.json"', 'Idempotency-Key', 'k-1'] }));
    logFor('shop_arena_who', 'who.test').add(recorded({ origin, requestHeaders: ['Authorization', 'Bearer sft_abc', 'UCP-Inspector-Transport', 'webmcp'] }));
    logFor('shop_arena_who', 'who.test').add(recorded({ origin, requestHeaders: ['Referer', `${origin}/cart/abc`] }));
    logFor('shop_arena_who', 'who.test').add(recorded({ origin, requestHeaders: ['Accept', '*/*'] }));
    const [bare, embedded, webmcp, agent] = exchangesOf('shop_arena_who', { limit: 4 });
    expect(agent).toMatchObject({ transport: 'rest', agent: 'https://agent.example/p.json', idempotency_key: 'k-1', notes: [] });
    expect(webmcp).toMatchObject({ transport: 'webmcp', agent: null, notes: [] });
    expect(embedded).toMatchObject({ transport: 'embedded', notes: [] });
    expect(bare).toMatchObject({ transport: 'rest', agent: null, notes: [{ code: 'ucp_agent_missing' }] });
  });
});
