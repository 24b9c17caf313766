/**
 * pdf.js's worker code, run on the page's thread as its "fake worker" (see pdf-preview.ts); bundled
 * like ./pdfjs.ts.
 */
// @ts-expect-error -- the worker build ships no type declarations; only its module object is needed.
export { WorkerMessageHandler } from 'pdfjs-dist/build/pdf.worker.min.mjs';
