/**
 * pdf.js (pdfjs-dist, Apache-2.0) for the document viewer's page drawings. parley-kit does not depend
 * on pdfjs-dist (41 MB installed, with a native canvas binary for Node): `vite build` bundles this
 * module into dist/browser/vendor/ and scripts/vendor.mjs points dist/vendor/ at it. Plain JavaScript
 * beside a declaration file, so tsc never emits it over the bundle. Loaded lazily.
 */
export * from 'pdfjs-dist';
