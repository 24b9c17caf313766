/**
 * Attachments in conversation bodies (`inputs`) and chat-completion bodies (`messages`): the `image_url`
 * and `document_url` content chunks a page sends with a message. The relay's policy limits how many a body
 * holds, how many bytes each decodes to and of which types, and checks each `data:` URL's bytes against its
 * declared media type (magic numbers, file-types.ts) before the platform spends anything on it:
 *
 * - more than `maxCount` attachments → 413 `too_many_attachments`; one over `maxBytes` decoded → 413
 *   `attachment_too_large`; all of them over `maxTotalBytes` → 413 `attachments_too_large`;
 * - a declared type not in `types`, bytes that are not that type, an image in `document_url` or a PDF in
 *   `image_url` → 415 `unsupported_file_type`;
 * - a `data:` URL that is not base64 or not valid base64, a chunk without its URL → 400 `invalid_attachment`;
 * - an http(s) URL (which the platform would fetch) → 403 `remote_file_not_allowed` unless remote files are
 *   allowed; any other scheme → 400.
 *
 * The body itself is capped before it is read (route-table.ts: the conversation cap grows by the base64 size
 * of `maxTotalBytes`), so a body too big for any allowed set of attachments is refused with 413 while it
 * streams, without being buffered whole.
 */
import { RelayError, badRequest, forbidden, unsupportedFileType } from '../errors.js';
import { DOCUMENT_SNIFF_BYTES, sniffDocument, type DocumentKind } from './file-types.js';
import { decodeBase64Head, type RemoteFileOptions } from './upload.js';

const MB = 1024 * 1024;

/** The relay's attachment policy. */
export interface AttachmentLimits {
  /** Attachments per body (default 4; 0 refuses any). */
  maxCount: number;
  /** Decoded bytes per attachment (default 10 MB). */
  maxBytes: number;
  /** Decoded bytes of all the attachments of one body (default 20 MB); the conversation body cap grows by its base64 size. */
  maxTotalBytes: number;
  /** Media types allowed (default PNG, JPEG, GIF, WebP, PDF): any of `ATTACHMENT_TYPES`. */
  types: string[];
}

/** The media type of each kind the relay recognises by its bytes. */
const TYPE_OF_KIND: Record<DocumentKind, string> = {
  pdf: 'application/pdf', png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  bmp: 'image/bmp', tiff: 'image/tiff', avif: 'image/avif',
};

/** Every media type an attachment policy may allow (those the relay can recognise by their bytes). */
export const ATTACHMENT_TYPES: readonly string[] = Object.values(TYPE_OF_KIND);

/** Default attachment policy: 4 files of up to 10 MB, 20 MB in all, PNG, JPEG, GIF, WebP or PDF. */
export const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = {
  maxCount: 4,
  maxBytes: 10 * MB,
  maxTotalBytes: 20 * MB,
  types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'],
};

/** The complete policy of partial `limits` (defaults for what is missing); an unknown type is a programming error. */
export function attachmentLimitsOf(limits: Partial<AttachmentLimits> = {}): AttachmentLimits {
  const merged = { ...DEFAULT_ATTACHMENT_LIMITS, ...limits, types: [...(limits.types ?? DEFAULT_ATTACHMENT_LIMITS.types)].map((t) => t.toLowerCase()) };
  const unknown = merged.types.find((t) => !ATTACHMENT_TYPES.includes(t));
  if (unknown) throw new TypeError(`attachments.types: '${unknown}' is not a type the relay can check; use ${ATTACHMENT_TYPES.join(', ')}`);
  return merged;
}

/** Bytes the base64 text of `bytes` bytes takes (what a `data:` URL adds to a JSON body). */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** `bytes` for people: `31.5 MB`, `900 KB`. */
export function sizeText(bytes: number): string {
  if (bytes >= MB) return `${Number((bytes / MB).toFixed(1))} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/** A 413 for attachments (count or size), in the relay's error shape. */
function tooLarge(message: string, code: string): RelayError {
  return new RelayError(413, message, 'invalid_request_error', code);
}

/** The attachment chunks of a body: each message's content chunks in `inputs` (conversations) and `messages` (chat completions). */
function* attachmentChunks(body: Record<string, unknown>): Generator<Record<string, unknown>> {
  for (const field of ['inputs', 'messages']) {
    const entries = body[field];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const content = entry && typeof entry === 'object' ? (entry as { content?: unknown }).content : undefined;
      if (!Array.isArray(content)) continue;
      for (const chunk of content) {
        const type = chunk && typeof chunk === 'object' ? (chunk as { type?: unknown }).type : undefined;
        if (type === 'image_url' || type === 'document_url') yield chunk as Record<string, unknown>;
      }
    }
  }
}

/**
 * Checks the attachments of a conversation or chat-completion body against `limits` (see the module comment).
 * Returns the characters their `data:` URLs take in the body (the rest of it is held to the text cap).
 */
export function checkAttachments(body: Record<string, unknown>, limits: AttachmentLimits, options: RemoteFileOptions): number {
  let count = 0;
  let total = 0;
  let characters = 0;
  for (const chunk of attachmentChunks(body)) {
    count++;
    if (count > limits.maxCount) {
      throw tooLarge(limits.maxCount === 0
        ? 'This relay takes no attachments'
        : `A message may carry at most ${limits.maxCount} attachment${limits.maxCount === 1 ? '' : 's'}`, 'too_many_attachments');
    }
    const field = chunk.type as 'image_url' | 'document_url';
    const raw = chunk[field];
    const url = field === 'image_url' && raw && typeof raw === 'object' ? (raw as { url?: unknown }).url : raw;
    if (typeof url !== 'string') throw badRequest(`${field} must be a URL`, 'invalid_attachment');
    if (!/^data:/i.test(url)) {
      if (!/^https?:\/\//i.test(url)) throw badRequest(`${field} must be a data: or https: URL`, 'invalid_attachment');
      if (!options.allowRemoteFiles) {
        throw forbidden(`The relay does not let the platform fetch ${field}; send the file as a data: URL`, 'remote_file_not_allowed');
      }
      continue;
    }
    total += checkDataUrl(url, field, limits);
    characters += url.length;
    if (total > limits.maxTotalBytes) {
      throw tooLarge(`The attachments of a message may be ${sizeText(limits.maxTotalBytes)} in all`, 'attachments_too_large');
    }
  }
  return characters;
}

/** Checks one `data:` attachment; returns its decoded size. */
function checkDataUrl(url: string, field: 'image_url' | 'document_url', limits: AttachmentLimits): number {
  const comma = url.indexOf(',');
  // The header is short: a long one is no data: URL the relay reads (and is not echoed back).
  const header = comma > 0 && comma <= 256 ? url.slice(5, comma) : null;
  const params = header?.split(';').map((p) => p.trim().toLowerCase());
  if (!params || params[params.length - 1] !== 'base64') {
    throw badRequest(`${field} must be a base64 data: URL, e.g. data:image/png;base64,…`, 'invalid_attachment');
  }
  const declared = params[0]!;
  if (!limits.types.includes(declared)) {
    throw unsupportedFileType(`Attachments of type ${declared.slice(0, 80) || '(none)'} are not accepted; accepted: ${limits.types.join(', ')}`);
  }
  const data = url.slice(comma + 1);
  const size = decodedLength(data, field);
  if (size > limits.maxBytes) {
    throw tooLarge(`An attachment is ${sizeText(size)}; the limit is ${sizeText(limits.maxBytes)}`, 'attachment_too_large');
  }
  const kind = sniffDocument(decodeBase64Head(data, DOCUMENT_SNIFF_BYTES, field, 'invalid_attachment'));
  const actual = kind && TYPE_OF_KIND[kind];
  if (actual !== declared) {
    throw unsupportedFileType(`The ${field} data is declared ${declared} but ${actual ? `is ${actual}` : 'is no file of that type'}, judged by its first bytes`);
  }
  if (field === 'image_url' && kind === 'pdf') throw unsupportedFileType('image_url holds a PDF; send it as document_url');
  if (field === 'document_url' && kind !== 'pdf') throw unsupportedFileType(`document_url holds ${declared}; send images as image_url`);
  return size;
}

/** The bytes base64 `data` decodes to; 400 when it is not base64 (checked whole, without decoding it). */
function decodedLength(data: string, field: string): number {
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw badRequest(`${field} is not valid base64`, 'invalid_attachment');
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}
