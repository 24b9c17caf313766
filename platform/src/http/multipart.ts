/**
 * Reading a multipart/form-data request (file uploads, audio transcription) with a byte cap counted while the
 * body streams (readCapped), then parsed by the platform's own `Request.formData()`. One reader for every
 * multipart route; the messages name the caller's route, file field and what the file is.
 */
import type { ValidationIssue } from 'parley-kit/types';
import { BodyTooLargeError, readCapped } from 'parley-kit/server';
import { genericError, invalidField } from './errors.js';
import { checkForm } from './input-guard.js';

/** Room for the non-file fields and part headers on top of the file cap. */
export const FORM_OVERHEAD = 64 * 1024;

export interface MultipartLimits {
  /** Cap on the file part, in bytes; the whole body may be {@link FORM_OVERHEAD} larger. */
  maxFileBytes: number;
  /** `METHOD /path` and its fields, for the 415 message. */
  route: string;
  /** The file field (`param` of the 413). */
  fileField: string;
  /** What the file is, capitalised, for the 413 message (default `File`; e.g. `Audio file`). */
  fileKind?: string;
}

/** 413 for a file over the cap; `kind` names the file (`File`, `Audio file`). */
export function fileTooLarge(limit: number, field: string, kind = 'File') {
  return genericError(413, `${kind} is larger than the limit of ${limit} bytes (${Math.round(limit / 1048576)} MB)`, 'invalid_request_error', 'request_too_large', field);
}

/**
 * A present file part of a form, checked: the file, or the 422 issue of a text field or an empty file
 * (returned, so a caller can gather every problem); over `maxBytes` → 413 (thrown, named `kind` as {@link fileTooLarge}).
 */
export function checkFilePart(entry: FormDataEntryValue, maxBytes: number, field: string, kind?: string): File | ValidationIssue {
  if (typeof entry === 'string') return { loc: ['body', field], msg: `${field} should be an uploaded file (a multipart part with a filename), not a text field`, type: 'value_error' };
  if (entry.size > maxBytes) throw fileTooLarge(maxBytes, field, kind);
  if (entry.size === 0) return { loc: ['body', field], msg: 'The uploaded file is empty', type: 'value_error' };
  return entry;
}

/**
 * What every multipart reader checks before reading (here and multipart-stream.ts): 415 for another content
 * type, 413 for a declared length over the cap; the content type, the body cap and its 413.
 */
export function checkMultipartHead(request: Request, limits: MultipartLimits): { type: string; limit: number; tooLarge: () => Error } {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw genericError(415, `${limits.route} takes multipart/form-data, not '${type || 'no content type'}'`, 'invalid_request_error', 'unsupported_media_type');
  }
  const tooLarge = () => fileTooLarge(limits.maxFileBytes, limits.fileField, limits.fileKind);
  const limit = limits.maxFileBytes + FORM_OVERHEAD;
  const declared = Number(request.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  return { type, limit, tooLarge };
}

/** The form of a multipart request: 415 for another content type, 413 over the cap, 422 when malformed or against the input rules (input-guard.ts). */
export async function readMultipart(request: Request, limits: MultipartLimits): Promise<FormData> {
  const { type, limit, tooLarge } = checkMultipartHead(request, limits);
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(request.body, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw tooLarge();
    throw err;
  }
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    throw invalidField(['body'], 'Malformed multipart/form-data body', 'value_error');
  }
  checkForm(form);
  return form;
}
