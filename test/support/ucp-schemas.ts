/**
 * Validates responses against the official UCP 2026-04-08 JSON Schemas in ../shared/ucp-2026-04-08
 * (Ajv, draft 2020-12). The folder sits beside the repository on developer machines and in CI; the
 * project does not ship it. DIGEST.md §8: every schema is added by `$id`, strict mode is off for the
 * custom `ucp_request` keywords, and the profile schema gets a resolvable `$id`.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

export const SHARED_UCP = resolve(import.meta.dirname, '../../../shared/ucp-2026-04-08');
export const hasSchemas = existsSync(join(SHARED_UCP, 'schemas'));

const BASE = 'https://ucp.dev/schemas/';
export const PROFILE_ID = 'https://ucp.dev/discovery/profile_schema.json';

let ajv: InstanceType<typeof Ajv2020> | undefined;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : f.endsWith('.json') ? [p] : [];
  });
}

function load() {
  if (ajv) return ajv;
  const a = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (x: unknown) => void)(a);
  for (const file of walk(join(SHARED_UCP, 'schemas'))) a.addSchema(JSON.parse(readFileSync(file, 'utf8')));
  const profile = JSON.parse(readFileSync(join(SHARED_UCP, 'discovery/profile_schema.json'), 'utf8'));
  profile.$id = PROFILE_ID;
  a.addSchema(profile);
  ajv = a;
  return a;
}

/** `ref` is a schema id relative to https://ucp.dev/schemas/ (e.g. `shopping/cart.json`) or absolute. */
export function validateUcp(ref: string, data: unknown): string[] {
  if (!hasSchemas) return [];
  const a = load();
  const id = ref.startsWith('https://') ? ref : BASE + ref;
  const validate = a.getSchema(id);
  if (!validate) throw new Error(`no schema ${id}`);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Asserts `data` is valid against the official schema (no-op with a note when ../shared is absent). */
export function expectUcpValid(ref: string, data: unknown): void {
  expect(validateUcp(ref, data), `response must validate against ${ref}`).toEqual([]);
}
