/**
 * The words `<doc-ocr-viewer>` shows or announces, kept beside the element, in English; other languages
 * come from the locale catalogues (src/elements/locales/, `registerLocale()`), chosen by the element's
 * `lang`. Hosts change any word with a partial object in the `strings` property.
 */
import { localize } from '../internal/locale-registry.js';
import type { LocaleHost } from '../internal/locale-registry.js';
import { counter, numberIn } from '../internal/locale-format.js';
import type { OcrErrorKind } from './events.js';

const count = counter('en');
const num = numberIn('en');

/** The user-visible strings of `<doc-ocr-viewer>`. */
export interface DocOcrViewerStrings {
  /** Accessible name of the element (a group) when it has no `heading`. */
  viewerLabel: string;
  /** The drop zone, which is also the file picker button. */
  chooseFile: string;
  dropHint: string;
  urlLabel: string;
  readUrl: string;
  cancel: string;
  progressLabel: string;
  /** Said while working: `Reading report.pdf… 4 of 10 pages`. */
  working: (name: string, done: number, total: number | null) => string;
  done: (pages: number) => string;
  cancelled: string;
  pagesLabel: string;
  pageTitle: (page: number) => string;
  /** `Page 2 of 5`. */
  pageOf: (page: number, total: number) => string;
  previousPage: string;
  nextPage: string;
  /** A page without text, in the page list. */
  emptyPage: string;
  /** The toggle that shows the page as it looks (a PDF page drawn, or the image) beside its text. */
  showOriginal: string;
  /** Text alternative of the original of a page. */
  originalOf: (page: number) => string;
  /** In place of the original while it is drawn. */
  drawingOriginal: (page: number) => string;
  /** In place of the original when it cannot be drawn (pdf.js failed). */
  originalUnavailable: (page: number) => string;
  searchLabel: string;
  /** `3 matches` / `Match 2 of 3`. */
  matches: (count: number, current: number | null) => string;
  previousMatch: string;
  nextMatch: string;
  copyPage: string;
  copyAll: string;
  copied: string;
  copyFailed: string;
  download: string;
  emptyResult: string;
  /** Shown instead of an image the document did not include or that is not an inline image. */
  imageUnavailable: (alt: string) => string;
  /**
   * Why reading failed, by kind (see `ocrErrorKind` in src/client/ocr-reading.ts). `message` is the platform's own words: the built-in
   * sentences leave it out (it goes to `parley-ocr-error` and the console); it stays first so an override
   * written for it still works.
   */
  errorMessage: (message: string, kind: OcrErrorKind) => string;
  /** Shown when the relay does not serve this page's origin (the site's setup; `parley-error` has the details). */
  notAvailable: string;
  notDocument: (type: string) => string;
}

const OCR_ERRORS: Record<OcrErrorKind, string> = {
  network: 'The document service could not be reached. Check your connection and try again.',
  forbidden: 'Reading documents is not allowed here. Reload the page and try again.',
  'url-not-allowed': 'Documents cannot be read from a web address here. Download the document, then choose the file.',
  'too-large': 'The document is too large. Choose a smaller file or one with fewer pages.',
  rejected: 'The document could not be read. Check that it is a readable PDF or image, or that its URL points to one.',
  'rate-limited': 'Too many requests. Try again in a moment.',
  busy: 'The document service is busy or not installed. Try again later.',
  other: 'The document service had a problem and could not read the document.',
};

/** English defaults. */
export const defaultDocOcrViewerStrings: DocOcrViewerStrings = {
  viewerLabel: 'Document reader',
  chooseFile: 'Choose a PDF or an image',
  dropHint: 'or drop or paste one here',
  urlLabel: 'Document URL',
  readUrl: 'Read',
  cancel: 'Cancel',
  progressLabel: 'Pages read',
  working: (name, done, total) => `Reading ${name}…${total ? ` ${num(done)} of ${count(total, { one: '# page', other: '# pages' })}` : ''}`,
  done: (pages) => `Read ${count(pages, { one: '# page', other: '# pages' })}.`,
  cancelled: 'Cancelled',
  pagesLabel: 'Pages',
  pageTitle: (page) => `Page ${num(page)}`,
  pageOf: (page, total) => `Page ${num(page)} of ${num(total)}`,
  previousPage: 'Previous page',
  nextPage: 'Next page',
  emptyPage: '(no text)',
  showOriginal: 'Show original',
  originalOf: (page) => `Original of page ${page}`,
  drawingOriginal: (page) => `Drawing the original of page ${page}…`,
  originalUnavailable: (page) => `The original of page ${page} could not be drawn.`,
  searchLabel: 'Search the text',
  matches: (n, current) => (n === 0 ? 'No matches' : current ? `Match ${num(current)} of ${num(n)}` : count(n, { one: '# match', other: '# matches' })),
  previousMatch: 'Previous match',
  nextMatch: 'Next match',
  copyPage: 'Copy page',
  copyAll: 'Copy all',
  copied: 'Copied',
  copyFailed: 'Could not copy: the browser refused access to the clipboard.',
  download: 'Download .md',
  emptyResult: 'Choose, drop or paste a PDF or an image, or give its URL, to see its text here.',
  imageUnavailable: (alt) => `[image${alt ? `: ${alt}` : ''}]`,
  errorMessage: (_message, kind) => OCR_ERRORS[kind],
  notAvailable: 'Document reading is not available on this page.',
  notDocument: (type) => `That file is not a PDF or an image (${type || 'unknown type'}). Choose a PDF, PNG, JPEG or WebP file.`,
};

/** The words of a `<doc-ocr-viewer>`: in `host`'s language when it is given (see locale.ts), with the host's overrides applied. */
export function resolveDocOcrViewerStrings(overrides?: Partial<DocOcrViewerStrings> | null, host?: LocaleHost | null): DocOcrViewerStrings {
  return localize(host, 'docOcrViewer', defaultDocOcrViewerStrings, overrides);
}
