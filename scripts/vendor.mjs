#!/usr/bin/env node
// After `vite build`: writes the npm ESM build's vendor modules (dist/vendor/*.js; src/vendor/ holds
// plain JavaScript re-exports of pdfjs-dist, a package parley-kit does not depend on, which tsc does not
// emit) as re-exports of the bundles vite made of them in
// dist/browser/vendor/, so bundlers and Node resolve them inside the package, which holds one copy of
// each. The bundles' names carry a content hash (`pdfjs-<hash>.js`), found here after each build. Their
// declarations are self-contained: the few types of pdf.js the viewer names.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const vendor = join(root, 'dist/vendor');
const bundles = join(root, 'dist/browser/vendor');

const declarations = {
  'pdfjs': `// pdf.js (pdfjs-dist, Apache-2.0), bundled in dist/browser/vendor/pdfjs-<hash>.js: the types parley-kit uses.
export interface PDFDocumentProxy { readonly numPages: number; getPage(pageNumber: number): Promise<unknown>; destroy(): Promise<void>; }
export declare const VerbosityLevel: { readonly ERRORS: number; readonly WARNINGS: number; readonly INFOS: number };
export declare function getDocument(source: { data: Uint8Array; isEvalSupported?: boolean; enableXfa?: boolean; verbosity?: number }): { promise: Promise<PDFDocumentProxy> };
`,
  'pdf-worker': `// pdf.js's worker code (pdfjs-dist, Apache-2.0), bundled in dist/browser/vendor/pdf-worker-<hash>.js.
export declare const WorkerMessageHandler: unknown;
`,
};

const names = readdirSync(join(root, 'src/vendor')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));
mkdirSync(vendor, { recursive: true });
const built = existsSync(bundles) ? readdirSync(bundles) : [];
for (const name of names) {
  // The bundles carry a content hash (`pdfjs-D1Me-EVR.js`, see vite.config.ts): the one this build made.
  const bundle = built.filter((f) => f.startsWith(`${name}-`) && /^[A-Za-z0-9_-]{8}\.js$/.test(f.slice(name.length + 1)));
  if (bundle.length !== 1) throw new Error(`vendor: expected one dist/browser/vendor/${name}-<hash>.js, found ${bundle.length}; run vite build first`);
  if (!declarations[name]) throw new Error(`vendor: no declarations written for ${name}`);
  writeFileSync(join(vendor, `${name}.js`), `export * from '../browser/vendor/${bundle[0]}';\n`);
  writeFileSync(join(vendor, `${name}.d.ts`), declarations[name]);
}
