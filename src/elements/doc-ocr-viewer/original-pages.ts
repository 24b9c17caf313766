/**
 * The originals of one document's pages as pictures (object URLs for `<img>`): for an image, the
 * image itself; for a PDF, pages drawn by pdf.js (pdf-preview.ts, which loads it on first use) through ONE
 * queue per document. Drawings run one at a time (the page shown before thumbnails), each on a
 * canvas of its own, with a turn of the event loop between them so input is never starved; a
 * request whose signal aborts leaves the queue or has its pdf.js render task cancelled; `dispose()`
 * cancels everything and revokes every URL handed out. Concurrent renders on one document, a
 * canvas shared between renders, and drawings that outlive their document cannot happen.
 * Loaded by the element only once it has a document to picture.
 */
import { drawPdfPage, openPdf } from './pdf-preview.js';
import type { PDFDocumentProxy } from '../../vendor/pdfjs.js';

/** Originals kept drawn (least recently asked for go first); thumbnails are small and all kept. */
const ORIGINALS_KEPT = 8;

type Kind = 'thumbnail' | 'original';

interface Drawing {
  kind: Kind;
  /** 0-based page index in the document. */
  page: number;
  /** Device pixels. */
  width: number;
  resolve: (url: string) => void;
  reject: (error: unknown) => void;
  /** Aborts this drawing only (its own signal, or `dispose`). */
  stop: AbortController;
}

function abortError(): DOMException {
  return new DOMException('The drawing was cancelled.', 'AbortError');
}

function isPdf(blob: Blob): boolean {
  return blob.type === 'application/pdf' || (blob as File).name?.toLowerCase().endsWith('.pdf') === true;
}

export class OriginalPages {
  readonly #imageUrl: string | null = null;
  #pdfDocument: Promise<PDFDocumentProxy> | null = null;
  readonly #waiting: Drawing[] = [];
  #active: Drawing | null = null;
  #pumping = false;
  #disposed = false;
  readonly #thumbnails = new Map<number, string>();
  /** Insertion order is recency: the first key is dropped first. */
  readonly #originals = new Map<number, string>();

  /** `source` is a PDF (by type or file name) or an image. */
  readonly #source: Blob;

  constructor(source: Blob) {
    this.#source = source;
    if (!isPdf(source)) this.#imageUrl = URL.createObjectURL(source);
  }

  /** A small picture of page `page` (0-based), `width` device pixels wide; drawn after any original asked for. */
  thumbnail(page: number, width: number, signal?: AbortSignal): Promise<string> {
    return this.#request('thumbnail', page, Math.round(Math.min(400, Math.max(16, width))), signal);
  }

  /** Page `page` (0-based) drawn `width` device pixels wide (kept at the width of its first drawing). */
  original(page: number, width: number, signal?: AbortSignal): Promise<string> {
    return this.#request('original', page, Math.round(Math.min(2400, Math.max(200, width))), signal);
  }

  /** Cancels every drawing, revokes every URL handed out and closes the PDF. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const drawing of this.#waiting.splice(0)) drawing.reject(abortError());
    this.#active?.stop.abort();
    for (const url of [...this.#thumbnails.values(), ...this.#originals.values()]) URL.revokeObjectURL(url);
    this.#thumbnails.clear();
    this.#originals.clear();
    if (this.#imageUrl) URL.revokeObjectURL(this.#imageUrl);
    void this.#pdfDocument?.then((doc) => doc.destroy(), () => undefined);
    this.#pdfDocument = null;
  }

  #request(kind: Kind, page: number, width: number, signal: AbortSignal | undefined): Promise<string> {
    if (this.#disposed || signal?.aborted) return Promise.reject(abortError());
    if (this.#imageUrl) return Promise.resolve(this.#imageUrl);
    const kept = this.#kept(kind).get(page);
    if (kept) {
      if (kind === 'original') this.#touch(page, kept);
      return Promise.resolve(kept);
    }
    return new Promise<string>((resolve, reject) => {
      const drawing: Drawing = { kind, page, width, resolve, reject, stop: new AbortController() };
      signal?.addEventListener('abort', () => this.#cancel(drawing), { once: true });
      // The page shown goes before thumbnails; otherwise first come, first drawn.
      const at = kind === 'original' ? this.#waiting.findIndex((d) => d.kind === 'thumbnail') : -1;
      this.#waiting.splice(at < 0 ? this.#waiting.length : at, 0, drawing);
      void this.#pump();
    });
  }

  #cancel(drawing: Drawing): void {
    const at = this.#waiting.indexOf(drawing);
    if (at >= 0) {
      this.#waiting.splice(at, 1);
      drawing.reject(abortError());
    } else if (this.#active === drawing) {
      drawing.stop.abort();
    }
  }

  /** Draws the waiting pages one after the other; only one loop runs per document. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let drawing = this.#waiting.shift(); drawing && !this.#disposed; drawing = this.#waiting.shift()) {
        this.#active = drawing;
        try {
          drawing.resolve(await this.#draw(drawing));
        } catch (error) {
          drawing.reject(drawing.stop.signal.aborted ? abortError() : error);
        } finally {
          this.#active = null;
        }
        // A turn of the event loop between drawings, so clicks and keys are handled in between.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #draw(drawing: Drawing): Promise<string> {
    const kept = this.#kept(drawing.kind).get(drawing.page);
    if (kept) return kept;
    drawing.stop.signal.throwIfAborted(); // cancelled or disposed already: open nothing
    this.#pdfDocument ??= openPdf(this.#source);
    const doc = await this.#pdfDocument;
    drawing.stop.signal.throwIfAborted();
    const blob = await drawPdfPage(doc, drawing.page + 1, drawing.width, drawing.stop.signal);
    if (this.#disposed) throw abortError();
    const url = URL.createObjectURL(blob);
    if (drawing.kind === 'thumbnail') this.#thumbnails.set(drawing.page, url);
    else this.#touch(drawing.page, url);
    return url;
  }

  #kept(kind: Kind): Map<number, string> {
    return kind === 'thumbnail' ? this.#thumbnails : this.#originals;
  }

  /** Marks an original as just used, dropping (and revoking) the least recently used beyond `ORIGINALS_KEPT`. */
  #touch(page: number, url: string): void {
    this.#originals.delete(page);
    this.#originals.set(page, url);
    while (this.#originals.size > ORIGINALS_KEPT) {
      const [oldest, oldUrl] = this.#originals.entries().next().value as [number, string];
      this.#originals.delete(oldest);
      URL.revokeObjectURL(oldUrl);
    }
  }
}
