/**
 * JSON Schemas for the OpenAPI documents, generated from zod schemas: request bodies from the ones
 * that validate the requests (src/wire for UCP, server/core for the merchant API), response bodies
 * from schemas held equal to the types the handlers return (server/ucp/response-schemas.ts,
 * server/merchant/response-schemas.ts). One source, so a document cannot drift from the server.
 * Request fields are described from src/wire/field-docs.ts, as in MCP `tools/list`.
 */
import * as z from 'zod/mini';
import { describeFields } from '../../src/wire/field-docs.ts';
import type { SameType } from '../../src/wire/common.ts';

export type JsonObject = Record<string, unknown>;

/** The request (input) side of a zod schema as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). */
export function requestSchema(schema: z.core.$ZodType, docsRoot?: string): JsonObject {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  return docsRoot === undefined ? rest : describeFields(rest, undefined, [docsRoot]);
}

/** Named response schemas: each `id` becomes `components.schemas[id]`. */
export type ComponentRegistry = z.core.$ZodRegistry<{ id: string; description?: string }>;

/**
 * Compile-time proof that a response schema's type is the type the code returns: `matches<typeof
 * CartSchema, Cart>(true)` does not compile when the two differ in any member.
 */
export const matches = <S extends z.core.$ZodType, T>(_same: SameType<z.output<S>, T>): void => undefined;

/** A reference to a named component schema. */
export const schemaRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/**
 * Response bodies are open (UCP objects are extensible, and a new field must not break a client
 * validating with the document), so zod's `additionalProperties: false` for closed objects is
 * dropped; so are the ±2^53 bounds zod writes for every integer, which say nothing to a reader.
 */
function openUp(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openUp);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'additionalProperties' && v === false) continue;
    if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
    out[k] = openUp(v);
  }
  return out;
}

/**
 * The output side of every schema `register` names, as `components.schemas`, with in-document
 * `$ref`s between them (a schema registered once is referenced wherever it is reused).
 */
export function componentSchemas(register: (r: ComponentRegistry) => void): Record<string, JsonObject> {
  const registry: ComponentRegistry = z.registry<{ id: string; description?: string }>();
  register(registry);
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => {
      const { $schema: _s, $id: _id, ...rest } = s as JsonObject;
      return [id, openUp(rest) as JsonObject];
    }),
  );
}

export const json = (schema: JsonObject, description?: string) => ({
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});
