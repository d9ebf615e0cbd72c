/**
 * `ucp-storefront import [options] FILE...` (docs/catalog-import.md): a platform's own export in, a
 * live shop out. Each file's format is detected from its content; the report says what was
 * created, updated, left unchanged and made unavailable, every row skipped and why, every column
 * not carried. `--dry-run` writes nothing and prints the same report.
 */
import { CatalogFileError } from '../../core/catalog/catalog-check.ts';
import { FORMATS, ImportParseError, type ImportFormat } from '../../import/adapter.ts';
import { explainOpen, fileSources, ImportRefused, runImport, type ImportResult } from '../../import/run.ts';
import { CliError, UsageError, required, type Command, type Io } from '../cli.ts';
import { withDb } from '../open.ts';
import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { Readable } from 'node:stream';
import { loadConfig } from '../../config.ts';
import { runningServer } from '../server-address.ts';
import { isFeedUrl } from '../../import/feed-fetch.ts';
import { formatEvery, importWithFeeds, MIN_EVERY_SECONDS, parseEvery } from '../../import/feeds.ts';

export const importCommand: Command = {
  name: 'import',
  summary: 'bring a shop\'s catalog in from Shopify, WooCommerce, a Google feed, schema.org JSON-LD or a catalog file',
  usage: `usage: ucp-storefront import --shop ID [options] FILE|URL [FILE|URL ...]

  FILE                  a Shopify product CSV, a WooCommerce product CSV, a Google Merchant Center
                        feed (RSS, Atom or tab-separated), a page or file of schema.org Product
                        JSON-LD, or a catalog file; the format is read from the content
  URL                   an http(s) URL of one of those: fetched with a conditional GET (304, not
                        modified: its products are left as they are); its sync source is the URL
  --every DURATION      with one URL: the running server imports it again every DURATION (15m,
                        1h, 1d; at least ${formatEvery(MIN_EVERY_SECONDS)}); see \`ucp-storefront feeds\`
  --shop ID             the shop to import into (created when new: give --domain)
  --domain HOST         a new shop's host name (shop.example.com)
  --name NAME           the shop's display name (new shop: default the domain)
  --currency CODE       ISO 4217 code the file's prices are in (new shop; default: what the file
                        says, else USD); an existing shop keeps its own
  --language TAG        the language the file's texts are in (BCP 47; default the shop's, else en)
  --storefront-url URL  the shop's own site: products link to their pages there (kept on the shop)
  --format FORMAT       force one of: ${FORMATS.join(', ')}
  --source NAME         the name re-imports are matched by (default: the format; a URL's: the URL)
  --partial             import only what the file lists: nothing becomes unavailable
  --allow-shrink        let this import make unavailable more of the source's products than the
                        file lists (refused without it: a file cut short looks like that)
  --dry-run             write nothing; print what would happen
  --json                print the report as one JSON object

  Importing the same source again is a sync: products are updated in place, unchanged ones not
  written, and products the source brought before and no longer lists become unavailable (not
  deleted). A file that cannot be parsed writes nothing and names its line.`,
  options: {
    shop: { type: 'string' },
    domain: { type: 'string' },
    name: { type: 'string' },
    currency: { type: 'string' },
    language: { type: 'string' },
    'storefront-url': { type: 'string' },
    format: { type: 'string' },
    source: { type: 'string' },
    partial: { type: 'boolean' },
    'allow-shrink': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    every: { type: 'string' },
  },
  positionals: true,
  async run({ values, positionals, io }) {
    required(values, 'shop');
    if (!positionals.length) throw new UsageError('no FILE or URL given');
    const opts = checkOptions(values);
    const every = checkEvery(values, positionals);
    // Before anything is opened: a mistyped name must not leave a new, empty database behind.
    for (const file of positionals.filter((p) => !isFeedUrl(p))) checkReadable(file);
    const config = loadConfig(io.env);
    const server = await runningServer(config, io);
    const result = server?.url && server.token ? await throughServer(server as { url: string; token: string }, positionals, values, opts, every) : await withDb(io, async (db, cfg) => {
      const common = { format: opts.format, shop: opts.shop, source: values.source, partial: values.partial, allowShrink: values['allow-shrink'], dryRun: values['dry-run'] };
      const urls = positionals.filter(isFeedUrl);
      try {
        if (urls.length) return await importWithFeeds(db, { ...common, urls, files: positionals.filter((p) => !isFeedUrl(p)), every, fetch: { mode: cfg.mode } });
        return await runImport(db, { sources: fileSources(positionals), ...common });
      } catch (e) {
        if (e instanceof ImportParseError || e instanceof ImportRefused) throw new CliError(e.message);
        if (e instanceof CatalogFileError) throw new CliError(`${e.message}${e.issues.map((i) => `\n  ${i.path}: ${i.content}`).join('')}`);
        throw e;
      }
    });
    if (values.json) io.out(JSON.stringify(jsonReport(result), null, 2));
    else printReport(io, result);
    return 0;
  },
};

function checkOptions(values: Record<string, any>) {
  if (values.format !== undefined && !FORMATS.includes(values.format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}; got '${values.format}'`);
  if (values.currency !== undefined && !/^[A-Z]{3}$/.test(values.currency)) throw new UsageError(`--currency must be an ISO 4217 code such as USD; got '${values.currency}'`);
  if (values.language !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(values.language)) throw new UsageError(`--language must be a BCP 47 tag such as en or fr-CA; got '${values.language}'`);
  const url = values['storefront-url'];
  if (url !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(url)) throw new UsageError(`--storefront-url must be an http(s) URL such as https://shop.example.com; got '${url}'`);
  if (values.domain !== undefined && !/^[a-z0-9.-]+(:\d+)?$/i.test(values.domain)) throw new UsageError(`--domain must be a host name such as shop.example.com; got '${values.domain}'`);
  return {
    format: values.format as ImportFormat | undefined,
    shop: { id: values.shop as string, domain: values.domain, name: values.name, currency: values.currency, language: values.language, storefrontUrl: url },
  };
}

/** --every: one URL, a duration of at least MIN_EVERY_SECONDS; in seconds. */
function checkEvery(values: Record<string, any>, positionals: string[]): number | undefined {
  if (values.every === undefined) return undefined;
  if (positionals.length !== 1 || !isFeedUrl(positionals[0])) throw new UsageError('--every schedules one feed: give exactly one http(s) URL');
  if (values['dry-run']) throw new UsageError('--every and --dry-run do not go together');
  const seconds = parseEvery(values.every);
  if (seconds === null) throw new UsageError(`--every must be a duration such as 15m, 1h or 1d; got '${values.every}'`);
  if (seconds < MIN_EVERY_SECONDS) throw new UsageError(`--every must be at least ${formatEvery(MIN_EVERY_SECONDS)}; got '${values.every}'`);
  return seconds;
}

/** The report of issue 45 point 6, in its field order (and the URLs', when there were any). */
export function jsonReport(r: ImportResult) {
  return { shop: r.shop, currency: r.currency, format: r.format, products: r.products, variants: r.variants, skipped: r.skipped, warnings: r.warnings, dropped_fields: r.dropped_fields, unchanged: r.unchanged, shop_created: r.shop_created, dry_run: r.dry_run, ...(r.feeds ? { feeds: r.feeds } : {}) };
}

function printReport(io: Io, r: ImportResult): void {
  const p = r.products;
  const verb = r.dry_run ? 'would import' : 'imported';
  // A new shop's currency is news: every price in the file was read in it, and one in another was skipped.
  io.out(`${verb} ${r.format} into shop ${r.shop}${r.shop_created ? ` (new, prices in ${r.currency})` : ''}${r.unchanged ? ': nothing changed' : ''}`);
  const rows: Array<[string, number]> = [['created', p.created], ['updated', p.updated], ['unchanged', p.unchanged], ['unavailable', p.unavailable], ['variants', r.variants], ['skipped', r.skipped.length]];
  for (const [k, n] of rows) io.out(`  ${k.padEnd(12)}${String(n).padStart(8)}`);
  for (const f of r.feeds ?? []) io.out(`${f.url}: ${f.not_modified ? 'not modified since the last import (304): left as it is' : 'fetched'}${f.every ? `; the server imports it again every ${f.every}` : ''}`);
  if (r.skipped.length) {
    io.out('skipped:');
    for (const s of r.skipped) io.out(`  ${s.ref}: ${s.reason}`);
  }
  if (r.warnings.length) {
    io.out('warnings:');
    for (const w of r.warnings) io.out(`  ${w}`);
  }
  const dropped = Object.entries(r.dropped_fields);
  if (dropped.length) {
    io.out('columns not carried (rows with a value):');
    for (const [c, n] of dropped) io.out(`  ${c}: ${n}`);
  }
}

/**
 * The embedded database is held by a running server: the file goes to it (server/control/routes.ts),
 * streamed, with the token it wrote into the directory's lock, and the server imports it with the
 * same code. One file per request: the server reads it as the whole of its source.
 */
async function throughServer(server: { url: string; token: string }, files: string[], values: Record<string, any>, opts: ReturnType<typeof checkOptions>, every?: number): Promise<ImportResult> {
  if (files.length > 1) throw new CliError(`a running server (${server.url}) holds the embedded database and takes one file or URL per import: import them one at a time with --source NAME each, or stop the server`);
  const feed = isFeedUrl(files[0]);
  const q = new URLSearchParams({ shop: opts.shop.id, [feed ? 'url' : 'file']: files[0] });
  const add = (k: string, v: unknown) => v !== undefined && v !== false && q.set(k, v === true ? '1' : String(v));
  add('domain', opts.shop.domain), add('name', opts.shop.name), add('currency', opts.shop.currency), add('language', opts.shop.language);
  add('storefront_url', opts.shop.storefrontUrl), add('format', opts.format), add('source', values.source), add('partial', values.partial), add('allow_shrink', values['allow-shrink']), add('dry_run', values['dry-run']);
  add('every', every);
  // A URL is fetched by the server (its mode's address rules), not sent.
  const body = feed ? undefined : await fileBody(files[0]);
  let res: Response;
  try {
    res = await fetch(`${server.url}/control/import?${q}`, { method: 'POST', body, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/octet-stream' }, ...(body ? { duplex: 'half' } : {}) } as RequestInit);
  } catch (e) {
    throw new CliError(`the running server at ${server.url} (recorded in DATA_DIR's lock) did not answer: ${(e as Error).message}`);
  }
  const answer = (await res.json().catch(() => ({}))) as ImportResult & { message?: string; issues?: Array<{ path: string; content: string }> };
  if (res.ok) return answer;
  throw new CliError(`${answer.message ?? `the server answered ${res.status}`}${(answer.issues ?? []).map((i) => `\n  ${i.path}: ${i.content}`).join('')}`);
}

async function fileBody(file: string): Promise<ReadableStream> {
  try {
    const stream = createReadStream(file);
    await new Promise<void>((ok, fail) => stream.once('readable', () => ok()).once('error', fail));
    return Readable.toWeb(stream) as ReadableStream;
  } catch (e) {
    throw unreadable(file, e);
  }
}

/** Throws the CliError `fileBody` would if `file` cannot be read as a file. */
function checkReadable(file: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (fstatSync(fd).isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
  } catch (e) {
    throw unreadable(file, e);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function unreadable(file: string, e: unknown): CliError {
  const why = explainOpen(file, e);
  return new CliError(why instanceof ImportParseError ? why.message : `${file}: ${why.message}`);
}
