/**
 * Uploads, checked before the platform spends anything on them:
 *
 * - A streamed multipart upload (transcription) passes through counted (413 past the cap), timed
 *   (408 when too slow, body-rate.ts) and scanned (multipart-scan.ts): the `file` part must start
 *   like an audio container (415 `unsupported_file_type`), every `model` field must be one of the
 *   session's models (403 `model_not_allowed`), `file_id` is refused and `file_url` is refused unless
 *   remote files are allowed (403). The relay reads ahead until the file's first bytes are seen, so
 *   the usual form (model, then file) is refused with no upstream call; a refusal found later (a
 *   `model` after the file) errors the upstream body before its closing boundary is sent, so the
 *   platform never gets a complete form.
 * - An OCR body (JSON, read whole): a `data:` document must decode to a PDF or an image matching its
 *   field (`image_url` takes images) and declared media type (415); a stored `file` is refused, and an
 *   http(s) URL unless remote files are allowed (403): the platform would fetch it.
 */
import { rateGuardedBody, type BodyRateLimits } from '../proxy/body-rate.js';
import { RelayError, badRequest, forbidden, payloadTooLarge, unsupportedFileType } from '../errors.js';
import {
  AUDIO_KINDS, AUDIO_SNIFF_BYTES, DOCUMENT_KINDS, DOCUMENT_SNIFF_BYTES, sniffAudio, sniffDocument,
} from './file-types.js';
import { boundaryOf, createMultipartScanner, type MultipartScanHandlers, type PartHead } from './multipart-scan.js';
import { isAllowed } from '../sessions/policy.js';

/** Bytes read ahead of the upstream call while waiting for the file's first bytes (256 KB). */
const READ_AHEAD_BYTES = 256 * 1024;
/** Longest `model` form value looked at. */
const MAX_MODEL_BYTES = 256;

/** A streamed upload on its way upstream. */
export interface GuardedUpload {
  /** The body to send upstream: the client's bytes, unchanged, as far as they pass the checks. */
  stream: ReadableStream<Uint8Array>;
  /** Why the body was cut after the upstream call began (413, 408, 415, 403, 400), if it was. */
  readonly failure: RelayError | undefined;
}

/** What {@link guardUpload} checks. */
export interface UploadChecks {
  /** The route's body cap (413 past it). */
  maxBytes: number;
  /** How slowly the body may arrive (408 below). */
  rate: BodyRateLimits;
  /** The multipart form's rules, when the route's form is inspected. */
  form?: FormRules;
}

/** Rules a multipart form is scanned with; `ready` says when enough was seen to call the upstream. */
export interface FormRules {
  /** The form's boundary, from its `Content-Type`. */
  boundary: string;
  handlers: MultipartScanHandlers;
  ready(): boolean;
}

/**
 * Guards a streamed upload (see the module comment). Throws the refusal when it is found while
 * reading ahead (no upstream call yet); later, `onFailure` runs with it (the caller aborts the
 * upstream call) and the returned stream errors.
 */
export async function guardUpload(
  body: ReadableStream<Uint8Array>, checks: UploadChecks, onFailure: (error: RelayError) => void,
): Promise<GuardedUpload> {
  let failure: RelayError | undefined;
  const fail = (error: RelayError) => {
    if (failure) return;
    failure = error;
    onFailure(error);
  };
  const source = rateGuardedBody(body, checks.rate, fail).getReader();
  const scanner = checks.form && createMultipartScanner(checks.form.boundary, checks.form.handlers);
  let total = 0;
  /** The next checked chunk, or null at the end; throws a RelayError to refuse the body. */
  const next = async (): Promise<Uint8Array | null> => {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await source.read();
    } catch (err) {
      // A timeout is ours; anything else is the client's connection (gone, or a broken chunked body).
      throw err instanceof RelayError ? err : badRequest('The request body could not be read', 'body_unreadable');
    }
    const { done, value } = read;
    if (done) {
      scanner?.end();
      return null;
    }
    total += value.byteLength;
    if (total > checks.maxBytes) throw payloadTooLarge(checks.maxBytes);
    scanner?.push(value);
    return value;
  };

  const ahead: Uint8Array[] = [];
  let aheadBytes = 0;
  let ended = false;
  try {
    while (checks.form && !checks.form.ready() && aheadBytes < READ_AHEAD_BYTES) {
      const chunk = await next();
      if (!chunk) {
        ended = true;
        break;
      }
      ahead.push(chunk);
      aheadBytes += chunk.byteLength;
    }
  } catch (err) {
    void source.cancel().catch(() => {});
    throw err;
  }

  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const early = ahead.shift();
      if (early) return controller.enqueue(early);
      if (ended) return controller.close();
      try {
        const chunk = await next();
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      } catch (err) {
        if (err instanceof RelayError) fail(err);
        void source.cancel().catch(() => {});
        controller.error(err);
      }
    },
    cancel(reason) {
      void source.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    get failure() {
      return failure;
    },
  };
}

/** Whether uploads may name files the platform would fetch or read itself. */
export interface RemoteFileOptions {
  /** Let transcription `file_url` and OCR http(s) `document_url`/`image_url` through (default false). */
  allowRemoteFiles: boolean;
}

/**
 * The rules of a transcription form: `file` must be audio, `model` one of `models`, no `file_id`,
 * no `file_url` unless allowed. Null when the content type has no boundary (answered 400 by the caller).
 */
export function audioFormRules(contentType: string | null, models: readonly string[], options: RemoteFileOptions): FormRules | null {
  const boundary = boundaryOf(contentType);
  if (!boundary) return null;
  let fileSeen = false;
  const handlers: MultipartScanHandlers = {
    want(head: PartHead) {
      if (head.name === 'file') return AUDIO_SNIFF_BYTES;
      if (head.name === 'model') return MAX_MODEL_BYTES + 1;
      if (head.name === 'file_id') throw forbidden('Stored files cannot be transcribed through the relay; upload the audio as the file field', 'file_id_not_allowed');
      if (head.name === 'file_url' && !options.allowRemoteFiles) {
        throw forbidden('The relay does not let the platform fetch file_url; upload the audio as the file field', 'remote_file_not_allowed');
      }
      return 0;
    },
    onPart(head, first, complete) {
      if (head.name === 'file') {
        fileSeen = true;
        if (!sniffAudio(first)) throw unsupportedFileType(`The file is not audio the relay accepts (${AUDIO_KINDS}), judged by its first bytes`);
      } else if (head.name === 'model') {
        if (!complete) throw badRequest(`model is longer than ${MAX_MODEL_BYTES} bytes`);
        const model = new TextDecoder().decode(first).trim();
        // An empty model is the platform's to refuse (422, with its field details).
        if (model && !isAllowed(models, model)) throw forbidden(`This session may not use model '${model}'`, 'model_not_allowed');
      }
    },
  };
  return { boundary, handlers, ready: () => fileSeen };
}

/** Missing boundary on a form the relay must read. */
export const missingBoundary = () => badRequest('multipart/form-data needs a boundary parameter', 'invalid_multipart');

/** Checks the `document` of an OCR body (see the module comment); a missing or odd document is the platform's to answer. */
export function checkOcrDocument(body: Record<string, unknown>, options: RemoteFileOptions): void {
  const document = body.document as { type?: unknown; document_url?: unknown; image_url?: unknown } | null | undefined;
  if (!document || typeof document !== 'object') return;
  if (document.type === 'file') throw forbidden('Stored files cannot be read through the relay; send the document as a data: URL', 'file_id_not_allowed');
  if (document.type !== 'document_url' && document.type !== 'image_url') throw badRequest('document.type must be document_url or image_url', 'invalid_document');
  const field = document.type;
  const value = field === 'image_url' && document.image_url && typeof document.image_url === 'object'
    ? (document.image_url as { url?: unknown }).url
    : document[field];
  if (typeof value !== 'string') return;
  if (/^data:/i.test(value)) return checkDataUrl(value, field);
  if (!options.allowRemoteFiles) {
    throw forbidden(`The relay does not let the platform fetch ${field}; send the document as a data: URL`, 'remote_file_not_allowed');
  }
  if (!/^https:\/\//i.test(value)) throw badRequest(`${field} must be a data: or https: URL`, 'invalid_document');
}

/** A base64 `data:` URL must decode to a PDF or an image that fits its field and declared type. */
function checkDataUrl(url: string, field: 'document_url' | 'image_url'): void {
  const match = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i.exec(url);
  if (!match) throw badRequest(`${field} must be a base64 data: URL, e.g. data:application/pdf;base64,…`, 'invalid_document');
  const declared = match[1]!.trim().toLowerCase();
  const head = decodeBase64Head(url.slice(match[0].length), DOCUMENT_SNIFF_BYTES, field);
  const kind = sniffDocument(head);
  const what = `The ${field} data is not a document the relay accepts (${field === 'image_url' ? 'an image' : DOCUMENT_KINDS}), judged by its first bytes`;
  if (!kind) throw unsupportedFileType(what);
  if (field === 'image_url' && kind === 'pdf') throw unsupportedFileType(`${what}: image_url holds a PDF; send it as document_url`);
  if (declared === 'application/pdf' && kind !== 'pdf') throw unsupportedFileType(`The ${field} data is declared application/pdf but is ${kind.toUpperCase()}`);
  if (declared.startsWith('image/') && kind === 'pdf') throw unsupportedFileType(`The ${field} data is declared ${declared} but is a PDF`);
}

/** The first `bytes` bytes a base64 text decodes to (only that much of it is decoded); 400 `code` when it is not base64. */
export function decodeBase64Head(base64: string, bytes: number, field: string, code = 'invalid_document'): Uint8Array {
  const length = Math.min(base64.length, Math.ceil(bytes / 3) * 4);
  let text: string;
  try {
    text = atob(base64.slice(0, length));
  } catch {
    throw badRequest(`${field} is not valid base64`, code);
  }
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}
