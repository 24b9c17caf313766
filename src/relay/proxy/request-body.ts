/**
 * Request bodies: content-type checks (415), size caps counted while the body streams (413; a
 * `Content-Length` over the cap is refused before reading), JSON parsing (400). Streamed uploads
 * are counted in upload.ts.
 */
import { BodyTooLargeError, readCapped as readWhole } from '../../server/read-capped.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';
import type { BodyKind } from './route-table.js';

/** The media type of a `Content-Type` header, lower-cased, without parameters. */
export function mediaType(request: Request): string | null {
  const value = request.headers.get('content-type');
  return value ? value.split(';')[0]!.trim().toLowerCase() : null;
}

/** Refuses a body whose content type does not fit the route (415). */
export function checkContentType(request: Request, kind: BodyKind): void {
  const type = mediaType(request);
  if (kind === 'json' && type !== 'application/json') throw unsupportedMediaType('application/json');
  if (kind === 'multipart' && type !== 'multipart/form-data') throw unsupportedMediaType('multipart/form-data');
}

/** Checks the framing headers before reading: conflicting framing → 400, declared length over the cap → 413. */
export function checkDeclaredLength(request: Request, maxBytes: number): void {
  const length = request.headers.get('content-length');
  if (length !== null && request.headers.has('transfer-encoding')) throw badRequest('Content-Length and Transfer-Encoding must not both be sent');
  if (length === null) return;
  if (!/^\d{1,15}$/.test(length.trim())) throw badRequest('Invalid Content-Length');
  if (Number(length) > maxBytes) throw payloadTooLarge(maxBytes);
}

/** Reads a whole body, counting bytes as they arrive; stops reading and throws 413 past `maxBytes`. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readWhole(body, maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw payloadTooLarge(maxBytes);
    throw err;
  }
}

/** Strict UTF-8 (invalid bytes throw); one for the process, since whole-buffer decodes keep no state. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON object body (400 for invalid JSON or a non-object). */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    throw badRequest('Request body is not valid JSON', 'invalid_json');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('Request body must be a JSON object', 'invalid_json');
  return value as Record<string, unknown>;
}
