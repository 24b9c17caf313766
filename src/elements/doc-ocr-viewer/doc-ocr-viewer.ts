import { html, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { PlatformError } from '../../client/index.js';
import type { OcrResponse } from '../../client/index.js';
import { OcrReading } from '../../client/ocr-reading.js';
import type { OcrFailure, OcrFailureKind } from '../../client/ocr-reading.js';
import { ParleyElement } from '../internal/parley-element.js';
import { relayClient } from '../internal/shared-client.js';
import { controlStyles } from '../internal/controls.styles.js';
import { countMatches, highlight, renderOcrPage } from './page-render.js';
import type { OriginalPages } from './original-pages.js';
import { resolveDocOcrViewerStrings } from './strings.js';
import type { DocOcrViewerStrings } from './strings.js';
import { docOcrViewerStyles } from './doc-ocr-viewer.styles.js';
import { LiveRegionController } from '../internal/live-region.js';
import { emitOriginRefusal } from '../internal/origin-refusal.js';
import { refusalKind } from '../../client/errors.js';
import { FocusRescueController } from '../internal/focus-rescue.js';
import { FileDropController, fileDropStyles } from '../internal/file-drop.js';
import { textField } from '../internal/text-field.js';

const ACCEPT = 'application/pdf,image/png,image/jpeg,image/gif,image/webp,image/avif';
/** Width, in CSS pixels, of a thumbnail in the page list. */
const THUMBNAIL_WIDTH = 96;

/**
 * Reads the text of a PDF or an image through a Parley relay (`POST /v1/ocr`) and shows it page by
 * page: drop, pick or paste a file, or give its URL; progress while the pages are read; each page's
 * markdown rendered (sanitised, never raw HTML; the page's own images shown from the inline data the
 * answer carries, remote images blocked); a page list with a thumbnail of each page, the original
 * page beside its text (a PDF drawn by pdf.js, loaded on first use, or the image itself), search
 * with highlighted matches, copy and download as `.md`.
 *
 * @tagname doc-ocr-viewer
 * @summary Read a PDF or an image with OCR and browse, search, copy or download its text.
 *
 * @attr relay-url - Base URL of the Parley relay, e.g. `/api`.
 * @attr model - OCR model (default `mistral-ocr-latest`).
 * @attr hide-images - Do not ask for the images inside pages (smaller answers).
 * @attr batch-size - Pages per request when a PDF's page count is known (default 4): progress is reported per batch.
 * @attr heading - A visible heading, also the element's accessible name.
 * @attr disabled - Turns off reading new documents (the text can still be browsed, copied and downloaded).
 *
 * @csspart base - The wrapper of everything.
 * @csspart heading - The heading (when `heading` is set).
 * @csspart drop-zone - The file button, also the target for dropped files.
 * @csspart url-form - The URL field and its button.
 * @csspart url-input - The URL field.
 * @csspart cancel-button - Cancels the reading in progress.
 * @csspart progress - The progress bar while reading.
 * @csspart error - The error message.
 * @csspart result - The result area.
 * @csspart toolbar - Search, copy and download.
 * @csspart search-input - The search field.
 * @csspart match-count - `Match 2 of 5`.
 * @csspart copy-page-button - Copies the page shown.
 * @csspart copy-all-button - Copies every page.
 * @csspart download-button - Downloads all pages as markdown.
 * @csspart copy-status - `Copied` after a copy.
 * @csspart page-list - The list of pages (a thumbnail of each, or its first words when there is no picture of it).
 * @csspart page-button - One page in the list (`aria-current="page"` on the one shown).
 * @csspart thumbnail - The picture of a page in the list (an `<img>`; for a PDF drawn by pdf.js when it scrolls into view).
 * @csspart page-nav - Previous and next page.
 * @csspart page-position - `Page 2 of 5`.
 * @csspart original-button - Shows or hides the original of the page beside its text (PDF and image files only; `aria-pressed`).
 * @csspart original - The original of the page shown (an `<img>`; a PDF page is drawn with pdf.js, loaded on first use).
 * @csspart original-status - Said in place of the original while it is drawn, or when it cannot be.
 * @csspart page - The rendered text of the page shown (beside the original when the element is 40rem wide or more, under it otherwise).
 * @csspart match - A search match in the page (`current` on the one jumped to).
 *
 * @cssproperty [--parley-font-family=system-ui] - Font.
 * @cssproperty [--parley-font-size=15px] - Base font size.
 * @cssproperty [--parley-color-text=#1d1d1f] - Text colour.
 * @cssproperty [--parley-color-muted=#545458] - Hints and page previews.
 * @cssproperty [--parley-color-background=#ffffff] - Background.
 * @cssproperty [--parley-color-surface=#f4f4f6] - Drop zone, page list and page background.
 * @cssproperty [--parley-color-border=#d2d2d7] - Borders.
 * @cssproperty [--parley-color-accent=#0b57d0] - Buttons, current page, drop highlight.
 * @cssproperty [--parley-color-on-accent=#ffffff] - Text on the accent colour.
 * @cssproperty [--parley-color-error=#b3261e] - Error text.
 * @cssproperty [--parley-radius=12px] - Corner radius.
 * @cssproperty [--parley-gap=0.75rem] - Spacing.
 * @cssproperty [--parley-focus-ring=2px solid var(--parley-color-accent)] - Outline of focused controls.
 * @cssproperty [--parley-match-color=#ffe082] - Background of search matches.
 *
 * @fires {CustomEvent<ParleyOcrStartDetail>} parley-ocr-start - A document is being sent (`detail.source`, `name`).
 * @fires {CustomEvent<ParleyOcrProgressDetail>} parley-ocr-progress - Pages read so far (`detail.pagesDone`, `pagesTotal`).
 * @fires {CustomEvent<ParleyOcrDoneDetail>} parley-ocr-done - The document was read (`detail.result`, `name`).
 * @fires {CustomEvent<ParleyOcrErrorDetail>} parley-ocr-error - Reading failed (`detail.error` with the platform's own message, `kind`, the `message` shown).
 * @fires {CustomEvent<ParleyErrorDetail>} parley-error - The relay does not serve this page's origin (`detail.error.code` is `origin_not_allowed`; the visitor sees a neutral message).
 */
export class DocOcrViewer extends ParleyElement {
  static override styles = [ParleyElement.styles, controlStyles, fileDropStyles, docOcrViewerStyles];

  /** Base URL of the Parley relay, e.g. `/api`. */
  @property({ attribute: 'relay-url' }) relayUrl = '';

  /** OCR model (default: the client's, `mistral-ocr-latest`). */
  @property() model = '';

  /** Do not ask for the images inside pages. */
  @property({ type: Boolean, attribute: 'hide-images' }) hideImages = false;

  /** Pages per request when a PDF's page count is known (progress is reported per batch). */
  @property({ type: Number, attribute: 'batch-size' }) batchSize = 4;

  /** A visible heading, also the element's accessible name. */
  @property() heading = '';

  /** Turns off reading new documents. */
  @property({ type: Boolean, reflect: true }) disabled = false;

  /** Overrides of the element's words (see `DocOcrViewerStrings`), for translation. */
  @property({ attribute: false }) strings: Partial<DocOcrViewerStrings> | null = null;

  /** The document shown: set by a reading, or by the host (an answer of `client.ocr.process`). */
  @property({ attribute: false }) result: OcrResponse | null = null;

  /** Name of the document shown (used for the download's file name). */
  @property({ attribute: false }) documentName = '';

  @state() private pageIndex = 0;
  @state() private search = '';
  /** Index of the match jumped to, over all pages; -1 when none. */
  @state() private matchIndex = -1;
  @state() private error = '';
  @state() private copyStatus = '';
  /** The PDF or image read last, whose pages can be shown as they look. */
  @state() private source: Blob | null = null;
  @state() private showOriginal = false;
  /** Thumbnails by position in `result.pages`: an object URL, or null when there is no picture (the first words stand in). */
  @state() private thumbnails: ReadonlyMap<number, string | null> = new Map();
  /** The original on show: page index and object URL (null: it could not be drawn). */
  @state() private original: { page: number; url: string | null } | null = null;

  /** The reading in progress: its request, progress and failures (see ocr-reading.ts). */
  readonly #ocr = new OcrReading({
    client: () => relayClient(this.relayUrl),
    changed: () => this.requestUpdate(),
    started: (source, name) => {
      this.#liveRegion.announce(this.#t.working(name, 0, null));
      this.emit('parley-ocr-start', { source, name });
    },
    progress: ({ pagesDone, pagesTotal }) => {
      if (pagesDone > 0) this.#liveRegion.announce(this.#t.working(this.#ocr.name, pagesDone, pagesTotal));
      this.emit('parley-ocr-progress', { pagesDone, pagesTotal });
    },
    done: (result, name, document) => {
      this.documentName = name;
      this.result = result;
      this.#setSource(typeof document !== 'string' && canPicture(document) ? document : null, result);
      this.#liveRegion.announce(this.#t.done(result.pages.length));
      this.emit('parley-ocr-done', { result, name });
    },
    failed: (failure) => this.#fail(failure),
    cancelled: () => this.#liveRegion.announce(this.#t.cancelled),
  });
  /** Matches per page for the current search. */
  #matchCounts: number[] = [];
  /** Rendered pages of the current result, filled as they are needed. */
  #rendered: DocumentFragment[] = [];
  /** Files picked, dropped or pasted, and URLs dropped or pasted, while reading is on and nothing is being read. */
  readonly #fileDrop = new FileDropController(this, {
    accepting: () => !this.disabled && !this.busy,
    file: (file) => void this.read(file),
    url: (url) => void this.read(url),
    paste: true,
  });
  /** What a screen reader says: one polite live region, rendered at the end of the template. */
  readonly #liveRegion = new LiveRegionController(this);
  /** @internal The cancel button goes when the reading ends: focus on it moves to the drop zone, not to the page. */
  protected readonly focusRescue = new FocusRescueController(this, '.cancel', '.drop-zone');
  /** @internal Next page is disabled on the last page (and Previous on the first): focus on it moves to the other one. */
  protected readonly nextPageRescue = new FocusRescueController(this, '.next-page', '.prev-page');
  /** @internal See `nextPageRescue`. */
  protected readonly previousPageRescue = new FocusRescueController(this, '.prev-page', '.next-page');
  /** The result `source` belongs to. */
  #sourceResult: OcrResponse | null = null;
  /** Pictures of `source`'s pages (one drawing queue per document; its module loaded on first use); disposed when the document changes or the element leaves the page. */
  #originalPages: Promise<OriginalPages> | null = null;
  /** The request for the original on show (aborted when another page is shown). */
  #originalRequest: AbortController | null = null;
  /** Requests thumbnails as their place in the page list scrolls into view. */
  #thumbnailObserver: IntersectionObserver | null = null;
  #observedList: Element | null = null;

  /** Whether a document is being read. */
  get busy(): boolean {
    return this.#ocr.busy;
  }

  /** 0-based position of the page shown in `result.pages`. */
  get page(): number {
    return this.pageIndex;
  }

  /** All pages' markdown, separated by blank lines (what Copy all copies and Download saves). */
  get markdown(): string {
    return (this.result?.pages ?? []).map((p) => p.markdown.trim()).join('\n\n');
  }

  get #t(): DocOcrViewerStrings {
    return resolveDocOcrViewerStrings(this.strings, this);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Back on the page: draw again what leaving it dropped.
    if (this.hasUpdated && this.source) void this.updateComplete.then(() => this.#showPictures());
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.cancel();
    this.#dropPictures();
  }

  /**
   * Reads a PDF or an image and shows its text (the reading in progress, if any, is cancelled).
   * @param document - The file (a Blob or File), or the http(s) URL of one.
   */
  async read(document: Blob | string): Promise<void> {
    if (this.disabled) return;
    this.error = '';
    await this.#ocr.read(document, { model: this.model, includeImageBase64: !this.hideImages, batchSize: this.batchSize });
  }

  /** Stops the reading in progress (the document shown stays). */
  cancel(): void {
    this.#ocr.cancel();
  }

  /**
   * Shows page `index` (0-based position in `result.pages`).
   * @param index - The page's position in `result.pages`, from 0; out of range, the first or the last page.
   */
  showPage(index: number): void {
    const count = this.result?.pages.length ?? 0;
    if (!count) return;
    this.pageIndex = Math.max(0, Math.min(count - 1, index));
  }

  /**
   * Shows page `page` of the document (numbered from 1, as the document numbers it) with `passage` highlighted
   * and in view, through the search: the search field then holds what was found (the whole passage, or its
   * first sentence or first words when the page's text breaks it up). This is what a source of an
   * `<agent-chat document-viewer="…">` reply calls. Resolves true when the passage was found on that page.
   * @param page - The page's number in the document, from 1 (its position in `result.pages` when no page has that number).
   * @param passage - The text to highlight; empty: the page only.
   */
  async showPassage(page: number, passage = ''): Promise<boolean> {
    const pages = this.result?.pages ?? [];
    if (!pages.length) return false;
    const found = pages.findIndex((p) => p.index + 1 === page);
    const position = found >= 0 ? found : Math.max(0, Math.min(pages.length - 1, page - 1));
    const text = passage.replace(/\s+/g, ' ').trim();
    const words = text.split(' ');
    const tries = [text.slice(0, 200), text.split(/(?<=[.!?])\s/)[0]!, words.slice(0, 6).join(' '), words.slice(0, 3).join(' ')];
    const query = tries.find((q) => q.length >= 3 && countMatches(this.#renderedPage(position), q) > 0) ?? '';
    this.search = query;
    this.pageIndex = position;
    await this.updateComplete;
    if (!query) return false;
    // The first match on that page: the matches of the pages before it come first.
    this.matchIndex = this.#matchCounts.slice(0, position).reduce((a, b) => a + b, 0);
    await this.updateComplete;
    return true;
  }

  /**
   * Copies the page shown (`page`) or every page (`all`) as markdown. Resolves false when the browser refused.
   * @param scope - `page` for the page shown, `all` (default) for every page, separated by blank lines.
   */
  async copy(scope: 'page' | 'all' = 'all'): Promise<boolean> {
    const text = scope === 'page' ? this.result?.pages[this.pageIndex]?.markdown ?? '' : this.markdown;
    try {
      await navigator.clipboard.writeText(text);
      this.copyStatus = this.#t.copied;
      return true;
    } catch {
      this.copyStatus = this.#t.copyFailed;
      return false;
    }
  }

  /** Downloads every page as one `.md` file named after the document. */
  download(): void {
    const blob = new Blob([this.markdown], { type: 'text/markdown' });
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    // The file's name, or the last path segment of a URL (without its query and fragment); then no extension.
    const path = /^[a-z][a-z0-9+.-]*:/i.test(this.documentName) ? this.documentName.replace(/[?#].*$/s, '') : this.documentName;
    const base = path.split(/[/\\]/).filter(Boolean).pop() || 'document';
    link.download = `${base.replace(/\.[A-Za-z0-9]+$/, '')}.md`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  /**
   * Shows or hides the original of the page shown beside its text (only for a PDF or an image read from a file); the button toggles it.
   * @param show - Whether to show it (default: the opposite of now).
   */
  toggleOriginal(show = !this.showOriginal): void {
    this.showOriginal = show && this.source !== null;
  }

  /** Keeps the PDF or image whose text `result` is (null: none, e.g. a result the host set). */
  #setSource(source: Blob | null, result: OcrResponse | null = null): void {
    this.#dropPictures();
    this.source = source;
    this.#sourceResult = result;
    if (!source) this.showOriginal = false;
  }

  /** Cancels every drawing of the document and forgets (revokes) its pictures. */
  #dropPictures(): void {
    this.#originalRequest?.abort();
    this.#originalRequest = null;
    this.#thumbnailObserver?.disconnect();
    this.#thumbnailObserver = null;
    this.#observedList = null;
    void this.#originalPages?.then((pictures) => pictures.dispose());
    this.#originalPages = null;
    if (this.thumbnails.size) this.thumbnails = new Map();
    if (this.original) this.original = null;
  }

  #pictures(): Promise<OriginalPages> | null {
    const source = this.source;
    if (!source) return null;
    return (this.#originalPages ??= import('./original-pages.js').then(({ OriginalPages }) => new OriginalPages(source)));
  }

  /** Asks for what is missing: the thumbnails in view, and the original when it is on show. */
  #showPictures(): void {
    this.#observeThumbnails();
    if (this.showOriginal) this.#requestOriginal();
  }

  /** Asks for the original of the page shown, dropping the request for the page shown before (a drawing in flight is cancelled). */
  #requestOriginal(): void {
    this.#originalRequest?.abort();
    this.#originalRequest = null;
    const page = this.result?.pages[this.pageIndex];
    const pictures = this.#pictures();
    if (!page || !pictures || !this.showOriginal) return;
    const request = new AbortController();
    this.#originalRequest = request;
    // The width is the column's, which the picture does not change (it is drawn at 100% of it): no resize loop.
    const frame = this.renderRoot.querySelector<HTMLElement>('.original-frame');
    const width = (frame?.clientWidth || 600) * (globalThis.devicePixelRatio || 1);
    pictures.then((p) => p.original(page.index, width, request.signal)).then(
      (url) => { if (!request.signal.aborted) this.original = { page: page.index, url }; },
      () => { if (!request.signal.aborted) this.original = { page: page.index, url: null }; },
    );
  }

  /** Watches the page list so each page's thumbnail is drawn once it comes near view (never all at once). */
  #observeThumbnails(): void {
    const list = this.renderRoot.querySelector('.page-list');
    if (!list || !this.source || typeof IntersectionObserver === 'undefined') return;
    if (list !== this.#observedList) {
      this.#thumbnailObserver?.disconnect();
      this.#thumbnailObserver = new IntersectionObserver((entries) => this.#onThumbnailsNear(entries), { root: list, rootMargin: '50%' });
      this.#observedList = list;
    }
    for (const slot of list.querySelectorAll<HTMLElement>('.thumbnail-slot')) {
      if (!this.thumbnails.has(Number(slot.dataset.position))) this.#thumbnailObserver!.observe(slot);
    }
  }

  #onThumbnailsNear(entries: IntersectionObserverEntry[]): void {
    const pictures = this.#pictures();
    const width = THUMBNAIL_WIDTH * Math.min(2, globalThis.devicePixelRatio || 1);
    for (const entry of entries) {
      if (!entry.isIntersecting || !pictures) continue;
      this.#thumbnailObserver?.unobserve(entry.target);
      const position = Number((entry.target as HTMLElement).dataset.position);
      const page = this.result?.pages[position];
      if (!page) continue;
      const done = (url: string | null) => {
        if (this.#originalPages === pictures) this.thumbnails = new Map(this.thumbnails).set(position, url);
      };
      pictures.then((p) => p.thumbnail(page.index, width)).then(done, () => done(null));
    }
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('result') || changed.has('strings')) this.#rendered = [];
    if (changed.has('result') && this.#sourceResult !== this.result) this.#setSource(null);
    if (changed.has('result')) {
      this.pageIndex = 0;
      this.matchIndex = -1;
    }
    if (changed.has('result') || changed.has('search')) {
      this.#matchCounts = (this.result?.pages ?? []).map((_, i) => (this.search ? countMatches(this.#renderedPage(i), this.search) : 0));
      this.matchIndex = -1;
    }
  }

  protected override updated(changed: PropertyValues): void {
    // Only these start drawings, and a finished drawing changes neither: an update never leads to another drawing by itself.
    if (['result', 'source'].some((key) => changed.has(key))) this.#observeThumbnails();
    if (['showOriginal', 'pageIndex', 'result', 'source'].some((key) => changed.has(key))) {
      if (this.showOriginal) this.#requestOriginal();
      else this.#originalRequest?.abort();
    }
    const page = this.renderRoot.querySelector<HTMLElement>('.page');
    if (!page || !['result', 'pageIndex', 'search', 'matchIndex', 'strings'].some((key) => changed.has(key))) return;
    if (!this.result?.pages[this.pageIndex]) {
      page.replaceChildren();
      return;
    }
    const fragment = this.#renderedPage(this.pageIndex).cloneNode(true) as DocumentFragment;
    const marks = highlight(fragment, this.search);
    page.replaceChildren(fragment);
    const before = this.#matchCounts.slice(0, this.pageIndex).reduce((a, b) => a + b, 0);
    const current = marks[this.matchIndex - before];
    if (current && changed.has('matchIndex')) {
      current.setAttribute('part', 'match current');
      current.scrollIntoView?.({ block: 'nearest' });
    }
  }

  /** Page `index` rendered once per result (search and navigation reuse it; shown as a clone). */
  #renderedPage(index: number): DocumentFragment {
    this.#rendered[index] ??= renderOcrPage(this.ownerDocument, this.result!.pages[index]!, this.#t.imageUnavailable);
    return this.#rendered[index]!;
  }

  /** Jumps to the next (+1) or previous (-1) match, on whichever page it is. */
  #jump(step: 1 | -1): void {
    const total = this.#matchCounts.reduce((a, b) => a + b, 0);
    if (!total) return;
    this.matchIndex = this.matchIndex < 0 ? (step > 0 ? 0 : total - 1) : (this.matchIndex + step + total) % total;
    let rest = this.matchIndex;
    for (let i = 0; i < this.#matchCounts.length; i++) {
      if (rest < this.#matchCounts[i]!) {
        this.pageIndex = i;
        break;
      }
      rest -= this.#matchCounts[i]!;
    }
  }

  /** Shows a failed reading in words, and tells the page (`parley-ocr-error`; `parley-error` for a refused origin). */
  #fail(failure: OcrFailure): void {
    const t = this.#t;
    let error: PlatformError;
    let kind: OcrFailureKind = failure.kind;
    let message: string;
    if (failure.kind === 'not-document') {
      message = t.notDocument(failure.documentType);
      error = new PlatformError({ status: 0, type: 'invalid_request_error', code: 'invalid_document', retryAfter: null, message });
    } else {
      error = failure.error;
      // The relay does not serve this page (the page hears it as parley-error), or refuses the model or scope (the
      // console names the setting): the visitor reads neutral words, with no "try again".
      if (emitOriginRefusal(this, error) || (refusalKind(error) === 'not-allowed' && kind !== 'url-not-allowed')) kind = 'not-available';
      message = kind === 'not-available' ? t.notAvailable : t.errorMessage(error.message, failure.kind);
    }
    this.error = message;
    // Announced once, politely, through the live region; the error line stays visible.
    this.#liveRegion.announce(message);
    this.emit('parley-ocr-error', { error, kind, message });
    // The platform's own words are for the site owner (the visitor sees the sentence above).
    if (kind !== 'not-document' && kind !== 'not-available' && error.message) console.warn('[parley] <doc-ocr-viewer> reading failed:', error);
  }

  // ---------------------------------------------------------------- input handlers

  #onUrlSubmit(event: SubmitEvent): void {
    event.preventDefault();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('url') as HTMLInputElement;
    const url = input.value.trim();
    if (url && input.checkValidity()) void this.read(url);
  }

  #onSearchInput(event: Event): void {
    this.search = (event.target as HTMLInputElement).value;
  }

  #onSearchKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    this.#jump(event.shiftKey ? -1 : 1);
  }

  /**
   * Arrow keys move between pages in the page list (one tab stop, roving focus). Left and right follow
   * the reading direction: in right-to-left text, ArrowLeft goes to the next page.
   */
  #onPageListKeydown(event: KeyboardEvent): void {
    const count = this.result?.pages.length ?? 0;
    const forward = getComputedStyle(this).direction === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const back = forward === 'ArrowLeft' ? 'ArrowRight' : 'ArrowLeft';
    const moves: Record<string, number> = { ArrowDown: 1, [forward]: 1, ArrowUp: -1, [back]: -1, Home: -count, End: count };
    const step = moves[event.key];
    if (step === undefined) return;
    event.preventDefault();
    this.showPage(this.pageIndex + step);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('[part~="page-button"][aria-current="page"]')?.focus());
  }

  // ---------------------------------------------------------------- render

  #renderPages(result: OcrResponse): TemplateResult {
    const t = this.#t;
    const pages = result.pages;
    const total = this.#matchCounts.reduce((a, b) => a + b, 0);
    const page = pages[this.pageIndex];
    return html`<div part="toolbar" class="toolbar row">
        <label class="search">${t.searchLabel}
          <input part="search-input" type="search" .value=${this.search} ${textField()} @input=${this.#onSearchInput} @keydown=${this.#onSearchKeydown} />
        </label>
        <button type="button" class="prev-match" aria-label=${t.previousMatch} title=${t.previousMatch} ?disabled=${!total} @click=${() => this.#jump(-1)}>↑</button>
        <button type="button" class="next-match" aria-label=${t.nextMatch} title=${t.nextMatch} ?disabled=${!total} @click=${() => this.#jump(1)}>↓</button>
        <span part="match-count" class="match-count" role="status">${this.search ? t.matches(total, this.matchIndex >= 0 ? this.matchIndex + 1 : null) : ''}</span>
        <span class="spacer"></span>
        <button part="copy-page-button" type="button" ?disabled=${!page} @click=${() => void this.copy('page')}>${t.copyPage}</button>
        <button part="copy-all-button" type="button" @click=${() => void this.copy('all')}>${t.copyAll}</button>
        <button part="download-button" type="button" @click=${this.download}>${t.download}</button>
        <span part="copy-status" class="copy-status" role="status">${this.copyStatus}</span>
      </div>
      <div class="reader">
        <nav class="pages" aria-label=${t.pagesLabel}>
          <ol part="page-list" class="page-list" @keydown=${this.#onPageListKeydown}>
            ${pages.map((p, i) => html`<li><button
              part="page-button"
              class="page-button"
              type="button"
              tabindex=${i === this.pageIndex ? '0' : '-1'}
              aria-current=${i === this.pageIndex ? 'page' : nothing}
              @click=${() => this.showPage(i)}
            ><span class="page-number">${t.pageTitle(p.index + 1)}</span>${this.#matchCounts[i]
                ? html` <span class="page-matches">(${t.matches(this.#matchCounts[i]!, null)})</span>` : nothing}
              <span class="thumbnail-slot" data-position=${i}>${this.thumbnails.get(i)
                // The button already says "Page N": the picture adds nothing for a screen reader.
                ? html`<img part="thumbnail" class="thumbnail" src=${this.thumbnails.get(i)!} alt="" width=${THUMBNAIL_WIDTH} />`
                : html`<span class="preview">${preview(p.markdown) || t.emptyPage}</span>`}</span></button></li>`)}
          </ol>
        </nav>
        <section class="page-view" aria-label=${page ? t.pageTitle(page.index + 1) : t.pagesLabel}>
          <div part="page-nav" class="page-nav row">
            <button type="button" class="prev-page" ?disabled=${this.pageIndex === 0} @click=${() => this.showPage(this.pageIndex - 1)}>${t.previousPage}</button>
            <span part="page-position" class="page-position">${pages.length ? t.pageOf(this.pageIndex + 1, pages.length) : ''}</span>
            <button type="button" class="next-page" ?disabled=${this.pageIndex >= pages.length - 1} @click=${() => this.showPage(this.pageIndex + 1)}>${t.nextPage}</button>
            ${this.source ? html`<button part="original-button" type="button" aria-pressed=${this.showOriginal ? 'true' : 'false'}
              @click=${() => this.toggleOriginal()}>${t.showOriginal}</button>` : nothing}
          </div>
          <div class="page-body ${this.showOriginal && page ? 'with-original' : ''}">
            ${this.showOriginal && page ? this.#renderOriginal(page.index) : nothing}
            <div part="page" class="page markdown" tabindex="0"></div>
          </div>
        </section>
      </div>`;
  }

  #renderOriginal(pageIndex: number): TemplateResult {
    const t = this.#t;
    const original = this.original?.page === pageIndex ? this.original : null;
    return html`<div class="original-frame" tabindex="0">${original?.url
      ? html`<img part="original" class="original" src=${original.url} alt=${t.originalOf(pageIndex + 1)} data-page=${pageIndex + 1} />`
      : html`<p part="original-status" class="original-status">${original ? t.originalUnavailable(pageIndex + 1) : t.drawingOriginal(pageIndex + 1)}</p>`}</div>`;
  }

  protected override render(): TemplateResult {
    const t = this.#t;
    const blocked = this.disabled || this.busy;
    const { pagesDone: done, pagesTotal: total } = this.#ocr.progress;
    return html`<div part="base" class="base" role="group" aria-label=${this.heading || t.viewerLabel}>
      ${this.heading ? html`<h2 part="heading" class="heading">${this.heading}</h2>` : nothing}
      <div class="row">
        ${this.#fileDrop.render(t.chooseFile, t.dropHint, ACCEPT)}
        <form part="url-form" class="url-form row" @submit=${this.#onUrlSubmit}>
          <label>${t.urlLabel} <input part="url-input" name="url" type="url" required placeholder="https://" ?disabled=${blocked} /></label>
          <button type="submit" ?disabled=${blocked}>${t.readUrl}</button>
        </form>
      </div>
      ${this.busy ? html`<div class="working row">
        <progress part="progress" aria-label=${t.progressLabel} max=${total ?? 1} value=${total ? done : nothing}></progress>
        <span class="working-text">${t.working(this.#ocr.name, done, total)}</span>
        <button part="cancel-button" class="cancel" type="button" @click=${() => this.cancel()}>${t.cancel}</button>
      </div>` : nothing}
      ${this.error ? html`<p part="error" class="error">${this.error}</p>` : nothing}
      <div part="result" class="result">
        ${this.result ? this.#renderPages(this.result) : html`<p class="empty">${t.emptyResult}</p>`}
      </div>
      ${this.#liveRegion.render()}
    </div>`;
  }

}

/** Whether the pages of a file can be shown as they look: a PDF (by type or name) or an image. */
function canPicture(blob: Blob): boolean {
  return /^(application\/pdf|image\/)/.test(blob.type) || /\.pdf$/i.test((blob as File).name ?? '');
}

/** The first words of a page's markdown, without markup, for the page list. */
function preview(markdown: string): string {
  const text = markdown.replace(/!\[[^\]]*\]\([^)]*\)/g, ' ').replace(/[#>*_`|[\]()-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
