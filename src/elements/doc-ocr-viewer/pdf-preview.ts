/**
 * The original of a PDF page, drawn with pdf.js (pdfjs-dist, Apache-2.0) into a canvas of its own
 * and handed back as a PNG. pdf.js is loaded on first use only, so a page that never shows a PDF
 * never downloads it. Its worker code runs on the page's thread (pdf.js's "fake worker", found as
 * `globalThis.pdfjsWorker`): the kit then needs no separate worker file, at the cost of parsing on
 * the main thread, which is why drawings go one at a time through `OriginalPages`' queue.
 */
import type { PDFDocumentProxy } from '../../vendor/pdfjs.js';

type PdfJs = typeof import('../../vendor/pdfjs.js');

let loading: Promise<PdfJs> | null = null;

function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const worker: unknown = await import('../../vendor/pdf-worker.js');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('../../vendor/pdfjs.js');
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

/** Opens a PDF for drawing its pages (the bytes are copied: pdf.js takes ownership of what it is given). */
export async function openPdf(pdf: Blob): Promise<PDFDocumentProxy> {
  const pdfjs = await loadPdfJs();
  const data = new Uint8Array(await pdf.arrayBuffer());
  return pdfjs.getDocument({ data, isEvalSupported: false, enableXfa: false, verbosity: pdfjs.VerbosityLevel.ERRORS }).promise;
}

/**
 * Draws page `pageNumber` (1-based) of `pdf` `width` device pixels wide into a fresh canvas (never
 * one on screen, so no two renders can share a canvas) and encodes it as PNG. `signal` cancels
 * the pdf.js render task mid-page.
 */
export async function drawPdfPage(pdf: PDFDocumentProxy, pageNumber: number, width: number, signal?: AbortSignal): Promise<Blob> {
  const page = await pdf.getPage(pageNumber);
  signal?.throwIfAborted();
  const base = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: width / base.width });
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.floor(viewport.width));
  canvas.height = Math.max(1, Math.floor(viewport.height));
  const task = page.render({ canvas, viewport, background: '#ffffff' });
  const cancel = (): void => task.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    await task.promise;
  } finally {
    signal?.removeEventListener('abort', cancel);
    page.cleanup();
  }
  signal?.throwIfAborted();
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  canvas.width = canvas.height = 0; // frees the bitmap now rather than at garbage collection
  if (!blob) throw new Error(`page ${pageNumber} could not be encoded`);
  return blob;
}
