/**
 * Document text recognition on the client: `POST /v1/ocr` with a PDF or an image, either a Blob
 * (sent inline as a `data:` URL) or an https URL. Long documents whose page count is known are sent
 * in batches of pages, so progress can be reported between answers; the batches' pages are merged
 * in page order. Loaded on first use (the client imports it lazily). Isomorphic: no DOM, no Node built-ins.
 */
import type { OcrOptions } from './contracts.js';
import { PlatformError } from './errors.js';
import { encodeBase64 } from './base64.js';
import type { OcrDocument, OcrRequest, OcrResponse } from './types.js';

/** The platform's OCR model the client asks for when none is named. */
export const DEFAULT_OCR_MODEL = 'mistral-ocr-latest';
/** Pages per request when a document is batched. */
export const DEFAULT_OCR_BATCH = 4;

/** Sends one OCR request and returns the parsed JSON answer (the client's request function). */
export type OcrSender = (request: OcrRequest, signal?: AbortSignal) => Promise<unknown>;

const IMAGE_EXTENSION = /\.(?:png|jpe?g|gif|webp|avif|bmp|tiff?)$/i;

/** Runs {@link OcrApi.process}: one request, or one per batch of pages when the page count is known. */
export async function processOcr(send: OcrSender, input: Blob | string, options: OcrOptions = {}): Promise<OcrResponse> {
  const { document, bytes } = await ocrDocument(input, options.documentName);
  const pages = options.pages ?? allPages(options.pageCount ?? (bytes ? countPdfPages(bytes) : null));
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_OCR_BATCH));
  const total = pages?.length ?? null;
  options.onProgress?.({ pagesDone: 0, pagesTotal: total });

  const batches = pages && pages.length > batchSize ? chunk(pages, batchSize) : [pages];
  const answers: OcrResponse[] = [];
  let done = 0;
  for (const batch of batches) {
    const answer = ocrResult(await send(ocrRequest(document, batch, options), options.signal));
    answers.push(answer);
    done += answer.pages.length;
    options.onProgress?.({ pagesDone: done, pagesTotal: total ?? done });
  }
  return mergeOcr(answers);
}

/** The request body for one batch (`pages` null = the whole document or the caller's selection). */
function ocrRequest(document: OcrDocument, pages: number[] | null, options: OcrOptions): OcrRequest {
  const request: OcrRequest = { model: options.model ?? DEFAULT_OCR_MODEL, document };
  if (pages) request.pages = pages;
  if (options.includeImageBase64 !== undefined) request.include_image_base64 = options.includeImageBase64;
  if (options.imageLimit !== undefined) request.image_limit = options.imageLimit;
  if (options.imageMinSize !== undefined) request.image_min_size = options.imageMinSize;
  if (options.tableFormat !== undefined) request.table_format = options.tableFormat;
  return request;
}

/** The `document` of a request, plus the Blob's bytes when it is a PDF (to count its pages). */
async function ocrDocument(input: Blob | string, name?: string): Promise<{ document: OcrDocument; bytes: Uint8Array | null }> {
  if (typeof input === 'string') {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw invalid(`Not a URL: ${input.slice(0, 80)}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('A document URL must be http or https');
    if (IMAGE_EXTENSION.test(url.pathname)) return { document: { type: 'image_url', image_url: url.href }, bytes: null };
    return { document: withName({ type: 'document_url', document_url: url.href }, name), bytes: null };
  }
  const bytes = new Uint8Array(await input.arrayBuffer());
  const type = input.type.split(';')[0]!.trim().toLowerCase() || sniffType(bytes);
  const dataUrl = `data:${type};base64,${encodeBase64(bytes)}`;
  if (type.startsWith('image/')) return { document: { type: 'image_url', image_url: dataUrl }, bytes: null };
  if (type !== 'application/pdf') throw invalid(`Only PDF documents and images can be read (this is ${type || 'of an unknown type'})`);
  const own = (input as { name?: unknown }).name;
  return { document: withName({ type: 'document_url', document_url: dataUrl }, name ?? (typeof own === 'string' && own ? own : undefined)), bytes };
}

/**
 * The page count of a PDF from its page tree (the largest `/Count` of a `/Type /Pages` dictionary),
 * or null when the tree is not stored as plain text (compressed object streams): cheap, no PDF parser.
 */
export function countPdfPages(bytes: Uint8Array): number | null {
  const text = new TextDecoder('latin1').decode(bytes);
  let best = 0;
  for (const match of text.matchAll(/<<((?:(?!>>)[\s\S]){0,2000}?)>>/g)) {
    const dict = match[1]!;
    if (!/\/Type\s*\/Pages(?![A-Za-z])/.test(dict)) continue;
    const count = /\/Count\s+(\d+)/.exec(dict);
    if (count) best = Math.max(best, Number(count[1]));
  }
  return best > 0 ? best : null;
}

/** Checks one answer: an object with a `pages` array. */
function ocrResult(body: unknown): OcrResponse {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { pages?: unknown }).pages)) {
    throw new PlatformError({ status: 200, type: 'invalid_response', code: null, retryAfter: null, message: 'The OCR answer has no pages' });
  }
  return body as OcrResponse;
}

/** One answer from the answers of the batches: pages in page order, usage summed. */
function mergeOcr(answers: OcrResponse[]): OcrResponse {
  if (answers.length === 1) return answers[0]!;
  const first = answers[0]!;
  return {
    pages: answers.flatMap((a) => a.pages).sort((a, b) => a.index - b.index),
    model: first.model,
    document_annotation: first.document_annotation ?? null,
    usage_info: {
      pages_processed: answers.reduce((sum, a) => sum + (a.usage_info?.pages_processed ?? a.pages.length), 0),
      doc_size_bytes: first.usage_info?.doc_size_bytes ?? null,
    },
  };
}

function allPages(count: number | null): number[] | null {
  return count && count > 0 ? Array.from({ length: count }, (_, i) => i) : null;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function withName(document: Extract<OcrDocument, { type: 'document_url' }>, name: string | undefined): OcrDocument {
  return name ? { ...document, document_name: name } : document;
}

/** The type of an untyped Blob from its first bytes (PDF, PNG, JPEG, GIF, WebP), else ''. */
function sniffType(bytes: Uint8Array): string {
  const head = String.fromCharCode(...bytes.subarray(0, 12));
  if (head.startsWith('%PDF-')) return 'application/pdf';
  if (head.startsWith('\x89PNG')) return 'image/png';
  if (head.startsWith('\xFF\xD8\xFF')) return 'image/jpeg';
  if (head.startsWith('GIF8')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  return '';
}

function invalid(message: string): PlatformError {
  return new PlatformError({ status: 0, type: 'invalid_request_error', code: 'invalid_document', retryAfter: null, message });
}
