/**
 * A pool of tesseract.js workers (each a worker thread with the LSTM engine), started lazily on first use
 * and reused across requests. The English data is read from the local `@tesseract.js-data/eng` package:
 * without a local `langPath` tesseract.js downloads from a CDN and, offline, crashes the process.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import path from 'node:path';
import type { Worker } from 'tesseract.js';
import { InvalidDocumentError, OcrEngineUnavailableError } from './types.js';

/** Recognised text of one image, with tesseract's mean confidence (0-100). */
export interface Recognized { text: string; confidence: number }

/** The local directory of the English LSTM data, or an error saying what to install. */
export function englishLangPath(): string {
  try {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
    if (existsSync(path.join(dir, 'eng.traineddata.gz')) || existsSync(path.join(dir, 'eng.traineddata'))) return dir;
  } catch { /* below */ }
  throw new OcrEngineUnavailableError('OCR needs the English language data: npm install @tesseract.js-data/eng');
}

export class TesseractPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: Array<(w: Worker) => void> = [];
  private readonly all: Array<Promise<Worker>> = [];
  private closed = false;

  /** `size`: number of workers (default min(2, CPU count)). */
  constructor(readonly size = Math.max(1, Math.min(2, cpus().length))) {}

  /** Recognises the text of an encoded image (PNG, JPEG…). */
  async recognize(image: Uint8Array): Promise<Recognized> {
    const worker = await this.acquire();
    try {
      const { data } = await worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
      return { text: data.text, confidence: data.confidence };
    } catch (err) {
      // The worker rejects with a string; an image leptonica cannot read is the caller's fault.
      const message = err instanceof Error ? err.message : String(err);
      if (/read image/i.test(message)) throw new InvalidDocumentError(`The image cannot be decoded: ${message.replace(/^Error:\s*/, '')}`);
      throw err instanceof Error ? err : new Error(message);
    } finally {
      this.release(worker);
    }
  }

  /** Terminates every worker started. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = await Promise.allSettled(this.all);
    await Promise.all(workers.map((w) => (w.status === 'fulfilled' ? w.value.terminate().catch(() => {}) : undefined)));
  }

  private async acquire(): Promise<Worker> {
    if (this.closed) throw new OcrEngineUnavailableError('The OCR engine is closed');
    const free = this.idle.pop();
    if (free) return free;
    if (this.all.length < this.size) {
      const started = this.start();
      this.all.push(started);
      try {
        return await started;
      } catch (err) {
        this.all.splice(this.all.indexOf(started), 1);
        throw err;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  private async start(): Promise<Worker> {
    const langPath = englishLangPath();
    const { createWorker, OEM } = await import('tesseract.js');
    // errorHandler: without it a failed job also throws from the worker's message handler, uncaught (process crash);
    // with it the job's promise still rejects.
    return createWorker('eng', OEM.LSTM_ONLY, { langPath, cacheMethod: 'none', gzip: true, errorHandler: () => {} });
  }
}
