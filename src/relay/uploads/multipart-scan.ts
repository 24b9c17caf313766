/**
 * A bounded scanner of multipart/form-data bodies as they stream through (RFC 7578): it finds the
 * parts, reads each part's headers (name, filename) and hands over the first bytes of its body, and
 * never holds more than one header block or a few bytes of a delimiter. Written here rather than
 * taken from a library because it must run on Web streams in every runtime the relay runs in and
 * must not buffer a 25 MB upload; it only looks, the bytes pass on unchanged.
 */
import { badRequest } from '../errors.js';
import { concatBytes, indexOfBytes, joinBytes } from '../bytes.js';

/** Limits of {@link createMultipartScanner}: the largest header block of one part (8 KB), the most parts in one body. */
const LIMITS = { maxHeaderBytes: 8 * 1024, maxParts: 256 } as const;

/** One part's headers, as far as the relay cares. */
export interface PartHead {
  /** The form field name (`Content-Disposition: form-data; name="…"`). */
  name: string;
  /** The file name, when the part is a file (`filename` or `filename*` present). */
  filename?: string;
}

/** What the scanner reports. */
export interface MultipartScanHandlers {
  /** How many first bytes of this part's body the caller wants to see (0: none). */
  want(head: PartHead): number;
  /**
   * The first bytes of a part's body: `want(head)` bytes, or fewer when the part ended first
   * (`complete` is then true). May throw to refuse the body.
   */
  onPart(head: PartHead, first: Uint8Array, complete: boolean): void;
}

/** A streaming scanner: `push` each chunk, then `end`; both throw a 400 {@link RelayError} for a malformed body. */
export interface MultipartScanner {
  push(chunk: Uint8Array): void;
  end(): void;
  /** Whether the closing delimiter has been seen. */
  readonly finished: boolean;
}

const CR = 13;
const LF = 10;
const DASH = 45;
const encoder = new TextEncoder();

/** RFC 2046 boundary characters, 1–70 of them, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * The `boundary` parameter of a multipart `Content-Type`, or null when there is none, more than one,
 * or one with characters RFC 2046 does not allow (quoting escapes included): anything a later parser
 * could read as another boundary is refused rather than guessed.
 */
export function boundaryOf(contentType: string | null): string | null {
  const found = (contentType ?? '').split(';').slice(1)
    .map((param) => /^\s*boundary\s*=\s*(.*?)\s*$/i.exec(param)?.[1])
    .filter((value): value is string => value !== undefined);
  if (found.length !== 1) return null;
  const raw = found[0]!;
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  return BOUNDARY.test(value) ? value : null;
}

const malformed = (why: string) => badRequest(`Malformed multipart body: ${why}`, 'invalid_multipart');

/** Creates a scanner for `boundary`. */
export function createMultipartScanner(boundary: string, handlers: MultipartScanHandlers): MultipartScanner {
  // Every delimiter is CRLF "--" boundary, but the first: the first "--" boundary anywhere opens the
  // form (as the platform's parser reads it), so no part can hide from the relay in a "preamble".
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const opening = delimiter.subarray(2);
  let buf: Uint8Array = new Uint8Array(0);
  let state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'epilogue' = 'preamble';
  let parts = 0;
  let skipped = 0;
  let head: PartHead | undefined;
  let wanted = 0;
  let first: Uint8Array[] = [];
  let firstLength = 0;

  /** Passes body bytes of the current part to its collector, reporting once `wanted` bytes are in. */
  const collect = (bytes: Uint8Array) => {
    if (firstLength >= wanted || !bytes.length) return;
    const take = bytes.subarray(0, wanted - firstLength);
    first.push(take.slice());
    firstLength += take.length;
    if (firstLength >= wanted) handlers.onPart(head!, joinBytes(first, firstLength), false);
  };
  const endPart = () => {
    if (head && firstLength < wanted) handlers.onPart(head, joinBytes(first, firstLength), true);
    head = undefined;
    first = [];
    firstLength = 0;
  };

  /** Runs the state machine over `buf` as far as it can; what it cannot decide yet stays in `buf`. */
  const step = (): boolean => {
    switch (state) {
      case 'preamble':
      case 'body': {
        const sought = state === 'body' ? delimiter : opening;
        const at = indexOfBytes(buf, sought);
        if (at === -1) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = Math.min(buf.length, sought.length - 1);
          const passed = buf.subarray(0, buf.length - keep);
          if (state === 'body') collect(passed);
          else if ((skipped += passed.length) > LIMITS.maxHeaderBytes) throw malformed('no opening boundary');
          buf = buf.slice(buf.length - keep);
          return false;
        }
        if (state === 'body') {
          collect(buf.subarray(0, at));
          endPart();
        } else if (skipped + at > LIMITS.maxHeaderBytes) {
          throw malformed('no opening boundary');
        }
        buf = buf.subarray(at + sought.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (buf.length < 2) return false;
        if (buf[0] === DASH && buf[1] === DASH) {
          state = 'epilogue';
          return true;
        }
        const eol = indexOfCrlf(buf, 0);
        if (eol === -1) {
          if (buf.length > 256) throw malformed('a boundary line does not end');
          return false;
        }
        if (!/^[ \t]*$/.test(latin1(buf.subarray(0, eol)))) throw malformed('text after a boundary');
        buf = buf.subarray(eol + 2);
        if (++parts > LIMITS.maxParts) throw malformed(`more than ${LIMITS.maxParts} parts`);
        state = 'headers';
        return true;
      }
      case 'headers': {
        const bodyStart = headerBlockEnd(buf);
        if (bodyStart === -1) {
          if (buf.length > LIMITS.maxHeaderBytes) throw malformed(`part headers larger than ${LIMITS.maxHeaderBytes} bytes`);
          return false;
        }
        if (bodyStart > LIMITS.maxHeaderBytes) throw malformed(`part headers larger than ${LIMITS.maxHeaderBytes} bytes`);
        head = parseHead(buf.subarray(0, Math.max(0, bodyStart - 4)));
        wanted = handlers.want(head);
        buf = buf.subarray(bodyStart);
        state = 'body';
        return true;
      }
      case 'epilogue':
        buf = new Uint8Array(0);
        return false;
    }
  };

  return {
    push(chunk) {
      buf = buf.length ? concatBytes(buf, chunk) : chunk;
      while (step()) { /* until it needs more bytes */ }
    },
    end() {
      if (state !== 'epilogue') throw malformed('the body ended before its closing boundary');
    },
    get finished() {
      return state === 'epilogue';
    },
  };
}

/** A header field name (RFC 9110 token) and its colon, at the start of a line. */
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*)$/s;
/** Field names the relay will judge (the platform's are plain words: `model`, `file`, `context_bias`…). */
const FIELD_NAME = /^[A-Za-z0-9_.[\]-]{1,100}$/;

/**
 * Name and filename from a part's header block, read strictly so that the relay and any parser after
 * it (the platform's) cannot disagree about which field a part is: bare CR or LF, folded or malformed
 * lines, two Content-Disposition headers, a repeated or encoded (`name*`) name, a backslash in a
 * quoted value, a transfer encoding, or anything left unparsed are refused (400).
 */
function parseHead(block: Uint8Array): PartHead {
  for (let i = 0; i < block.length; i++) {
    if ((block[i] === CR && block[i + 1] !== LF) || (block[i] === LF && block[i - 1] !== CR)) throw malformed('a bare CR or LF in part headers');
  }
  let disposition: string | undefined;
  for (const line of block.length ? new TextDecoder().decode(block).split('\r\n') : []) {
    const m = HEADER_LINE.exec(line);
    if (!m) throw malformed('a part header line is not "Name: value"');
    const field = m[1]!.toLowerCase();
    if (field === 'content-disposition') {
      if (disposition !== undefined) throw malformed('a part has two Content-Disposition headers');
      disposition = m[2]!;
    } else if (field === 'content-transfer-encoding' && !/^(7bit|8bit|binary)\s*$/i.test(m[2]!)) {
      throw malformed('Content-Transfer-Encoding is not allowed in form-data');
    }
  }
  if (disposition === undefined) throw malformed('a part has no Content-Disposition');
  return parseDisposition(disposition);
}

/** `form-data; name="…"; filename="…"` (see {@link parseHead} for what is refused). */
function parseDisposition(value: string): PartHead {
  const type = /^form-data[ \t]*/i.exec(value);
  if (!type) throw malformed('a part is not form-data');
  let rest = value.slice(type[0].length);
  let name: string | undefined;
  let filename: string | undefined;
  while (rest.length && !/^;[ \t]*$/.test(rest)) {
    // `; attribute=value` with a token, "quoted" or (filename*) extended value.
    const m = /^;[ \t]*([!#$%&'+.^_`|~0-9A-Za-z-]+)(\*?)[ \t]*=[ \t]*(?:"([^"\r\n]*)"|([^ \t;"]+))[ \t]*/.exec(rest);
    if (!m) throw malformed('a Content-Disposition parameter cannot be read');
    rest = rest.slice(m[0].length);
    const attribute = m[1]!.toLowerCase();
    const quoted = m[3];
    // `\"` ends the value here but is an escaped quote to some parsers: refused, not guessed.
    if (quoted?.endsWith('\\')) throw malformed('a backslash before a closing quote in Content-Disposition');
    if (attribute === 'name') {
      if (m[2] || name !== undefined) throw malformed('a part names its field more than once, or encoded');
      name = quoted ?? m[4]!;
    } else if (attribute === 'filename') {
      filename = quoted ?? m[4]!;
    }
  }
  if (name === undefined) throw malformed('a part has no name');
  if (!FIELD_NAME.test(name)) throw malformed(`unexpected field name '${name.slice(0, 40)}'`);
  return filename === undefined ? { name } : { name, filename };
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(CR, from); i !== -1 && i + 1 < bytes.length; i = bytes.indexOf(CR, i + 1)) {
    if (bytes[i + 1] === LF) return i;
  }
  return -1;
}

/** Where a part's body starts: after the blank line ending its header block (2 for an empty block), or -1. */
function headerBlockEnd(bytes: Uint8Array): number {
  if (bytes.length >= 2 && bytes[0] === CR && bytes[1] === LF) return 2;
  for (let i = indexOfCrlf(bytes, 0); i !== -1; i = indexOfCrlf(bytes, i + 2)) {
    if (bytes[i + 2] === CR && bytes[i + 3] === LF) return i + 4;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}
