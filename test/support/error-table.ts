/**
 * The one list of mistakes (docs/errors.md "One vocabulary"): the doc's table, read by
 * test/error-vocabulary.test.ts (REST, MCP, the typed client) and e2e/webmcp.spec.ts (the page's
 * tools), and the request bodies of the mistakes made by creating a cart, which both send.
 */
import { readFileSync } from 'node:fs';

export interface ErrorRow {
  mistake: string;
  code?: string;
  path?: string;
  severity?: string;
  restStatus: number;
  mcp: { kind: 'result'; isError: boolean; underArg: boolean } | { kind: 'error'; rpc: number; http: number };
}

const none = (cell: string) => (cell === '—' ? undefined : cell.replace(/`/g, ''));

/** The rows between the vocabulary markers of docs/errors.md. */
export function readErrorTable(): ErrorRow[] {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const block = doc.split('<!-- vocabulary:start -->')[1].split('<!-- vocabulary:end -->')[0];
  return block.trim().split('\n').slice(2).map((line) => {
    const [mistake, code, path, severity, rest, mcp] = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
    const rpc = /^error (-\d+), HTTP (\d+)/.exec(mcp);
    return {
      mistake,
      code: none(code),
      path: none(path),
      severity: none(severity),
      restStatus: Number(/^\d+/.exec(rest)![0]),
      mcp: rpc ? { kind: 'error', rpc: Number(rpc[1]), http: Number(rpc[2]) } : { kind: 'result', isError: mcp.includes('`isError`'), underArg: mcp.includes('under `$.cart`') },
    };
  });
}

/** A row's path as MCP and WebMCP give it: an input mistake's is rooted at the `cart` argument. */
export const mcpPath = (row: ErrorRow) => (row.path && row.mcp.kind === 'result' && row.mcp.underArg ? `$.cart${row.path.slice(1)}` : row.path);

const line = (id: string, quantity: unknown) => ({ line_items: [{ item: { id }, quantity }] });

/** The create_cart bodies of the rows made by creating a cart. */
export const CREATE_MISTAKES: Record<string, object> = {
  'unknown variant id on a cart line': line('var_nope', 1),
  'product id where a variant id belongs': line('prod_engraved_flask', 1),
  'quantity 0': line('var_tee_m_navy', 0),
  'quantity negative': line('var_tee_m_navy', -1),
  'quantity too big (1000; at most 999)': line('var_tee_m_navy', 1000),
  'quantity not an integer (1.5)': line('var_tee_m_navy', 1.5),
  'quantity over the stock left (9 of 3)': line('var_rain_shell_s_black', 9),
  'a sold-out variant': line('var_merino_s_navy', 1),
  'missing required customization': line('var_flask_steel', 1),
  'unknown discount code': { ...line('var_tee_m_navy', 1), discounts: { codes: ['NOPE'] } },
  'missing required field (`line_items`)': {},
};
