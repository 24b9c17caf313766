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

/** `data:application/jsonl;base64,…` of the records, one object per line. */
export function recordsToDataUrl(records: ReadonlyArray<Pick<NewRecord, 'payload' | 'properties'>>): string {
  const text = records.map((r) => JSON.stringify({ payload: r.payload, properties: r.properties })).join('\n');
  return `data:${JSONL_MIME};base64,${Buffer.from(text ? `${text}\n` : '', 'utf8').toString('base64')}`;
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
