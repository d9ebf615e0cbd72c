/**
 * Query limits for the GraphQL endpoint, and the depth validation rule that enforces one of them.
 *
 * Depth counts field nesting: `{ apiVersion }` is 1. Operations rooted at `__schema` / `__type` may go to
 * MAX_INTROSPECTION_DEPTH so the standard introspection query (depth 15 in graphql-js 16) keeps working;
 * every other selection is held to MAX_DEPTH.
 */
import { GraphQLError, Kind } from 'graphql';
import type { FragmentDefinitionNode, SelectionSetNode, ValidationRule } from 'graphql';

export const GRAPHQL_LIMITS = {
  /** Field nesting depth for ordinary selections. */
  maxDepth: 10,
  /** Field nesting depth for selections under `__schema` / `__type`. */
  maxIntrospectionDepth: 15,
  /** UTF-8 bytes of the `query` text. Larger → 400 with `errors` (code QUERY_TOO_LARGE). */
  maxQueryBytes: 10 * 1024,
  /** Bytes of a POST body (query + variables + extensions). Larger → 413 with `errors`. */
  maxBodyBytes: 64 * 1024,
  /** Lexer tokens in one document (guards the parser itself). */
  maxTokens: 5_000,
} as const;

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

/** [depth not counting introspection subtrees, depth counting everything] */
type Depths = readonly [plain: number, full: number];

export function depthLimitRule(maxDepth: number, maxIntrospectionDepth = maxDepth): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    // Fragment depth does not depend on where it is spread: memoise, so fragment "bombs" stay linear.
    const memo = new Map<string, Depths>();
    const inProgress = new Set<string>(); // cycles are reported by NoFragmentCyclesRule; count them as 0

    const depthOf = (set: SelectionSetNode | undefined): Depths => {
      if (!set) return [0, 0];
      let plain = 0;
      let full = 0;
      for (const sel of set.selections) {
        let d: Depths;
        if (sel.kind === Kind.FIELD) {
          const [p, f] = depthOf(sel.selectionSet);
          d = INTROSPECTION_ROOTS.has(sel.name.value) ? [1, 1 + f] : [1 + p, 1 + f];
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          d = depthOf(sel.selectionSet);
        } else {
          const name = sel.name.value;
          const frag = fragments.get(name);
          if (!frag || inProgress.has(name)) d = [0, 0];
          else if (memo.has(name)) d = memo.get(name)!;
          else {
            inProgress.add(name);
            d = depthOf(frag.selectionSet);
            inProgress.delete(name);
            memo.set(name, d);
          }
        }
        plain = Math.max(plain, d[0]);
        full = Math.max(full, d[1]);
      }
      return [plain, full];
    };

    return {
      OperationDefinition(node) {
        const [plain, full] = depthOf(node.selectionSet);
        if (plain > maxDepth) {
          context.reportError(
            new GraphQLError(`Query depth ${plain} exceeds the maximum depth of ${maxDepth}.`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_DEEP', maxDepth },
            }),
          );
        } else if (full > maxIntrospectionDepth) {
          context.reportError(
            new GraphQLError(
              `Introspection query depth ${full} exceeds the maximum depth of ${maxIntrospectionDepth}.`,
              { nodes: [node], extensions: { code: 'QUERY_TOO_DEEP', maxDepth: maxIntrospectionDepth } },
            ),
          );
        }
      },
    };
  };
}
