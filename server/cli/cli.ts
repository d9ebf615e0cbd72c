/**
 * The frame every `ucp-storefront` command runs in (docs/cli.md): argument parsing with node:util
 * parseArgs (strict: an unknown option or a missing value is a usage error), `--help` / `-h` on
 * every command, `--json` for scripts, lists that print a header row or `none`, and one rule for
 * exit codes: 0 done, 1 the work failed, 2 a usage mistake (usage printed on stderr).
 * Output goes through an `Io` so tests run commands in-process and read what they printed.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** stderr is a terminal (progress bars); otherwise progress is plain lines. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Where progress bars draw (a terminal stream); absent in tests. */
  stream?: NodeJS.WriteStream;
  /** Ends a command that runs until stopped (`requests --follow`); the process's own run ends on Ctrl-C. */
  signal?: AbortSignal;
  /** Everything on standard input, read to its end (`owners create --password-stdin`); absent: no input. */
  stdin?: () => Promise<string>;
}

/** Most standard input a command reads (a password, a line of text). */
export const STDIN_LIMIT = 64 * 1024;

/** Reads `stream` to its end, as UTF-8; more than STDIN_LIMIT bytes is a CliError. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > STDIN_LIMIT) throw new CliError(`standard input is longer than ${STDIN_LIMIT} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One line from the command's standard input: its end-of-line (`\n` or `\r\n`) removed, nothing else. */
export async function readStdinLine(io: Io): Promise<string> {
  if (!io.stdin) throw new CliError('no standard input to read from');
  return (await io.stdin()).replace(/\r?\n$/, '');
}

export const processIo = (): Io => ({
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  isTTY: !!process.stderr.isTTY,
  env: process.env,
  stream: process.stderr,
  stdin: () => readAll(process.stdin),
});

/** A usage mistake: its message and the command's usage go to stderr, exit code 2. */
export class UsageError extends Error {}
/** A failure worth one line (no stack trace): exit code 1. */
export class CliError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full usage text (first line `usage: ucp-storefront NAME …`). */
  usage: string;
  options: Options;
  /** Positional arguments allowed (default none). */
  positionals?: boolean;
  run(args: { values: Record<string, any>; positionals: string[]; io: Io }): Promise<number | void>;
}

export const COMMON_OPTIONS: Options = { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } };

/** Parses argv for `cmd`; throws UsageError on anything parseArgs refuses. */
export function parse(cmd: Command, argv: string[]) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...cmd.options }, allowPositionals: !!cmd.positionals, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, '.'));
  }
}

/** Prints rows as an aligned table with a header row, or `none`; `--json` prints the rows as JSON. */
export function printList(io: Io, json: boolean, columns: Array<[key: string, header: string]>, rows: Array<Record<string, unknown>>): void {
  if (json) return io.out(JSON.stringify(rows, null, 2));
  if (!rows.length) return io.out('none');
  const cell = (v: unknown) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v));
  const table = [columns.map(([, h]) => h), ...rows.map((r) => columns.map(([k]) => cell(r[k])))];
  const widths = columns.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) io.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
}

/** Prints one record as `key: value` lines, or JSON with `--json`. */
export function printRecord(io: Io, json: boolean, record: Record<string, unknown>, notes: string[] = []): void {
  if (json) return io.out(JSON.stringify(record, null, 2));
  const width = Math.max(...Object.keys(record).map((k) => k.length)) + 1;
  for (const [k, v] of Object.entries(record)) if (v !== undefined) io.out(`${`${k}:`.padEnd(width)} ${Array.isArray(v) ? v.join(' ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
  for (const n of notes) io.out(n);
}

/** The first positional as a subcommand among `allowed`. */
export function subcommand(positionals: string[], allowed: string[]): string {
  const [sub, ...rest] = positionals;
  if (!sub) throw new UsageError(`missing subcommand (one of: ${allowed.join(', ')})`);
  if (!allowed.includes(sub)) throw new UsageError(`unknown subcommand '${sub}' (one of: ${allowed.join(', ')})`);
  if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
  return sub;
}

export function required(values: Record<string, unknown>, ...names: string[]): void {
  for (const n of names) if (values[n] === undefined || values[n] === '') throw new UsageError(`--${n} is required`);
}
