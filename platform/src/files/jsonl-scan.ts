/**
 * What an upload's bytes say about it as JSONL, learnt chunk by chunk while it streams (the purpose may only
 * arrive after the file in the form): one line in memory at a time, at most {@link MAX_JSONL_LINE_BYTES}.
 * describe.ts turns the facts into the file's description, or the 422 for its purpose.
 */

/** Longest line kept to be parsed; a longer line ends the scan (a JSONL purpose then refuses the file). */
export const MAX_JSONL_LINE_BYTES = 16 * 1024 * 1024;

/** A line that does not fit: its number and why (not JSON, not an object, too long, no `body`). */
export interface BadLine { line: number; why: 'json' | 'object' | 'long' | 'body' }

/** What a finished scan found. */
export interface JsonlFacts {
  /** The bytes are not UTF-8. */
  notUtf8: boolean;
  /** The first line that is not a JSON object (or is too long), else null. */
  firstBad: BadLine | null;
  /** The same for a batch file, whose lines must also have a `body`. */
  firstBadBatch: BadLine | null;
  /** The first record: its kind (`messages` → chat sample, `text` → pretraining), or null with no record. */
  first: 'messages' | 'text' | 'other' | null;
  /** Lines that are not blank. */
  lines: number;
}

const NEWLINE = 0x0a;

export class JsonlScan {
  #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #lineNo = 0;
  /** Scanning stopped: what is left is decided (bad bytes, a bad line, a line too long). */
  #stopped = false;
  readonly facts: JsonlFacts = { notUtf8: false, firstBad: null, firstBadBatch: null, first: null, lines: 0 };

  /** Takes the next bytes of the file. */
  push(bytes: Uint8Array): void {
    let start = 0;
    while (!this.#stopped && start < bytes.byteLength) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#keep(bytes.subarray(start));
        return;
      }
      this.#keep(bytes.subarray(start, end));
      this.#line();
      start = end + 1;
    }
  }

  /** The end of the file: the last line (without a newline) is judged. */
  end(): JsonlFacts {
    if (!this.#stopped && this.#pendingBytes > 0) this.#line();
    this.#stopped = true;
    return this.facts;
  }

  #keep(part: Uint8Array): void {
    if (this.#stopped || part.byteLength === 0) return;
    this.#pendingBytes += part.byteLength;
    if (this.#pendingBytes > MAX_JSONL_LINE_BYTES) {
      this.#bad({ line: this.#lineNo + 1, why: 'long' }, true);
      return;
    }
    this.#pending.push(part.slice()); // a copy: the caller reuses its buffer
  }

  /** Judges the line gathered in #pending. */
  #line(): void {
    const n = ++this.#lineNo;
    const bytes = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      this.facts.notUtf8 = true;
      this.#stopped = true;
      return;
    }
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!text.trim()) return;
    this.facts.lines++;
    if (this.facts.firstBad) return; // decided; still counting and checking the bytes are UTF-8
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return this.#bad({ line: n, why: 'json' }, false);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return this.#bad({ line: n, why: 'object' }, false);
    if (!('body' in record)) this.facts.firstBadBatch ??= { line: n, why: 'body' };
    if (this.facts.first === null) {
      const r = record as Record<string, unknown>;
      this.facts.first = Array.isArray(r.messages) ? 'messages' : typeof r.text === 'string' ? 'text' : 'other';
    }
  }

  #bad(bad: BadLine, stop: boolean): void {
    this.facts.firstBad ??= bad;
    this.facts.firstBadBatch ??= bad;
    if (stop) {
      this.#stopped = true;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
  }
}
