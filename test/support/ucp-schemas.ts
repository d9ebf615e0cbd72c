/**
 * Validates responses against the official UCP JSON Schemas: 2026-04-08 (the seed's) in
 * ../shared/ucp-2026-04-08 and 2026-08-25 in ../shared/ucp-2026-08-25 (Ajv, draft 2020-12). The folder sits beside the repository on developer machines and in CI; the
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

/**
 * UCP 2026-08-25 (issue 37): its own Ajv instance, since both releases use the same version-less
 * `$id`s. The profile schema is `profile.json` under schemas/ there (defs `business_schema`,
 * `platform_schema`).
 */
export const SHARED_UCP_2026_08_25 = resolve(import.meta.dirname, '../../../shared/ucp-2026-08-25');
export const hasSchemas20260825 = existsSync(join(SHARED_UCP_2026_08_25, 'schemas'));
export const PROFILE_2026_08_25 = 'https://ucp.dev/schemas/profile.json';
let ajvNext: InstanceType<typeof Ajv2020> | undefined;

function loadNext() {
  if (ajvNext) return ajvNext;
  const a = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (x: unknown) => void)(a);
  for (const file of walk(join(SHARED_UCP_2026_08_25, 'schemas'))) a.addSchema(JSON.parse(readFileSync(file, 'utf8')));
  ajvNext = a;
  return a;
}

/** Like validateUcp, against the 2026-08-25 schemas (no errors when ../shared/ucp-2026-08-25 is absent). */
export function validateUcp20260825(ref: string, data: unknown): string[] {
  if (!hasSchemas20260825) return [];
  const id = ref.startsWith('https://') ? ref : BASE + ref;
  const validate = loadNext().getSchema(id);
  if (!validate) throw new Error(`no schema ${id}`);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

export function expectUcp20260825Valid(ref: string, data: unknown): void {
  expect(validateUcp20260825(ref, data), `response must validate against 2026-08-25 ${ref}`).toEqual([]);
}
