/** Rendering a PDF page with pdfjs and @napi-rs/canvas (the version pdfjs-dist itself uses): PNG for OCR, JPEG crops for images. */
import type { Canvas } from '@napi-rs/canvas';
import type { ImageBox } from './images.js';
import type { PDFPageProxy } from './pdf.js';

/** Largest rendering, in pixels (a letter page at 200 dpi is 3.7 M); larger pages are rendered at a lower resolution. */
export const MAX_RENDER_PIXELS = 40_000_000;

/** Renders `page` at `dpi` (lower if it would exceed {@link MAX_RENDER_PIXELS}) on a white background. */
export async function renderPage(page: PDFPageProxy, dpi: number): Promise<Canvas> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const full = page.getViewport({ scale: dpi / 72 });
  const viewport = page.getViewport({ scale: (dpi / 72) * Math.min(1, Math.sqrt(MAX_RENDER_PIXELS / (full.width * full.height))) });
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  // @napi-rs/canvas implements the part of the DOM canvas pdf.js draws with; its types are its own.
  await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: context as unknown as CanvasRenderingContext2D, viewport }).promise;
  return canvas;
}

/** Renders `page` at `dpi` and encodes it as PNG. */
export async function rasterizePage(page: PDFPageProxy, dpi: number): Promise<Uint8Array> {
  return (await renderPage(page, dpi)).encode('png');
}

/** The part of a rendered page inside `box` (scaled by `scale` when the page was rendered smaller), as a `data:image/jpeg;base64,…` URL. */
export async function cropJpeg(rendered: Canvas, box: ImageBox, scale = 1): Promise<string> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const crop = createCanvas(Math.max(1, Math.round((box.x1 - box.x0) * scale)), Math.max(1, Math.round((box.y1 - box.y0) * scale)));
  crop.getContext('2d').drawImage(rendered, -Math.round(box.x0 * scale), -Math.round(box.y0 * scale));
  return `data:image/jpeg;base64,${Buffer.from(await crop.encode('jpeg', 90)).toString('base64')}`;
}
