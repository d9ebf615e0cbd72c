/**
 * PostgreSQL's text form of a `tsquery` (what `websearch_to_tsquery(...)::text` prints), read into a
 * tree the in-memory search index evaluates. PostgreSQL stays the tokenizer and stemmer: the index
 * asks it once per distinct query (catalog-index.ts memoizes), so English and French stemming,
 * stop words and the parser's idea of a word are exactly the database's.
 *
 * The grammar PostgreSQL prints (tsqueryout): operands `'lexeme'` with `''` for a quote and `\` before
 * a backslash, optional `:*` (prefix) and weights `:AB`; `!` binds tightest, then `<->`/`<N>`
 * (phrase), `&`, `|`; parentheses where the tree needs them. An empty query prints as nothing.
 */

export type TsQuery =
  | { op: 'term'; lexeme: string }
  | { op: 'not'; arg: TsQuery }
  | { op: 'and' | 'or'; args: [TsQuery, TsQuery] };

/**
 * The tree, `null` for an empty query (matches nothing), or `'positional'` when the query uses a
 * phrase operator, a prefix or weights: those need lexeme positions, which the index does not keep,
 * so such a query is answered by the database (search keeps both paths).
 */
export function parseTsQuery(text: string): TsQuery | null | 'positional' {
  let i = 0;
  let positional = false;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const fail = (): never => {
    throw new Error(`unreadable tsquery at ${i}: ${text}`);
  };

  function operand(): TsQuery {
    skip();
    if (text[i] === '!') {
      i++;
      return { op: 'not', arg: operand() };
    }
    if (text[i] === '(') {
      i++;
      const inner = or();
      skip();
      if (text[i] !== ')') fail();
      i++;
      return inner;
    }
    if (text[i] !== "'") fail();
    i++;
    let lexeme = '';
    for (;;) {
      const c = text[i++];
      if (c === undefined) fail();
      if (c === '\\') lexeme += text[i++] ?? fail();
      else if (c === "'") {
        if (text[i] !== "'") break;
        lexeme += "'";
        i++;
      } else lexeme += c;
    }
    if (text[i] === ':') {
      positional = true; // prefix match or weights
      i++;
      while (/[*A-Da-d]/.test(text[i] ?? '')) i++;
    }
    return { op: 'term', lexeme };
  }

  function phrase(): TsQuery {
    let left = operand();
    for (;;) {
      skip();
      const m = /^<(-|\d+)>/.exec(text.slice(i));
      if (!m) return left;
      i += m[0].length;
      positional = true;
      left = { op: 'and', args: [left, operand()] };
    }
  }

  function binary(op: 'and' | 'or', sign: string, next: () => TsQuery): TsQuery {
    let left = next();
    for (;;) {
      skip();
      if (text[i] !== sign) return left;
      i++;
      left = { op, args: [left, next()] };
    }
  }
  const and = () => binary('and', '&', phrase);
  const or = (): TsQuery => binary('or', '|', and);

  skip();
  if (i === text.length) return null;
  const tree = or();
  skip();
  if (i !== text.length) fail();
  return positional ? 'positional' : tree;
}
