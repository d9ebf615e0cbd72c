/**
 * Progress of long CLI work (a 20,000-product catalog takes tens of seconds to load): on a terminal a
 * cli-progress bar with counts, rate and ETA on stderr; otherwise (CI logs, pipes, `--json`) plain
 * lines on stderr at every tenth of the work, so stdout stays the command's result.
 */
import { SingleBar, Presets } from 'cli-progress';
import type { Io } from './cli.ts';

export interface Progress {
  update(done: number, total: number): void;
  /** What the work is doing now, when counts alone would look stuck (e.g. a final merge). */
  note(text: string): void;
  stop(): void;
}

export function progress(io: Io, label: string): Progress {
  if (io.isTTY && io.stream) {
    const bar = new SingleBar(
      { format: `${label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted} | {duration_formatted}{note}`, stream: io.stream, hideCursor: true, etaBuffer: 20, fps: 10 },
      Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        if (!started) bar.start(total, 0, { note: '' });
        started = true;
        bar.setTotal(total);
        bar.update(done);
      },
      note: (text) => started && bar.update({ note: ` | ${text}` }),
      stop: () => started && bar.stop(),
    };
  }
  let next = 0;
  const t0 = Date.now();
  return {
    update(done, total) {
      if (done < next && done < total) return;
      next = done + Math.max(1, Math.ceil(total / 10));
      io.err(`${label}: ${done}/${total} (${Math.floor((done / Math.max(1, total)) * 100)}%, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    },
    note: (text) => io.err(`${label}: ${text} (${((Date.now() - t0) / 1000).toFixed(1)} s)`),
    stop() {},
  };
}
