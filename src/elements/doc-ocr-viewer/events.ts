/**
 * The events of `<doc-ocr-viewer>`, added to the kit's typed event map (`ParleyEventDetails` and
 * `GlobalEventHandlersEventMap`) from here so the element's folder stays self-contained.
 */
import type { OcrResponse, PlatformErrorShape } from '../../client/index.js';
import type { OcrErrorKind, OcrFailureKind, OcrSource } from '../../client/ocr-reading.js';

// Where a document came from, and why reading it failed: the OCR reading's words for them.
export type { OcrErrorKind, OcrFailureKind, OcrSource };

/** Detail of `parley-ocr-start`: a document is being sent. */
export interface ParleyOcrStartDetail {
  source: OcrSource;
  /** The file name or the URL. */
  name: string;
}

/** Detail of `parley-ocr-progress`: pages recognised so far, of how many (null while unknown). */
export interface ParleyOcrProgressDetail {
  pagesDone: number;
  pagesTotal: number | null;
}

/** Detail of `parley-ocr-done`: the recognised document, pages in order. */
export interface ParleyOcrDoneDetail {
  result: OcrResponse;
  name: string;
}

/** Detail of `parley-ocr-error`: what failed (`error` carries the platform's own message), its kind, and the sentence shown. */
export interface ParleyOcrErrorDetail {
  error: PlatformErrorShape;
  kind: OcrFailureKind;
  message: string;
}

declare module '../internal/events.js' {
  interface ParleyEventDetails {
    'parley-ocr-start': ParleyOcrStartDetail;
    'parley-ocr-progress': ParleyOcrProgressDetail;
    'parley-ocr-done': ParleyOcrDoneDetail;
    'parley-ocr-error': ParleyOcrErrorDetail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'parley-ocr-start': CustomEvent<ParleyOcrStartDetail>;
    'parley-ocr-progress': CustomEvent<ParleyOcrProgressDetail>;
    'parley-ocr-done': CustomEvent<ParleyOcrDoneDetail>;
    'parley-ocr-error': CustomEvent<ParleyOcrErrorDetail>;
  }
}
