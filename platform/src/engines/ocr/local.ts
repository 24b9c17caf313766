/**
 * The local OCR engine `parley-ocr` (standing in for Mistral OCR): PDF pages with a text layer are read
 * from it (pdfjs), pages without one and images are rendered and recognised by a pool of tesseract.js
 * workers. Output per page: markdown, `dimensions` at 200 dpi, and the images drawn on text-layer pages
 * (`img-N.jpeg`, numbered through the document, referenced from the markdown where they sit). Tables of text
 * layers are inline markdown tables, or with a `table_format` the page's `tables` (`tbl-N.md`/`tbl-N.html`).
 */
import type { OcrImage, OcrPage, OcrTable } from 'parley-kit/types';
import { modelCard } from '../model-card.js';
import { htmlTable, markdownTable, ocrTextToMarkdown, textLayerToMarkdown } from './markdown.js';
import { openPdf, textRuns, type PDFDocumentProxy } from './pdf.js';
import { imageSize } from './image-size.js';
import { imageBoxes, type ImageBox } from './images.js';
import { MAX_RENDER_PIXELS, cropJpeg, rasterizePage, renderPage } from './rasterize.js';
import { TesseractPool } from './tesseract-pool.js';
import { InvalidDocumentError, type OcrEngine, type OcrJob } from './types.js';

/** Resolution of `dimensions` and of rendering for OCR, as the real service reports. */
export const OCR_DPI = 200;

export const PARLEY_OCR_CARD = modelCard({
  id: 'parley-ocr',
  name: 'Parley OCR (pdfjs + tesseract.js)',
  description: 'Local document OCR standing in for Mistral OCR: PDF text layers read directly, scanned pages and images recognised with tesseract (English). Markdown with headings, paragraphs and lists.',
  ownedBy: 'mistralai',
  created: 1_700_000_000,
  capabilities: { ocr: true },
  aliases: ['mistral-ocr-latest', 'mistral-ocr-2505', 'mistral-ocr-2512'],
});

export interface LocalOcrOptions {
  /** tesseract.js workers (default min(2, CPU count)). */
  poolSize?: number;
}

/** Runs `task` over `items` with at most `limit` at a time, keeping the order of results. */
async function mapLimited<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

/** Stands for the page's n-th image or table in markdown until ids are given through the document. */
const placeholder = (kind: 'img' | 'tbl', n: number) => `\u0000${kind}${n}\u0000`;
const PLACEHOLDER = /^\u0000(img|tbl)(\d+)\u0000$/;

interface PageResult { page: OcrPage; boxes: ImageBox[]; tables: string[][][] }

export function createLocalOcrEngine(options: LocalOcrOptions = {}): OcrEngine {
  const pool = new TesseractPool(options.poolSize);

  async function withPdf<R>(bytes: Uint8Array, use: (doc: PDFDocumentProxy) => Promise<R>): Promise<R> {
    const doc = await openPdf(bytes);
    try {
      return await use(doc);
    } finally {
      await doc.destroy();
    }
  }

  async function pdfPage(doc: PDFDocumentProxy, index: number, minSize: number, extractTables: boolean, keepLines: boolean, signal?: AbortSignal): Promise<PageResult> {
    signal?.throwIfAborted();
    const page = await doc.getPage(index + 1);
    try {
      const { width, height } = page.getViewport({ scale: OCR_DPI / 72 });
      const dimensions = { dpi: OCR_DPI, height: Math.round(height), width: Math.round(width) };
      const runs = await textRuns(page);
      if (!runs.some((r) => r.str.trim())) {
        const { text } = await pool.recognize(await rasterizePage(page, OCR_DPI));
        return { page: { index, markdown: ocrTextToMarkdown(text, keepLines), images: [], dimensions }, boxes: [], tables: [] };
      }
      const boxes = (await imageBoxes(page, OCR_DPI)).filter((b) => b.x1 - b.x0 >= minSize && b.y1 - b.y0 >= minSize);
      const tables: string[][][] = [];
      const table = extractTables ? (rows: string[][]) => placeholder('tbl', tables.push(rows) - 1) : markdownTable;
      const markdown = textLayerToMarkdown(runs, boxes.map((b, n) => ({ top: b.pdfTop, markdown: placeholder('img', n) })), table, keepLines);
      return { page: { index, markdown, images: [], dimensions }, boxes, tables };
    } finally {
      page.cleanup();
    }
  }

  /**
   * Numbers images and tables through the document; images past `limit` are dropped, kept ones get their
   * pixels when asked.
   */
  async function finishPages(doc: PDFDocumentProxy, results: PageResult[], job: OcrJob): Promise<OcrPage[]> {
    const limit = job.images?.limit ?? Infinity;
    const ext = job.tableFormat === 'html' ? 'html' : 'md';
    let next = 0;
    let nextTable = 0;
    for (const { page, boxes, tables } of results) {
      const kept: Array<{ box: ImageBox; image: OcrImage }> = [];
      const pageTables: OcrTable[] = [];
      page.markdown = page.markdown
        .split('\n\n')
        .map((block) => {
          const match = PLACEHOLDER.exec(block);
          if (!match) return block;
          const n = match[2];
          if (match[1] === 'tbl') {
            const rows = tables[Number(n)];
            const id = `tbl-${nextTable++}.${ext}`;
            pageTables.push({ id, content: ext === 'html' ? htmlTable(rows) : markdownTable(rows), format: ext === 'html' ? 'html' : 'markdown' });
            return `[${id}](${id})`;
          }
          if (next >= limit) return '';
          const box = boxes[Number(n)];
          const id = `img-${next++}.jpeg`;
          kept.push({ box, image: { id, top_left_x: box.x0, top_left_y: box.y0, bottom_right_x: box.x1, bottom_right_y: box.y1, image_base64: null } });
          return `![${id}](${id})`;
        })
        .filter(Boolean)
        .join('\n\n');
      if (job.tableFormat) page.tables = pageTables;
      if (job.images?.includeBase64 && kept.length) {
        const rendered = await renderPage(await doc.getPage(page.index + 1), OCR_DPI);
        const scale = rendered.width / Math.ceil(page.dimensions!.width);
        for (const k of kept) k.image.image_base64 = await cropJpeg(rendered, k.box, scale);
      }
      page.images = kept.map((k) => k.image);
    }
    return results.map((r) => r.page);
  }

  return {
    id: 'local-ocr',
    models: () => [PARLEY_OCR_CARD],
    async process(job: OcrJob) {
      if (job.input.kind === 'image') {
        job.selectPages?.(1);
        const size = imageSize(job.input.bytes);
        if (!size) throw new InvalidDocumentError('The image cannot be decoded: its header is missing or truncated');
        if (size.width * size.height > MAX_RENDER_PIXELS) {
          throw new InvalidDocumentError(`The image is ${size.width}×${size.height} pixels; at most ${MAX_RENDER_PIXELS / 1e6} megapixels can be recognised`);
        }
        const { text } = await pool.recognize(job.input.bytes);
        return [{ index: 0, markdown: ocrTextToMarkdown(text, job.keepLines), images: [], dimensions: { dpi: OCR_DPI, height: size.height, width: size.width } }];
      }
      return withPdf(job.input.bytes, async (doc) => {
        const indexes = job.selectPages?.(doc.numPages) ?? Array.from({ length: doc.numPages }, (_, i) => i);
        try {
          const minSize = job.images?.minSize ?? 0;
          const results = await mapLimited(indexes, pool.size + 1, (i) => pdfPage(doc, i, minSize, !!job.tableFormat, !!job.keepLines, job.signal));
          return await finishPages(doc, results, job);
        } catch (err) {
          if (err instanceof InvalidDocumentError || (err as { name?: string }).name === 'AbortError') throw err;
          const name = (err as { name?: string }).name ?? '';
          if (/Exception$/.test(name)) throw new InvalidDocumentError(`A page of the PDF cannot be read: ${(err as Error).message}`);
          throw err;
        }
      });
    },
    close: () => pool.close(),
  };
}
