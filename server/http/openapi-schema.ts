/**
 * JSON Schemas for the OpenAPI documents, generated from the zod schemas that validate the requests
 * (src/wire for UCP, server/core for the merchant API): one source, so a document cannot drift from
 * what the server accepts. Fields are described from src/wire/field-docs.ts, as in MCP `tools/list`.
 */
import * as z from 'zod/mini';
import { describeFields } from '../../src/wire/field-docs.ts';

export type JsonObject = Record<string, unknown>;

/** The request (input) side of a zod schema as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). */
export function requestSchema(schema: z.core.$ZodType, docsRoot?: string): JsonObject {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  return docsRoot === undefined ? rest : describeFields(rest, undefined, [docsRoot]);
}

export const json = (schema: JsonObject, description?: string) => ({
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});
