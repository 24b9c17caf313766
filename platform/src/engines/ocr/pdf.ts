/**
 * Reading PDFs with pdfjs-dist (legacy build, the one meant for Node), loaded on first use. Unreadable,
 * encrypted or truncated files become {@link InvalidDocumentError} with a message the caller can act on.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { TextRun } from './markdown.js';
import { InvalidDocumentError } from './types.js';

export type { PDFDocumentProxy, PDFPageProxy };

const root = () => path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** Opens a PDF (the bytes are copied: pdfjs takes ownership of what it is given). */
export async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const dir = root();
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: `${dir}/standard_fonts/`,
    cMapUrl: `${dir}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${dir}/wasm/`,
    isEvalSupported: false,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (err) {
    void task.destroy();
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') throw new InvalidDocumentError('The PDF is encrypted with a password; send an unencrypted copy');
    throw new InvalidDocumentError(`The PDF cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The text layer of a page as positioned runs (empty for a scanned page). */
export async function textRuns(page: PDFPageProxy): Promise<TextRun[]> {
  const content = await page.getTextContent();
  const runs: TextRun[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const [, , c, d, x, y] = item.transform as number[];
    runs.push({ str: item.str, x, y, width: item.width, size: Math.hypot(c, d) || item.height });
  }
  return runs;
}
