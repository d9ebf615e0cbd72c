/**
 * The storefront GraphQL schema (graphql-js, code-first). Built once at module load; `createSchema` exists
 * so tests can swap a resolver (e.g. one that fails) without touching the shared instance.
 */
import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { API_VERSION } from '../version.ts';

export interface QueryResolvers {
  /** The full current API version, e.g. `3.0.0`. */
  apiVersion: () => string | Promise<string>;
}

export const defaultResolvers: QueryResolvers = {
  apiVersion: () => API_VERSION,
};

export function createSchema(overrides: Partial<QueryResolvers> = {}): GraphQLSchema {
  const resolvers: QueryResolvers = { ...defaultResolvers, ...overrides };
  const Query = new GraphQLObjectType({
    name: 'Query',
    fields: {
      apiVersion: {
        type: new GraphQLNonNull(GraphQLString),
        description: "The current API version: the merchant API's major.minor plus the patch (e.g. `3.0.0`).",
        resolve: () => resolvers.apiVersion(),
      },
    },
  });
  return new GraphQLSchema({ query: Query });
}

/** The shared schema every supported path version is served with today. */
export const schema: GraphQLSchema = createSchema();
