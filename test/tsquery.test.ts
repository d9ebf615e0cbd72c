/**
 * server/core/search/tsquery.ts reads PostgreSQL's text form of a tsquery: operators by precedence, quoting
 * and escapes, and the positional forms (phrases, prefixes, weights) it leaves to the database.
 */
import { describe, expect, it } from 'vitest';
import { parseTsQuery } from '../server/core/search/tsquery.ts';

const t = (lexeme: string) => ({ op: 'term', lexeme });

describe('parseTsQuery', () => {
  it('reads terms, not, and, or with PostgreSQL precedence (! > & > |) and parentheses', () => {
    expect(parseTsQuery("'flask'")).toEqual(t('flask'));
    expect(parseTsQuery("'a' | 'b' & !'c'")).toEqual({ op: 'or', args: [t('a'), { op: 'and', args: [t('b'), { op: 'not', arg: t('c') }] }] });
    expect(parseTsQuery("( 'a' | 'b' ) & 'c'")).toEqual({ op: 'and', args: [{ op: 'or', args: [t('a'), t('b')] }, t('c')] });
    expect(parseTsQuery("!( 'a' & 'b' )")).toEqual({ op: 'not', arg: { op: 'and', args: [t('a'), t('b')] } });
    expect(parseTsQuery("'a' & 'b' & 'c'")).toEqual({ op: 'and', args: [{ op: 'and', args: [t('a'), t('b')] }, t('c')] });
  });

  it('unquotes doubled quotes and backslash escapes', () => {
    expect(parseTsQuery("'it''s'")).toEqual(t("it's"));
    expect(parseTsQuery("'a\\\\b'")).toEqual(t('a\\b'));
    expect(parseTsQuery("'café' & 'crème'")).toEqual({ op: 'and', args: [t('café'), t('crème')] });
  });

  it('an empty query is null: it matches nothing', () => {
    expect(parseTsQuery('')).toBeNull();
    expect(parseTsQuery('  ')).toBeNull();
  });

  it('phrases, prefixes and weights need positions: left to the database', () => {
    expect(parseTsQuery("'t-shirt' <-> 't' <-> 'shirt'")).toBe('positional');
    expect(parseTsQuery("'a' <2> 'b' | 'c'")).toBe('positional');
    expect(parseTsQuery("'flas':*")).toBe('positional');
    expect(parseTsQuery("'flask':AB & 'steel'")).toBe('positional');
  });

  it('refuses text that is not a tsquery, rather than guessing', () => {
    for (const bad of ["'unterminated", "'a' &", "'a' 'b'", '( \'a\'', 'flask']) expect(() => parseTsQuery(bad), bad).toThrow(/unreadable tsquery/);
  });
});
