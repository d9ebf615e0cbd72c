/**
 * Catalog files on disk, as the seed command, the demo data and reset read them: a directory
 * stands for the `.json` files in it, and a file that cannot be read or parsed says why in words a
 * person acts on ("no such file", "invalid JSON at line 3, column 6: …"), not as Node's raw
 * `ENOENT` or V8's character offset.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonText } from '../core/shared/json-text.ts';
import type { CatalogSource } from '../core/catalog/catalog-load.ts';

/** One source per file: a directory's `.json` files directly in it, in natural name order (shop_2 before shop_10). */
export function catalogSources(paths: string[]): CatalogSource[] {
  return paths.flatMap((path) => {
    let directory = false;
    try {
      directory = statSync(path).isDirectory();
    } catch {
      // Missing or unreadable: reading it says which.
    }
    if (!directory) return [fileSource(path)];
    const files = readdirSync(path)
      .filter((f) => f.endsWith('.json'))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    if (!files.length) return [{ name: path, read: () => fail('a directory with no .json files in it') }];
    return files.map((f) => fileSource(join(path, f)));
  });
}

export function fileSource(path: string): CatalogSource {
  return { name: path, read: () => readCatalogJson(path) };
}

/** The file's JSON document; throws an Error whose message is one line about the file. */
export function readCatalogJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') fail('no such file');
    if (code === 'EACCES' || code === 'EPERM') fail('permission denied');
    if (code === 'EISDIR') fail('a directory, not a file');
    fail(`cannot be read (${code ?? (e as Error).message})`);
  }
  return parseJsonText(text);
}

function fail(message: string): never {
  throw new Error(message);
}
