/**
 * Dataset records as JSONL, both ways: export writes one `{"payload":…,"properties":…}` object per
 * line and answers it as a `data:` URL (the local platform has no file storage to link to, and a
 * `data:` URL needs no second authenticated request); the from-file import reads the same format
 * back, from a `data:` URL given as `file_id`.
 */
import type { NewRecord } from './datasets.js';
import { parseJsonDocument } from '../http/input-guard.js';

/** MIME type of exported files. */
export const JSONL_MIME = 'application/jsonl';

/** One record as a JSONL line (with its newline). */
const recordLine = (r: Pick<NewRecord, 'payload' | 'properties'>) => `${JSON.stringify({ payload: r.payload, properties: r.properties })}\n`;

/**
 * The JSON answer `{"<field>":"data:application/jsonl;base64,…"}` of records read a page at a time, as a byte
 * stream: a page is encoded and sent before the next is read, so an export holds one page, not the dataset
 * (one object per line, each ending with a newline).
 */
export function dataUrlJsonStream(field: string, pages: AsyncIterator<ReadonlyArray<Pick<NewRecord, 'payload' | 'properties'>>>): ReadableStream<Uint8Array> {
  let carry = Buffer.alloc(0); // bytes not yet encoded: base64 goes 3 bytes at a time
  let ended = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(Buffer.from(`{${JSON.stringify(field)}:"data:${JSONL_MIME};base64,`));
    },
    async pull(controller) {
      // Until something is sent: a pull that enqueues nothing is not called again.
      while (!ended) {
        const next = await pages.next();
        if (next.done) {
          ended = true;
          controller.enqueue(Buffer.from(`${carry.toString('base64')}"}`));
          controller.close();
          return;
        }
        const bytes = Buffer.concat([carry, Buffer.from(next.value.map(recordLine).join(''), 'utf8')]);
        const whole = bytes.byteLength - (bytes.byteLength % 3);
        carry = bytes.subarray(whole);
        if (whole) return controller.enqueue(Buffer.from(bytes.subarray(0, whole).toString('base64')));
      }
    },
    async cancel() {
      await pages.return?.(undefined);
    },
  });
}

/** The text of a `data:` URL (base64 or percent-encoded), or null when `url` is not a well-formed one. */
export function decodeDataUrl(url: string): string | null {
  const match = /^data:([^,]*),(.*)$/is.exec(url);
  if (!match) return null;
  const base64 = /;base64$/i.test(match[1]);
  try {
    if (base64) {
      const data = match[2].replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(data)) return null;
      return Buffer.from(data, 'base64').toString('utf8');
    }
    return decodeURIComponent(match[2]);
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Records of a JSONL text: each non-blank line is a JSON object, either `{"payload": {…}, "properties"?: {…}}`
 * (the export format) or any other object, which becomes the payload as a whole. Throws an Error naming the
 * first bad line.
 */
export function parseJsonlRecords(text: string): NewRecord[] {
  const records: NewRecord[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = parseJsonDocument(line);
    } catch {
      throw new Error(`line ${i + 1} is not valid JSON`);
    }
    if (!isObject(value)) throw new Error(`line ${i + 1} is not a JSON object`);
    if ('payload' in value) {
      if (!isObject(value.payload)) throw new Error(`line ${i + 1}: "payload" must be a JSON object`);
      if (value.properties !== undefined && value.properties !== null && !isObject(value.properties)) {
        throw new Error(`line ${i + 1}: "properties" must be a JSON object`);
      }
      records.push({ payload: value.payload, properties: isObject(value.properties) ? value.properties : {}, source: 'UPLOADED_FILE' });
    } else {
      records.push({ payload: value, properties: {}, source: 'UPLOADED_FILE' });
    }
  });
  return records;
}
