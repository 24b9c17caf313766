/**
 * Turns the `document` of an OCR request into bytes: `data:` URLs (PDF or image, base64) always, http(s)
 * URLs only for hosts on the `ocrUrlAllowlist` option, `file` through the files API (`readFile`). The bytes
 * are sniffed (magic numbers, not the declared media type) into a PDF or a raster image.
 */
import type { OcrDocument } from 'parley-kit/types';
import { genericError, invalidField, notFound } from '../http/errors.js';
import { FetchFailedError, checkAllowlistedUrl, fetchCapped } from '../http/fetch-allowlisted.js';
import { BodyTooLargeError } from 'parley-kit/server';
import type { OcrInput } from '../engines/ocr/types.js';
import { sniffDocument } from '../engines/ocr/sniff.js';

/** Default cap on an OCR document (as the real service: 50 MB). */
export const DEFAULT_MAX_OCR_BYTES = 50 * 1024 * 1024;

export interface DocumentInputOptions {
  maxBytes: number;
  urlAllowlist: readonly string[];
  signal: AbortSignal;
  /** The bytes of a file of the caller's files (`document: {type:"file", file_id}`), undefined when unknown; absent: every id is unknown. */
  readFile?: (fileId: string) => Promise<Uint8Array | undefined>;
}

export function documentTooLarge(limit: number) {
  return genericError(413, `Document is larger than the limit of ${limit} bytes (${Math.round(limit / 1048576)} MB)`, 'invalid_request_error', 'request_too_large', 'document');
}

const SUPPORTED = 'PDF, PNG, JPEG, GIF, WebP or BMP';

/** Reads the request's document; errors are the platform's 4xx answers. */
export async function readDocument(document: OcrDocument, options: DocumentInputOptions): Promise<OcrInput> {
  if (document.type === 'file') {
    const bytes = await options.readFile?.(document.file_id);
    if (!bytes) throw notFound(`File '${document.file_id}' not found`);
    if (bytes.byteLength > options.maxBytes) throw documentTooLarge(options.maxBytes);
    return sniffed(bytes, ['body', 'document', 'file_id']);
  }
  const [field, raw] = document.type === 'document_url'
    ? ['document_url', document.document_url]
    : ['image_url', typeof document.image_url === 'string' ? document.image_url : document.image_url.url];
  const loc = ['body', 'document', field];
  let bytes: Uint8Array;
  if (/^data:/i.test(raw)) {
    const match = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i.exec(raw);
    if (!match) throw invalidField(loc, 'A data: URL must be base64, e.g. data:application/pdf;base64,…', 'value_error', raw.slice(0, 80));
    const payload = raw.slice(match[0].length);
    if (Math.floor((payload.length * 3) / 4) - 2 > options.maxBytes) throw documentTooLarge(options.maxBytes);
    bytes = Buffer.from(payload, 'base64');
    if (bytes.byteLength > options.maxBytes) throw documentTooLarge(options.maxBytes);
  } else {
    const url = checkAllowlistedUrl(raw, options.urlAllowlist, 'ocrUrlAllowlist');
    if (!(url instanceof URL)) throw invalidField(loc, `${url.msg}; send the document as a data: URL instead`, url.type, raw);
    try {
      bytes = await fetchCapped(url, options.maxBytes, options.signal);
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw documentTooLarge(options.maxBytes);
      if (err instanceof FetchFailedError) throw invalidField(loc, `Could not fetch ${field}: ${err.message}`, 'value_error', raw);
      throw err;
    }
  }
  return sniffed(bytes, loc);
}

/** The document as a PDF or an image; empty or another kind of file → 422 at `loc`. */
function sniffed(bytes: Uint8Array, loc: string[]): OcrInput {
  if (!bytes.byteLength) throw invalidField(loc, 'The document is empty', 'value_error');
  const kind = sniffDocument(bytes);
  if (!kind) throw invalidField(loc, `The document is not a supported file (supported: ${SUPPORTED})`, 'value_error');
  return { kind, bytes };
}
