/** pdf.js's worker code, run on the page's thread as its "fake worker" (see pdf-preview.ts); bundled like ./pdfjs.js. */
export { WorkerMessageHandler } from 'pdfjs-dist/build/pdf.worker.min.mjs';
