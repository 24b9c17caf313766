/**
 * Images drawn on a PDF page: their boxes come from the page's operator list (image-painting operators under
 * the current transformation matrix, through save/restore and form XObjects); their pixels, when asked, are
 * cropped from the page rendered at the OCR resolution and encoded as JPEG.
 */
import type { PDFPageProxy } from './pdf.js';

/** An image's box in pixels at the OCR resolution (top-left origin), and its top edge in PDF units (for ordering with text). */
export interface ImageBox { x0: number; y0: number; x1: number; y1: number; pdfTop: number }

type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  n[0] * m[0] + n[1] * m[2], n[0] * m[1] + n[1] * m[3],
  n[2] * m[0] + n[3] * m[2], n[2] * m[1] + n[3] * m[3],
  n[4] * m[0] + n[5] * m[2] + m[4], n[4] * m[1] + n[5] * m[3] + m[5],
];

/** Boxes of the raster images painted on `page`, in drawing order, at `dpi`. */
export async function imageBoxes(page: PDFPageProxy, dpi: number): Promise<ImageBox[]> {
  const { OPS } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const viewport = page.getViewport({ scale: dpi / 72 });
  const list = await page.getOperatorList();
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const boxes: ImageBox[] = [];
  list.fnArray.forEach((fn, i) => {
    const args = list.argsArray[i] as unknown[];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === OPS.paintFormXObjectBegin) { stack.push(ctm); if (Array.isArray(args[0])) ctm = multiply(ctm, args[0] as Matrix); }
    else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) {
      const corners = [[0, 0], [1, 0], [0, 1], [1, 1]].map(([u, v]) => [ctm[0] * u + ctm[2] * v + ctm[4], ctm[1] * u + ctm[3] * v + ctm[5]]);
      const onPage = corners.map(([x, y]) => viewport.convertToViewportPoint(x, y) as [number, number]);
      const xs = onPage.map((p) => p[0]);
      const ys = onPage.map((p) => p[1]);
      const clamp = (v: number, max: number) => Math.min(max, Math.max(0, Math.round(v)));
      boxes.push({
        x0: clamp(Math.min(...xs), viewport.width), y0: clamp(Math.min(...ys), viewport.height),
        x1: clamp(Math.max(...xs), viewport.width), y1: clamp(Math.max(...ys), viewport.height),
        pdfTop: Math.max(...corners.map((c) => c[1])),
      });
    }
  });
  return boxes.filter((b) => b.x1 > b.x0 && b.y1 > b.y0);
}
