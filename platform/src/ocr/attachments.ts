/**
 * Attachments of chat messages (`image_url` and `document_url` chunks of conversation inputs and chat-completion
 * messages): checked when a request arrives, and read for the chat engines that read them (`readsDocuments`).
 *
 * - **Forms accepted.** `data:` URLs (base64); this platform's signed file URLs (`GET /v1/files/{id}/url`, the
 *   files API: the signature is checked, the bytes read from the store); http(s) URLs of the hosts on the
 *   `ocrUrlAllowlist` option (none by default).
 * - **Checks** (each a 4xx in the platform's shapes, with the chunk's `loc`): undecodable or empty data → 422;
 *   bytes that are neither an image (PNG, JPEG, GIF, WebP, BMP) nor a PDF → 422; an `image_url` holding a PDF,
 *   a `document_url` holding an image, or a data URL whose media type says otherwise than its bytes → 422; more
 *   than {@link MAX_ATTACHMENTS_PER_MESSAGE} in one message → 422; an image over {@link MAX_IMAGE_BYTES} or a PDF
 *   over the OCR limit (`maxOcrBytes`, 50 MB) → 413 `request_too_large`. Bytes are sniffed, never trusted from
 *   the declared type.
 * - **Reading.** The attachments of the latest user message that has any are read through the platform's OCR
 *   engine (images recognised; PDFs from their text layer, pages without one recognised), the first
 *   {@link MAX_READ_PAGES} pages of each, lines kept. A PDF that opens as none → 422. Results are cached by the
 *   bytes' digest, so a follow-up question does not recognise the same image again. An attachment of an earlier
 *   request that cannot be read any more (an expired signed URL) is left out rather than refusing the request.
 */
import { createHash } from 'node:crypto';
import type { ConversationEntry, InputContentChunk } from 'parley-kit/types';
import { BodyTooLargeError } from 'parley-kit/server';
import type { PlatformContext } from '../http/context.js';
import { PlatformHttpError, engineUnavailable, genericError, invalidField } from '../http/errors.js';
import { FetchFailedError, checkAllowlistedUrl, fetchCapped } from '../http/fetch-allowlisted.js';
import { fileChunks, getFileById, urlSecret } from '../files/store.js';
import { checkSignedUrl } from '../files/signed-url.js';
import { sniffDocument } from '../engines/ocr/sniff.js';
import { InvalidDocumentError, OcrEngineUnavailableError } from '../engines/ocr/types.js';
import type { ReadDocument } from '../engines/chat/types.js';

/** Most attachments in one message (as the hosted API's 8 images per request). */
export const MAX_ATTACHMENTS_PER_MESSAGE = 8;
/** Largest image attachment (as the hosted API: 10 MB). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Pages of a PDF attachment read for the chat; later pages are not read. */
export const MAX_READ_PAGES = 30;
/** The OCR model the chat reads attachments with. */
const READER_MODEL = 'mistral-ocr-latest';

type Loc = Array<string | number>;
type AttachmentChunk = Extract<InputContentChunk, { type: 'image_url' | 'document_url' }>;

/** Where a message's content came from in the request, for error locations (`['body', 'inputs', 0, 'content']`). */
export interface AttachmentSource { content: unknown; loc: Loc }

interface Decoded { kind: 'image' | 'pdf'; name: string | null; bytes: Uint8Array; loc: Loc }

/** A message's attachment chunks and their indexes in its content. */
function attachmentChunks(content: unknown): Array<{ chunk: AttachmentChunk; index: number }> {
  if (!Array.isArray(content)) return [];
  return content.flatMap((chunk: { type?: string }, index) =>
    (chunk?.type === 'image_url' || chunk?.type === 'document_url' ? [{ chunk: chunk as AttachmentChunk, index }] : []));
}

const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
const KIND_NAMES = { image: 'an image', pdf: 'a PDF' } as const;

function tooLarge(kind: 'image' | 'pdf', limit: number, loc: Loc) {
  return genericError(413, `The ${kind === 'image' ? 'image' : 'PDF'} attachment at ${loc.join('.')} is larger than the limit of ${limit} bytes (${mb(limit)})`,
    'invalid_request_error', 'request_too_large', loc.join('.'));
}

/** The bytes of a `data:` URL; 422 when it is not base64 or empty, 413 over `max`. */
function dataUrlBytes(raw: string, loc: Loc, max: number, kind: 'image' | 'pdf'): { bytes: Uint8Array; declared: string } {
  const match = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i.exec(raw);
  if (!match) throw invalidField(loc, 'A data: URL must be base64, e.g. data:image/png;base64,…', 'value_error', raw.slice(0, 80));
  const payload = raw.slice(match[0].length).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) {
    throw invalidField(loc, 'The data: URL is not valid base64', 'value_error', raw.slice(0, 80));
  }
  if (Math.floor((payload.length * 3) / 4) - 2 > max) throw tooLarge(kind, max, loc);
  const bytes = new Uint8Array(Buffer.from(payload, 'base64'));
  if (bytes.byteLength > max) throw tooLarge(kind, max, loc);
  return { bytes, declared: match[1].toLowerCase() };
}

/** The bytes of one of this platform's signed file URLs, or undefined when `url` is not one. */
async function signedFileBytes(ctx: PlatformContext, url: URL, loc: Loc, max: number, kind: 'image' | 'pdf'): Promise<Uint8Array | undefined> {
  const m = /^\/signed\/files\/([^/]+)\/content$/.exec(url.pathname);
  if (!m) return undefined;
  const id = decodeURIComponent(m[1]);
  const refused = checkSignedUrl(await urlSecret(ctx.db), id, url.searchParams.get('expires') ?? undefined, url.searchParams.get('signature') ?? undefined);
  if (refused) throw invalidField(loc, refused, 'value_error', url.href);
  const file = await getFileById(ctx.db, id);
  if (!file) throw invalidField(loc, `File '${id}' of this signed URL no longer exists`, 'value_error', url.href);
  if (file.bytes > max) throw tooLarge(kind, max, loc);
  const parts: Uint8Array[] = [];
  for await (const chunk of fileChunks(ctx.db, id)) parts.push(chunk);
  return new Uint8Array(Buffer.concat(parts));
}

/** One attachment's bytes, checked (see the module documentation). */
async function decode(ctx: PlatformContext, chunk: AttachmentChunk, at: Loc, signal: AbortSignal): Promise<Decoded> {
  const wanted = chunk.type === 'image_url' ? 'image' : 'pdf';
  const raw = chunk.type === 'image_url' ? (typeof chunk.image_url === 'string' ? chunk.image_url : chunk.image_url.url) : chunk.document_url;
  const loc = [...at, chunk.type];
  const max = wanted === 'image' ? Math.min(MAX_IMAGE_BYTES, ctx.ocrInput.maxBytes) : ctx.ocrInput.maxBytes;
  let bytes: Uint8Array | undefined;
  let declared = '';
  if (/^data:/i.test(raw)) {
    ({ bytes, declared } = dataUrlBytes(raw, loc, max, wanted));
  } else {
    let parsed: URL | undefined;
    try { parsed = new URL(raw); } catch { /* below */ }
    if (parsed && /^https?:$/.test(parsed.protocol)) bytes = await signedFileBytes(ctx, parsed, loc, max, wanted);
    if (!bytes) {
      const url = checkAllowlistedUrl(raw, ctx.ocrInput.urlAllowlist, 'ocrUrlAllowlist');
      if (!(url instanceof URL)) throw invalidField(loc, `${url.msg}; send the attachment as a data: URL or a signed file URL instead`, url.type, raw.slice(0, 200));
      try {
        bytes = await fetchCapped(url, max, signal);
      } catch (err) {
        if (err instanceof BodyTooLargeError) throw tooLarge(wanted, max, loc);
        if (err instanceof FetchFailedError) throw invalidField(loc, `Could not fetch the attachment: ${err.message}`, 'value_error', raw.slice(0, 200));
        throw err;
      }
    }
  }
  if (!bytes.byteLength) throw invalidField(loc, 'The attachment is empty', 'value_error');
  const kind = sniffDocument(bytes);
  if (!kind) throw invalidField(loc, 'The attachment is neither an image (PNG, JPEG, GIF, WebP, BMP) nor a PDF', 'value_error');
  if (kind !== wanted) {
    throw invalidField(loc, `The ${chunk.type} chunk holds ${KIND_NAMES[kind]}; send images as image_url chunks and PDFs as document_url chunks`, 'value_error');
  }
  const says = declared === 'application/pdf' ? 'pdf' : declared.startsWith('image/') ? 'image' : declared ? 'other' : kind;
  if (says !== kind) throw invalidField(loc, `The data: URL says ${declared} but its bytes are ${KIND_NAMES[kind]}`, 'value_error');
  const name = chunk.type === 'document_url' ? chunk.document_name ?? null : null;
  return { kind, name, bytes, loc };
}

/** Recognised pages by the digest of the bytes (a few recent documents). */
const cache = new Map<string, { pages: ReadDocument['pages']; pageCount: number }>();
const CACHE_SIZE = 16;

/** What one attachment says, through the OCR engine. */
async function readOne(ctx: PlatformContext, doc: Decoded, signal: AbortSignal): Promise<ReadDocument> {
  const key = createHash('sha256').update(doc.bytes).digest('hex');
  let read = cache.get(key);
  if (!read) {
    const ocr = ctx.ocr.resolve(READER_MODEL) ?? ctx.ocr.resolve('parley-ocr');
    if (!ocr) throw engineUnavailable('Attachments cannot be read: this platform has no OCR engine');
    let pageCount = 1;
    try {
      const pages = await ocr.engine.process({
        input: { kind: doc.kind, bytes: doc.bytes },
        selectPages: (count) => {
          pageCount = count;
          return Array.from({ length: Math.min(count, MAX_READ_PAGES) }, (_, i) => i);
        },
        keepLines: true,
        signal,
      });
      read = { pages: pages.map((p) => ({ index: p.index, text: p.markdown })), pageCount };
    } catch (err) {
      if (err instanceof InvalidDocumentError) throw invalidField(doc.loc, err.message, 'value_error');
      if (err instanceof OcrEngineUnavailableError) throw engineUnavailable(err.message);
      throw err;
    }
    cache.set(key, read);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  return { kind: doc.kind, name: doc.name, pages: read.pages, pageCount: read.pageCount };
}

/**
 * Checks the attachments of a request's messages (`sources`), then, with `read`, reads those of the latest
 * user message of `history` that has any. Errors are the platform's 4xx answers (and 503 without an OCR engine).
 */
export async function prepareAttachments(
  ctx: PlatformContext,
  { sources, history, read, signal }: { sources: readonly AttachmentSource[]; history: readonly ConversationEntry[]; read: boolean; signal: AbortSignal },
): Promise<ReadDocument[]> {
  const checked = new Map<object, Decoded>();
  for (const source of sources) {
    const chunks = attachmentChunks(source.content);
    if (chunks.length > MAX_ATTACHMENTS_PER_MESSAGE) {
      throw invalidField(source.loc, `A message may have at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments; this one has ${chunks.length}`, 'value_error');
    }
    for (const { chunk, index } of chunks) checked.set(chunk, await decode(ctx, chunk, [...source.loc, index], signal));
  }
  if (!read) return [];
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i];
    if (entry.type !== 'message.input' || entry.role !== 'user') continue;
    const chunks = attachmentChunks(entry.content);
    if (!chunks.length) continue;
    const documents: ReadDocument[] = [];
    for (const { chunk, index } of chunks) {
      const fresh = checked.get(chunk);
      try {
        documents.push(await readOne(ctx, fresh ?? await decode(ctx, chunk, ['body', 'history', i, 'content', index], signal), signal));
      } catch (err) {
        // An attachment of an earlier request that cannot be read any more (an expired signed URL…) is left out.
        if (fresh || !(err instanceof PlatformHttpError) || err.status >= 500) throw err;
      }
    }
    return documents;
  }
  return [];
}
