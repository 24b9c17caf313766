/** The OCR engine contract of the local platform (architecture rule 6: engines behind small interfaces). */
import type { ModelCard, OcrPage } from 'parley-kit/types';

/** A document already fetched and sniffed: a PDF or a single raster image. */
export interface OcrInput {
  kind: 'pdf' | 'image';
  bytes: Uint8Array;
}

export interface OcrJob {
  input: OcrInput;
  /**
   * Picks the 0-based page indexes to process once the page count is known (1 for an image), so the document
   * is opened once; throws to refuse the document or the selection. Absent: every page.
   */
  selectPages?: (count: number) => number[];
  /** Embedded images of text-layer pages: whether to return their pixels, at most how many, smallest width and height (px at 200 dpi). */
  images?: { includeBase64: boolean; limit: number | null; minSize: number | null };
  /** null: tables stay inline in the markdown; otherwise they go to the page's `tables` in this format, referenced as `[tbl-N.md](tbl-N.md)`. */
  tableFormat?: 'markdown' | 'html' | null;
  /** Each line of text stays a line of its own in the markdown (wrapped lines are not joined), for readers that quote lines. */
  keepLines?: boolean;
  signal?: AbortSignal;
}

/** An OCR engine: turns a document into one markdown page per processed page. */
export interface OcrEngine {
  readonly id: string;
  models(): ModelCard[];
  process(job: OcrJob): Promise<OcrPage[]>;
  close?(): Promise<void>;
}

/** The document cannot be read (corrupt, encrypted, not a PDF or image); the message says why. */
export class InvalidDocumentError extends Error {}
/** The engine cannot run on this install (e.g. the language data is missing). */
export class OcrEngineUnavailableError extends Error {}
