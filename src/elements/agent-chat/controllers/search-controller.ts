/**
 * The search over `<agent-chat>`'s messages (the header's "Search" button): the search bar and its state
 * line ("3 of 12 matches"), over `TranscriptSearch` (transcript-search.ts, loaded on first use, while the
 * reader types). Typing, Enter and Shift+Enter run as steps one after another; placeholder replies are
 * rendered in full to be searched, and the current match is scrolled into view. The page's highlight
 * registry is shared: closing the search, or taking the chat out of the page, takes its marks with it.
 */
import { nothing } from 'lit';
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
  /** The bar's module (search-bar.ts), loaded the first time the search opens. */
  #bar: typeof import('../search-bar.js') | null = null;
  #loading: Promise<unknown> | null = null;

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

  /** While the bar's module loads: settled once it has rendered (the element's updateComplete waits). */
  get loading(): Promise<unknown> | null {
    return this.#bar ? null : this.#loading;
  }

  /** The search bar (`search` part); nothing while its module loads (asking loads it). */
  render(t: ShownStrings): TemplateResult | typeof nothing {
    const bar = this.#bar;
    if (bar) {
      return bar.renderSearchBar({
        status: this.#status, total: this.#search?.total ?? 0, input: this.#onInput, keydown: this.#onKeydown,
        move: (by: 1 | -1) => void this.#step((s) => s.move(by)), close: () => this.close(true),
      }, t);
    }
    this.#loading ??= import('../search-bar.js').then((module) => {
      module.adoptSearchStyles(this.#host.renderRoot as ShadowRoot);
      this.#bar = module;
      this.#host.requestUpdate();
      return this.#host.updateComplete;
    }, () => {
      this.#loading = null; // the next render tries again
    });
    return nothing;
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
    if (!this.#input()?.value.trim() || !this.#bar) return '';
    return this.#bar.statusText(search.current, search.total, this.#parts.words());
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
