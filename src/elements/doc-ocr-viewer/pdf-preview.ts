/**
 * The original of a PDF page, drawn into a canvas with pdf.js (pdfjs-dist, Apache-2.0). pdf.js is
 * loaded on first use only, so a page that never shows a PDF never downloads it. Its worker code
 * runs on the page's thread (pdf.js's "fake worker", found as `globalThis.pdfjsWorker`): the kit
 * then needs no separate worker file, at the cost of parsing on the main thread, which is fine for
 * drawing one page at a time.
 */
import type { PDFDocumentProxy } from 'pdfjs-dist';

type PdfJs = typeof import('pdfjs-dist');

let loading: Promise<PdfJs> | null = null;

function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    // @ts-expect-error -- the worker build ships no type declarations; only its module object is needed.
    const worker: unknown = await import('pdfjs-dist/build/pdf.worker.min.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist');
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

/** Draws page `pageNumber` (1-based) of `pdf` into `canvas`, `cssWidth` CSS pixels wide, sharp on this screen. */
export async function drawPdfPage(pdf: PDFDocumentProxy, pageNumber: number, canvas: HTMLCanvasElement, cssWidth: number): Promise<void> {
  const page = await pdf.getPage(pageNumber);
  const base = page.getViewport({ scale: 1 });
  const ratio = globalThis.devicePixelRatio || 1;
  const viewport = page.getViewport({ scale: (cssWidth / base.width) * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${Math.floor(viewport.height / ratio)}px`;
  await page.render({ canvas, viewport }).promise;
}
