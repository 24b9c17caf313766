/**
 * What a library document is and how its text is read: PDFs and images (found by their magic numbers) go
 * through the platform's OCR engine (text layers read directly, scans recognised); HTML has its tags
 * stripped; plain text, Markdown, JSON, CSV and other UTF-8 text are taken as they are. Anything else is
 * refused at upload, so a stored document always has a way to be processed.
 */
import { sniffDocument } from '../engines/ocr/sniff.js';
import type { OcrCatalog } from '../engines/ocr/catalog.js';

/** How a document's text is extracted. */
export type DocumentKind = 'pdf' | 'image' | 'html' | 'text';

export interface DocumentType {
  kind: DocumentKind;
  /** The media type reported as `mime_type`. */
  mimeType: string;
  /** The file name's extension, lower case without the dot, or null. */
  extension: string | null;
}

/** Processing cannot read the document (corrupt PDF, no OCR engine…); the message is kept as the failure reason. */
export class ExtractionError extends Error {}

const MIME_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp',
  html: 'text/html', htm: 'text/html', txt: 'text/plain', md: 'text/markdown', markdown: 'text/markdown', json: 'application/json',
  csv: 'text/csv', tsv: 'text/tab-separated-values', xml: 'application/xml', yaml: 'application/yaml', yml: 'application/yaml',
};

const isUtf8 = (bytes: Uint8Array) => {
  try {
    return !new TextDecoder('utf-8', { fatal: true }).decode(bytes).includes('\u0000');
  } catch {
    return false;
  }
};

/**
 * The type of an uploaded file from its bytes, name and declared media type, or undefined when it is
 * neither a PDF, an image nor UTF-8 text.
 */
export function documentType(filename: string, declared: string, bytes: Uint8Array): DocumentType | undefined {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(filename);
  const extension = match ? match[1].toLowerCase() : null;
  const byExtension = extension ? MIME_BY_EXTENSION[extension] : undefined;
  const plainDeclared = declared.split(';')[0].trim().toLowerCase();
  const sniffed = sniffDocument(bytes);
  if (sniffed === 'pdf') return { kind: 'pdf', mimeType: 'application/pdf', extension };
  if (sniffed === 'image') return { kind: 'image', mimeType: byExtension?.startsWith('image/') ? byExtension : plainDeclared.startsWith('image/') ? plainDeclared : 'image/png', extension };
  if (!isUtf8(bytes)) return undefined;
  const mimeType = byExtension ?? (plainDeclared && plainDeclared !== 'application/octet-stream' ? plainDeclared : 'text/plain');
  return { kind: mimeType === 'text/html' ? 'html' : 'text', mimeType, extension };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The visible text of an HTML document: scripts, styles and tags removed, block elements on their own lines. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|section|article|header|footer|li|ul|ol|h[1-6]|tr|table|blockquote|pre|title)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, name: string) => {
      if (name[0] === '#') {
        const code = name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      return ENTITIES[name.toLowerCase()] ?? all;
    })
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The document's text, one string per page (text documents are one page). */
export async function extractPages(type: DocumentType, bytes: Uint8Array, ocr: OcrCatalog, signal?: AbortSignal): Promise<string[]> {
  if (type.kind === 'text') return [new TextDecoder().decode(bytes)];
  if (type.kind === 'html') return [htmlToText(new TextDecoder().decode(bytes))];
  const model = ocr.resolve('mistral-ocr-latest') ?? ocr.resolve(ocr.models()[0]?.id ?? '');
  if (!model) throw new ExtractionError('No OCR model is configured on this platform to read PDFs and images');
  try {
    const pages = await model.engine.process({ input: { kind: type.kind, bytes }, signal });
    return pages.map((p) => p.markdown);
  } catch (err) {
    throw new ExtractionError(err instanceof Error ? err.message : String(err));
  }
}
