/** Types of pglite-durable.mjs (plain JavaScript: it runs in the database's worker thread). */
import { NodeFS } from '@electric-sql/pglite/nodefs';

export interface DiskSync {
  sync(paths: string[]): Promise<void>;
  close(): void;
}
export function fileSyncer(): DiskSync;
export class WalFlusher {
  constructor(disk?: DiskSync);
  writes: number;
  flushes: number;
  noteWrite(path: string): void;
  afterFlush(done: (error?: Error) => void): void;
  close(): void;
}
export class DurableNodeFS extends NodeFS {
  constructor(dataDir: string, flusher: WalFlusher);
}
export function durableStartParams(defaults: string[]): string[];
