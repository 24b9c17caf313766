/**
 * The reading of one document by `<doc-ocr-viewer>`: a PDF or an image (a Blob, or an http(s) URL) sent to
 * `client.ocr.process`, one at a time, with its progress; a new reading or `cancel()` aborts the one
 * before, whose late answer is dropped. A failure is sorted into a kind (`ocrErrorKind`, the same for
 * every language). Its hooks say what happened; the element turns them into words, announcements and
 * events. No DOM: the client comes from an injected function.
 */
import type { OcrOptions, OcrProgress, ParleyClientApi, PlatformErrorShape } from './contracts.js';
import { PlatformError, isAbortError } from './errors.js';
import { LatestRun } from './latest-run.js';
import type { OcrResponse } from './types.js';

/** Where a document came from. */
export type OcrSource = 'file' | 'url';

/**
 * Why reading failed, as the visitor is told (each language writes its own sentence per kind; the
 * platform's words go to the event and the console, not on screen).
 */
export type OcrErrorKind = 'network' | 'forbidden' | 'url-not-allowed' | 'too-large' | 'rejected' | 'rate-limited' | 'busy' | 'other';

/** `parley-ocr-error`'s kind: a platform failure, a file that is no document, or a relay that does not serve this page. */
export type OcrFailureKind = OcrErrorKind | 'not-document' | 'not-available';

/**
 * A failed reading: a file that is no PDF or image (never sent), or the platform's or the relay's error. Whether
 * the error is the relay's refusal of the page's origin (`not-available`) is the element's to see, as it tells the
 * page (`parley-error`) and the visitor differently.
 */
export type OcrFailure =
  | { kind: 'not-document'; documentType: string }
  | { kind: OcrErrorKind; error: PlatformError };

/** What the reading tells its element. */
export interface OcrReadingHooks {
  /** Something shown changed: busy, the name or the progress. */
  changed(): void;
  /** The document (`name`: the file name or the URL) is being sent. */
  started(source: OcrSource, name: string): void;
  /** Pages read so far, of how many (null while unknown). */
  progress(progress: OcrProgress): void;
  /** The document was read. */
  done(result: OcrResponse, name: string, document: Blob | string): void;
  failed(failure: OcrFailure): void;
  /** The reading in progress was cancelled (the document shown stays). */
  cancelled(): void;
}

/** What the reading needs: where requests go, and whom to tell (its hooks). */
export interface OcrReadingOptions extends OcrReadingHooks {
  client(): Promise<ParleyClientApi>;
}

/** Options of one reading (the element's attributes). */
export type OcrReadOptions = Pick<OcrOptions, 'model' | 'includeImageBase64' | 'batchSize'>;

/** See the module comment. */
export class OcrReading {
  readonly #hooks: OcrReadingOptions;
  readonly #runs = new LatestRun();
  #busy = false;
  #name = '';
  #progress: OcrProgress = { pagesDone: 0, pagesTotal: null };

  constructor(options: OcrReadingOptions) {
    this.#hooks = options;
  }

  /** Whether a document is being read. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Name of the document being read (or read last): the file's name, or the URL. */
  get name(): string {
    return this.#name;
  }

  /** Pages read so far by the reading in progress (or the last one). */
  get progress(): OcrProgress {
    return this.#progress;
  }

  /** Reads `document` (a Blob/File or an http(s) URL), cancelling the reading in progress. */
  async read(document: Blob | string, options: OcrReadOptions = {}): Promise<void> {
    this.cancel();
    const source: OcrSource = typeof document === 'string' ? 'url' : 'file';
    const name = typeof document === 'string' ? document : (document as File).name || 'document';
    if (typeof document !== 'string' && document.type && !/^(application\/pdf|image\/)/.test(document.type)) {
      this.#hooks.failed({ kind: 'not-document', documentType: document.type });
      return;
    }
    const run = this.#runs.next();
    this.#busy = true;
    this.#name = name;
    this.#progress = { pagesDone: 0, pagesTotal: null };
    this.#hooks.changed();
    this.#hooks.started(source, name);
    try {
      const client = await this.#hooks.client();
      const result = await client.ocr.process(document, {
        ...(options.model ? { model: options.model } : {}),
        includeImageBase64: options.includeImageBase64,
        batchSize: options.batchSize,
        signal: run.signal,
        onProgress: (progress) => {
          if (!run.current()) return;
          this.#progress = progress;
          this.#hooks.changed();
          this.#hooks.progress(this.#progress);
        },
      });
      if (!run.current()) return;
      this.#end();
      this.#hooks.done(result, name, document);
    } catch (error) {
      if (!run.current()) return;
      this.#end();
      if (isAbortError(error)) {
        this.#hooks.cancelled();
        return;
      }
      const e = PlatformError.from(error);
      this.#hooks.failed({ kind: ocrErrorKind(e), error: e });
    }
  }

  /** Stops the reading in progress (its request is aborted). */
  cancel(): void {
    if (!this.#busy) return;
    this.#runs.cancel();
    this.#end();
    this.#hooks.cancelled();
  }

  #end(): void {
    this.#busy = false;
    this.#hooks.changed();
  }
}

/** The kind of a platform failure, which picks the sentence shown (every language sorts them the same way). */
export function ocrErrorKind(error: PlatformErrorShape): OcrErrorKind {
  if (error.type === 'network_error') return 'network';
  // The relay does not let the platform fetch web addresses (its `allowRemoteFiles` is off): files only.
  if (error.code === 'remote_file_not_allowed') return 'url-not-allowed';
  if (error.status === 401 || error.status === 403) return 'forbidden';
  if (error.status === 413) return 'too-large';
  if (error.status === 415) return 'rejected';
  if (error.status === 400 || error.status === 422) return 'rejected';
  if (error.status === 429) return 'rate-limited';
  if (error.status === 503) return 'busy';
  return 'other';
}
