// @ts-check
/**
 * Durable commits for the embedded database, batched by group commit.
 *
 * PGlite runs PostgreSQL with `fsync` off (`-F`), and its Emscripten file layer turns every
 * `fsync`/`fdatasync` into a no-op: a commit reaches the operating system's page cache (it survives
 * `kill -9`) but not the disk, so a power loss or OS crash could lose carts we had acknowledged.
 * Two parts fix that without paying one disk flush per commit:
 *
 * 1. `DurableNodeFS` gives the mounted data directory a real `fsync` and starts PostgreSQL with
 *    `fsync` on. PostgreSQL then flushes data files, the control file and new WAL segments itself
 *    wherever its own rules say (checkpoints), so no acknowledged WAL is recycled before the pages
 *    it protects are on disk. Its per-commit WAL flush uses `wal_sync_method = fdatasync`, which
 *    stays a no-op here on purpose: part 2 does it for many commits at once.
 * 2. `WalFlusher` watches which WAL segment files PostgreSQL writes (a commit writes its WAL record
 *    before it returns) and the worker holds the reply of every statement that wrote WAL and left
 *    no transaction open (pglite-worker.mjs) until an `fdatasync` of those files, started after the
 *    write, has finished. Flushes run back to back: while one is on the disk, new commits gather for
 *    the next one (adaptive group commit), so under load one flush acknowledges many commits, and an
 *    idle database pays one flush per commit.
 *
 * Statements that wrote no WAL (reads) are answered at once. A reader may therefore see a commit
 * up to one flush before that commit is durable; the writer is never told "done" before it is.
 * Measured in docs/benchmarks.md; the flush calls are counted with strace in
 * test/durable-commit.test.ts.
 */
import fs from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** @param {string} path @param {number} flags */
const open = (path, flags) => new Promise((resolve, reject) => fs.open(path, flags, (e, fd) => (e ? reject(e) : resolve(fd))));
/** @param {number} fd */
const fdatasync = (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (e) => (e ? reject(e) : resolve(undefined))));

/**
 * `fdatasync` for a set of files, keeping the descriptors of the files synced last time open (a
 * WAL segment takes many commits before the next one starts).
 */
export function fileSyncer() {
  /** @type {Map<string, number>} */
  const fds = new Map();
  /** @param {string} path */
  const syncOne = async (path) => {
    let fd = fds.get(path);
    if (fd === undefined) {
      try {
        fd = /** @type {number} */ (await open(path, fs.constants.O_RDWR));
      } catch (e) {
        // A segment removed since it was written was recycled by a checkpoint, which flushed it.
        if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return;
        throw e;
      }
      fds.set(path, fd);
    }
    await fdatasync(fd);
  };
  return {
    /** @param {string[]} paths */
    async sync(paths) {
      await Promise.all(paths.map(syncOne));
      for (const [path, fd] of fds) {
        if (!paths.includes(path)) {
          fds.delete(path);
          fs.close(fd, () => {});
        }
      }
    },
    close() {
      for (const fd of fds.values()) fs.close(fd, () => {});
      fds.clear();
    },
  };
}

export class WalFlusher {
  /** WAL files written since the last flush began (real paths). */
  #dirty = new Set();
  /** @type {Array<(error?: Error) => void>} replies waiting for the next flush */
  #waiting = [];
  #flushing = false;
  #disk;
  /**
   * Set by a failed flush, for good: after a failed fdatasync the kernel may have dropped the dirty
   * pages, so no later flush can vouch for them (PostgreSQL stops on this too). Every later write
   * fails instead of being acknowledged.
   * @type {Error | undefined}
   */
  #broken;
  /** WAL writes seen so far: a statement wrote WAL if this moved while it ran. */
  writes = 0;
  /** Completed flushes (group commits), for tests and benchmarks. */
  flushes = 0;
  /** Completed flushes by the number of commits each acknowledged (/metrics: ucp_db_group_commit_size). @type {Map<number, number>} */
  sizes = new Map();

  /** @param {{ sync(paths: string[]): Promise<void>, close(): void }} disk */
  constructor(disk = fileSyncer()) {
    this.#disk = disk;
  }

  /** @param {string} path */
  noteWrite(path) {
    this.#dirty.add(path);
    this.writes += 1;
  }

  /**
   * Calls `done` once every WAL byte written before this call is on stable storage, or with the
   * error that stopped the flush (the caller must then not report success).
   * @param {(error?: Error) => void} done
   */
  afterFlush(done) {
    if (this.#broken) return done(this.#broken);
    this.#waiting.push(done);
    if (!this.#flushing) void this.#run();
  }

  async #run() {
    this.#flushing = true;
    // Back to back: what arrived during one flush goes in the next, started right after it.
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      const paths = [...this.#dirty];
      this.#dirty.clear();
      /** @type {Error | undefined} */
      let failure = this.#broken;
      if (!failure) {
        try {
          await this.#disk.sync(paths);
          this.flushes += 1;
          this.sizes.set(batch.length, (this.sizes.get(batch.length) ?? 0) + 1);
        } catch (e) {
          failure = this.#broken = e instanceof Error ? e : new Error(String(e));
        }
      }
      for (const done of batch) done(failure);
    }
    this.#flushing = false;
  }

  close() {
    this.#disk.close();
  }
}

/** PGlite's node filesystem with a real fsync and WAL writes reported to `flusher`. */
export class DurableNodeFS extends NodeFS {
  /** @param {string} dataDir @param {WalFlusher} flusher */
  constructor(dataDir, flusher) {
    super(dataDir);
    this.flusher = flusher;
  }

  /** @param {any} pg @param {any} opts */
  async init(pg, opts) {
    const result = await super.init(pg, opts);
    const flusher = this.flusher;
    result.emscriptenOpts.preRun.push((/** @type {any} */ mod) => {
      const nodefs = mod.NODEFS;
      const ops = nodefs.stream_ops;
      const write = ops.write;
      ops.fsync = (/** @type {any} */ stream) => {
        fs.fsyncSync(stream.nfd);
        return 0;
      };
      ops.write = function (/** @type {any} */ stream, /** @type {any[]} */ ...args) {
        const n = write.call(this, stream, ...args);
        if (typeof stream.path === 'string' && stream.path.includes('/pg_wal/')) flusher.noteWrite(nodefs.realPath(stream.node));
        return n;
      };
    });
    return result;
  }
}

/**
 * PGlite's start parameters with `fsync` on (its default `-F` removed) and the per-commit WAL flush
 * left to the WalFlusher.
 * @param {string[]} defaults
 */
export function durableStartParams(defaults) {
  return [...defaults.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fdatasync'];
}
