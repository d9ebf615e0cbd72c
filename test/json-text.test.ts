/** JSON errors a person can act on (server/core/shared/json-text.ts): line and column, not V8's offset; one of the error family. */
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJsonText } from '../server/core/shared/json-text.ts';
import { DomainError, ERROR_CODES } from '../server/core/shared/errors.ts';
import { renderError } from '../server/http/errors.ts';
import { Hono } from 'hono';

const error = (text: string) => {
  try {
    parseJsonText(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e.message;
    throw e;
  }
  throw new Error('parsed');
};

describe('parseJsonText', () => {
  it('says the line and column of the mistake, without "position"', () => {
    // The reason is V8's own words, which changed between Node 20 and Node 22/24; the place is ours.
    expect(error('{\n  "a": 1,\n  "b" 2\n}')).toMatch(/^invalid JSON at line 3, column 7: (Unexpected number|Expected ':' after property name)$/);
    expect(error('{\n  "a": 1,\n}')).toMatch(/^invalid JSON at line 3, column 1: /);
    expect(error('{"a": [1, 2')).toMatch(/^invalid JSON at line 1, column 12: /);
    expect(error('')).toBe('invalid JSON at line 1, column 1: Unexpected end of JSON input');
    expect(error('{"a": 1}\nx')).not.toMatch(/position/);
  });

  it('names the unexpected token where it is when V8 gives no position (a CSV is wrong at line 1, not at its end)', () => {
    const csv = 'ID,Type,SKU,Name\n' + '1,simple,a,Mug\n'.repeat(25);
    expect(error(csv)).toBe("invalid JSON at line 1, column 1: Unexpected token 'I'");
    // Past the first 10 characters V8 quotes the text around the token: located from that quote.
    expect(error('{\n  "a": 1,\n  "b": x123456789012345\n}')).toBe("invalid JSON at line 3, column 8: Unexpected token 'x'");
    expect(error('{"aaaaaaaaaaaaaaaaaaaaaaaa": tru}')).toMatch(/^invalid JSON at line 1, column 33: /);
  });

  it('reads a file an editor saved with a byte order mark', () => {
    expect(parseJsonText('\ufeff{"a": 1}')).toEqual({ a: 1 });
  });

  it('is a DomainError (kind malformed, code invalid_json): an edge answers it 400 with the line and column', async () => {
    let thrown: unknown;
    try {
      parseJsonText('{\n  "a": 1,\n  "b" 2\n}');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ kind: 'malformed', code: ERROR_CODES.invalidJson, line: 3, column: 7 });
    const app = new Hono();
    app.get('/', () => {
      throw thrown;
    });
    app.onError(renderError);
    const res = await app.request('/');
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('invalid JSON at line 3, column 7');
  });
});
