/** JSON errors a person can act on (server/lib/json-text.ts): line and column, not V8's offset. */
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJsonText } from '../server/lib/json-text.ts';

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
    expect(error('{\n  "a": 1,\n  "b" 2\n}')).toBe('invalid JSON at line 3, column 7: Unexpected number');
    expect(error('{\n  "a": 1,\n}')).toMatch(/^invalid JSON at line 3, column 1: /);
    expect(error('{"a": [1, 2')).toMatch(/^invalid JSON at line 1, column 12: /);
    expect(error('')).toBe('invalid JSON at line 1, column 1: Unexpected end of JSON input');
    expect(error('{"a": 1}\nx')).not.toMatch(/position/);
  });

  it('reads a file an editor saved with a byte order mark', () => {
    expect(parseJsonText('\ufeff{"a": 1}')).toEqual({ a: 1 });
  });
});
