/**
 * The search over `<agent-chat>`'s messages (the header's "Search" button): the search bar and its state
 * line ("3 of 12 matches"), over `TranscriptSearch` (transcript-search.ts, loaded on first use, while the
 * reader types). Typing, Enter and Shift+Enter run as steps one after another; placeholder replies are
 * rendered in full to be searched, and the current match is scrolled into view. The page's highlight
 * registry is shared: closing the search, or taking the chat out of the page, takes its marks with it.
 */
import { html } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { TranscriptSearch } from '../transcript-search.js';
import type { ConversationListController } from './conversation-list-controller.js';
import type { TranscriptPlaceholdersController } from './transcript-placeholders-controller.js';
import type { TranscriptScrollController } from './transcript-scroll-controller.js';

/** What the search works with. */
export interface SearchParts {
  /** The conversation list: the search is hidden behind it while it is shown. */
  list: ConversationListController;
  placeholders: TranscriptPlaceholdersController;
  scroll: TranscriptScrollController;
  /** The element's words now. */
  words(): ShownStrings;
}

/** See the module comment. */
export class SearchController implements ReactiveController {
  readonly #host: ParleyElement;
  readonly #parts: SearchParts;
  #open = false;
  /** The search's state line (see `#statusText`). */
  #status = '';
  #search: TranscriptSearch | null = null;
  /** Search steps run one after another (typing, Enter, the module loading). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(host: ParleyElement, parts: SearchParts) {
    this.#host = host;
    this.#parts = parts;
    host.addController(this);
  }

  /** Whether the search is open (it may be hidden behind the conversation list). */
  get open(): boolean {
    return this.#open;
  }

  /** Whether the search bar is shown (open, and not behind the conversation list). */
  get shown(): boolean {
    return this.#open && !this.#parts.list.shown;
  }

  hostDisconnected(): void {
    if (this.#open) this.close(false);
  }

  /** The header's button: opens the search (closing the list) and focuses its field, or closes it. */
  readonly toggle = async (): Promise<void> => {
    if (this.shown) {
      this.close(true);
      return;
    }
    this.#parts.list.hide();
    this.#open = true;
    this.#host.requestUpdate();
    await this.#host.updateComplete;
    this.#input()?.focus();
    void this.#step(() => {}, false); // loads the search code while the reader types
  };

  /** Closes the search and clears its marks (`focusButton`: focus goes back to the header's button). */
  close(focusButton: boolean): void {
    this.#search?.clear();
    this.#open = false;
    this.#setStatus('');
    this.#host.requestUpdate();
    if (focusButton) this.#host.updateComplete.then(() => this.#host.renderRoot.querySelector<HTMLButtonElement>('.search-toggle')?.focus());
  }

  render(t: ShownStrings): TemplateResult {
    const total = this.#search?.total ?? 0;
    return html`<div part="search" class="search" id="search" role="search">
      <input
        part="search-input"
        type="search"
        dir="auto"
        aria-label=${t.searchLabel}
        placeholder=${t.searchLabel}
        @input=${this.#onInput}
        @keydown=${this.#onKeydown}
      />
      <span part="search-status" class="search-status" role="status" aria-live="polite">${this.#status}</span>
      <button part="search-previous-button" class="quiet" type="button" aria-label=${t.searchPrevious} ?disabled=${!total} @click=${() => this.#step((s) => s.move(-1))}>
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 15l6-6 6 6" /></svg>
      </button>
      <button part="search-next-button" class="quiet" type="button" aria-label=${t.searchNext} ?disabled=${!total} @click=${() => this.#step((s) => s.move(1))}>
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 9l6 6 6-6" /></svg>
      </button>
      <button part="search-close-button" class="quiet" type="button" aria-label=${t.closeSearch} @click=${() => this.close(true)}>✕</button>
    </div>`;
  }

  #input(): HTMLInputElement | null {
    return this.#host.renderRoot.querySelector('.search input');
  }

  #step(step: (search: TranscriptSearch) => void | Promise<void>, reveal = true): Promise<unknown> {
    const { placeholders, scroll } = this.#parts;
    this.#queue = this.#queue.then(async () => {
      this.#search ??= new (await import('../transcript-search.js')).TranscriptSearch(
        () => this.#host.renderRoot.querySelector('.transcript'),
        (messages) => placeholders.renderInFull(messages),
      );
      if (!this.#open) return;
      await step(this.#search);
      if (!this.#open) return this.#search.clear(); // closed while placeholders were rendered in full
      this.#setStatus(this.#statusText(this.#search));
      if (reveal && this.#search.total) {
        scroll.stickToBottom = false;
        await this.#search.reveal();
      }
    }).catch((error: unknown) => console.warn('[parley] <agent-chat> search failed:', error));
    return this.#queue;
  }

  #setStatus(status: string): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#host.requestUpdate();
  }

  #statusText(search: TranscriptSearch): string {
    const t = this.#parts.words();
    if (!this.#input()?.value.trim()) return '';
    return search.total ? t.searchMatches(search.current, search.total) : t.searchNoMatches;
  }

  readonly #onInput = (event: Event): void => {
    const query = (event.target as HTMLInputElement).value;
    void this.#step((search) => search.find(query));
  };

  readonly #onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      void this.#step((search) => search.move(event.shiftKey ? -1 : 1));
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close(true);
    }
  };
}
