/**
 * Where the request inspector keeps the texts of its exchanges (headers and bodies): one buffer
 * outside the JavaScript heap, written in the order exchanges are recorded, reused from its start
 * once full. So the bound on what the inspector holds is this buffer's size, and when it is reached
 * the oldest exchange, whatever its shop, is the one overwritten.
 *
 * Why not keep the strings themselves (issue 39 point 1): every exchange's answer and header list
 * kept alive for the next hundred requests survived the young generation's collections, and those
 * collections took two to four times as long with recording on (`--trace-gc`: 1.3-1.6 ms each
 * without, 4-6 ms with), the largest part of what the inspector cost a search. Copied here, the
 * strings die young like the rest of the request's; the copy is under a microsecond for a search's
 * answer.
 *
 * Positions are absolute (they only grow); `intact(start)` says whether the text written there has
 * been overwritten since. A run of texts never straddles the end: it starts again at the beginning.
 */

/**
 * Texts are kept as UTF-16, as V8 holds them: two bytes a character, and the copy is a memcpy or a
 * widening (measured: a 2 KB answer with one non-Latin-1 character, 0.4 µs against 1.0 µs as UTF-8).
 */
const BYTES_PER_CHAR = 2;

export class TextArena {
  private buffer: Buffer | undefined;
  /** Where the next text starts (absolute). */
  private end = 0;

  constructor(readonly size: number) {}

  /** Room for `chars` characters of text and `bytes` bytes in one run: returns where the run starts (absolute). */
  begin(chars: number, bytes = 0): number {
    const need = chars * BYTES_PER_CHAR + bytes;
    if (need > this.size) throw new RangeError(`an exchange's texts (${chars} characters, ${bytes} bytes) exceed the inspector's buffer`);
    const offset = this.end % this.size;
    if (offset + need > this.size) this.end += this.size - offset; // the tail left unused: start again at the beginning
    return this.end;
  }

  /** Appends UTF-8 `bytes` as they are (an answer sent as bytes); returns their length. */
  putBytes(bytes: Uint8Array): number {
    this.buffer ??= Buffer.allocUnsafeSlow(this.size);
    this.buffer.set(bytes, this.end % this.size);
    this.end += bytes.length;
    return bytes.length;
  }

  /** Appends `text` to the current run; returns its length in bytes. */
  put(text: string): number {
    // Allocated on first use: a development server that never records pays nothing.
    this.buffer ??= Buffer.allocUnsafeSlow(this.size);
    const n = text.length === 0 ? 0 : this.buffer.write(text, this.end % this.size, 'utf16le');
    this.end += n;
    return n;
  }

  /** The text written at `start` has not been overwritten since. */
  intact(start: number): boolean {
    return start >= this.end - this.size;
  }

  /** The text of `bytes` bytes at `start` (an intact one). */
  read(start: number, bytes: number): string {
    if (bytes === 0 || !this.buffer) return '';
    const offset = start % this.size;
    return this.buffer.toString('utf16le', offset, offset + bytes);
  }

  /** The UTF-8 text of `bytes` bytes at `start` (an intact one, written by putBytes). */
  readUtf8(start: number, bytes: number): string {
    if (bytes === 0 || !this.buffer) return '';
    const offset = start % this.size;
    return this.buffer.toString('utf8', offset, offset + bytes);
  }

  /** Bytes in use: what was written, up to the buffer's size. */
  used(): number {
    return Math.min(this.end, this.size);
  }
}
