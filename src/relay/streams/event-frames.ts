/**
 * Cutting relayed SSE bytes into whole blocks (an event or a comment, each ended by a blank line) and
 * giving each event its resume id. A resumable stream needs both: an event can only be numbered, kept
 * and replayed once it is whole. Works on bytes (no decoding), carries its state across chunks, and
 * follows the SSE line rules: a line ends with LF, CR or CRLF (a CRLF may be cut between two chunks).
 *
 * A block with at least one field line (not a `:` comment) is an event and gets `id: <streamId>:<seq>`
 * as its LAST line (so it is the id a parser keeps, even if the upstream sent one); nothing else of its
 * bytes changes. Comment blocks (`: ping`) pass unchanged and get no id.
 */
import { joinBytes } from '../bytes.js';

const LF = 10;
const CR = 13;
const COLON = 58;
const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

/** One whole block: its bytes and whether it is an event (has a field line). */
export interface Frame {
  bytes: Uint8Array;
  event: boolean;
}

/** Splits a byte stream into whole SSE blocks; see the module comment. */
export class EventFramer {
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The next byte begins a line. */
  #lineStart = true;
  /** The previous byte was a CR (a LF now completes that line ending). */
  #afterCr = false;
  /** The block just emitted ended with a CR that was the chunk's last byte: a LF first in the next chunk is its. */
  #dropLf = false;
  #hasField = false;
  /** Whether the block last emitted was an event (its ending is rewritten, so a late LF of it is dropped). */
  #lastWasEvent = false;

  /** Whether a block has begun but not ended (bytes are held). */
  get pending(): boolean {
    return this.#heldBytes > 0;
  }

  /** The whole blocks `chunk` completes, in order; the rest is held for the next chunk. */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      const dropping = this.#dropLf;
      this.#dropLf = false;
      if (b === LF && this.#afterCr) {
        this.#afterCr = false;
        if (dropping) {
          // The LF of the CRLF that ended the block just emitted: an event's ending was rewritten (drop it),
          // a comment passes unchanged (this byte too).
          if (!this.#lastWasEvent) frames.push({ bytes: chunk.subarray(i, i + 1), event: false });
          start = i + 1;
        }
        continue;
      }
      if (b === LF || b === CR) {
        this.#afterCr = b === CR;
        if (!this.#lineStart) {
          this.#lineStart = true;
          continue;
        }
        // An empty line: the block ends here (with the LF of a CRLF when it is in this chunk).
        let end = i + 1;
        if (b === CR) {
          if (i + 1 < n && chunk[i + 1] === LF) {
            end++;
            i++;
            this.#afterCr = false;
          } else {
            this.#dropLf = true;
          }
        }
        frames.push(this.#take(chunk, start, end));
        start = end;
      } else {
        this.#afterCr = false;
        if (this.#lineStart && b !== COLON) this.#hasField = true;
        this.#lineStart = false;
      }
    }
    if (start < n) {
      this.#held.push(chunk.subarray(start));
      this.#heldBytes += n - start;
    }
    return frames;
  }

  /** The bytes of an unfinished block (the stream ended inside it), and forgets them. */
  rest(): Uint8Array {
    const rest = this.#heldBytes ? joinBytes(this.#held) : EMPTY;
    this.#held = [];
    this.#heldBytes = 0;
    return rest;
  }

  #take(chunk: Uint8Array, start: number, end: number): Frame {
    const part = chunk.subarray(start, end);
    const bytes = this.#heldBytes ? joinBytes([...this.#held, part]) : part;
    this.#held = [];
    this.#heldBytes = 0;
    const frame = { bytes, event: this.#hasField };
    this.#lastWasEvent = this.#hasField;
    this.#hasField = false;
    return frame;
  }
}

/**
 * An event block with `id: <id>` added as its last line: the blank line that ends it is replaced by
 * `id: <id>\n\n` (the event's own line endings are kept).
 */
export function withEventId(block: Uint8Array, id: string): Uint8Array {
  const n = block.length;
  const cut = n >= 2 && block[n - 2] === CR && block[n - 1] === LF ? 2 : 1;
  const line = encoder.encode(`id: ${id}\n\n`);
  const out = new Uint8Array(n - cut + line.length);
  out.set(block.subarray(0, n - cut));
  out.set(line, n - cut);
  return out;
}
