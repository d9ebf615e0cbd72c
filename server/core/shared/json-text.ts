/**
 * JSON.parse for files people edit: a syntax error says where it is as a line and column (an
 * editor's "go to line"), not V8's character offset ("at position 5000"). A leading UTF-8 byte order
 * mark, which some editors write, is not an error.
 */
import { DomainError, ERROR_CODES } from './errors.ts';

/**
 * A JSON text that does not parse, with where (1-based line and column, counted in characters).
 * One of the error family (kind `malformed`, code `invalid_json`, as a request body that is not
 * JSON): a catalog file read by `seed` today, and whatever edge reads one tomorrow answers it from
 * its table (400 on REST) instead of as an internal error.
 */
export class JsonSyntaxError extends DomainError {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    const message = `invalid JSON at line ${line}, column ${column}: ${reason}`;
    super('malformed', ERROR_CODES.invalidJson, message, [{ path: '$', code: ERROR_CODES.invalidJson, content: message }]);
  }
}

export function parseJsonText(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (e) {
    const message = (e as Error).message;
    // V8 names an offset ("… in JSON at position 16", newer versions add "(line 3 column 6)"), or
    // none when the text ends early ("Unexpected end of JSON input"): that is the end of the text.
    const at = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
    const offset = at ? Number(at[1]) : (tokenOffset(message, body) ?? body.length);
    const reason = (at ? message.slice(0, at.index) + message.slice(at.index + at[0].length) : message).replace(/ in JSON$/, '').replace(/^(Unexpected token '.'), [\s\S]* is not valid JSON$/, '$1').trim();
    const { line, column } = lineAndColumn(body, offset);
    throw new JsonSyntaxError(reason || 'not JSON', line, column);
  }
}

/**
 * Where an "Unexpected token" is when V8 names no position (`Unexpected token 'I', "ID,Type,SK"...
 * is not valid JSON`): it quotes the text around the token, 10 characters each side, with `...`
 * where it cut. Without this, a CSV handed to a JSON reader was said to fail at its last line.
 */
function tokenOffset(message: string, body: string): number | undefined {
  const m = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(message);
  if (!m) return undefined;
  const [, token, cutBefore, snippet, cutAfter] = m;
  if (cutBefore) {
    const start = body.indexOf(snippet);
    return start < 0 ? undefined : start + 10;
  }
  if (cutAfter) return snippet.length - 10;
  const i = snippet.indexOf(token);
  return i < 0 ? undefined : i;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}
