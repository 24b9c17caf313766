/**
 * pdf.js (pdfjs-dist, Apache-2.0) for the document viewer's page drawings. parley-kit does not depend
 * on pdfjs-dist (41 MB installed, with a native canvas binary for Node): the build bundles this module
 * into dist/browser/vendor/ and dist/vendor/ points at it (scripts/vendor.mjs). Loaded lazily.
 */
export * from 'pdfjs-dist';
