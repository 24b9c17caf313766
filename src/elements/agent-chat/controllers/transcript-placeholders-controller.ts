/**
 * Which of `<agent-chat>`'s replies are rendered in full (markdown) and which are light placeholders.
 *
 * Every message is in the page at first paint, however long the history: the newest {@link HISTORY_FULL}
 * items render in full, older replies start as their text as it is (`.bubble.placeholder`, in the same
 * `content-visibility: auto` box). An IntersectionObserver renders a placeholder in full once it comes
 * within a screen of the view; the search renders the ones it searches (`renderInFull`). Replies rendered
 * in full stay so for the conversation; switching conversation or showing the list starts again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** The newest items rendered in full at once; older replies are placeholders until near the view. */
export const HISTORY_FULL = 40;
/** How near the view (beyond its top and bottom, as a share of its height) a placeholder is rendered in full. */
const UPGRADE_MARGIN = '100% 0px';

export interface TranscriptPlaceholdersOptions {
  /** The transcript element (the observer's root), when it is in the page. */
  transcript: () => Element | null;
  /**
   * Whether placeholders near the view wait (the reader is kept at the end: their sizes, estimated while off
   * screen, changing above the view would move it; scrolling up renders them).
   */
  hold: () => boolean;
}

/** See the module comment. */
export class TranscriptPlaceholdersController implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #options: TranscriptPlaceholdersOptions;
  /** Keys of the replies rendered in full; the others older than the newest HISTORY_FULL are placeholders. */
  #full = new Set<string>();
  /** The conversation `#full` is about. */
  #fullOf: string | null = null;
  #observer: IntersectionObserver | null = null;
  #root: Element | null = null;
  /** Placeholders near the view, waiting while `hold()`. */
  #near = new Set<HTMLElement>();
  /**
   * What the last render with placeholders showed (conversation, number of items, replies rendered in
   * full), or null when it had none. When it changes, the placeholders are watched again after the update;
   * a streaming reply's deltas do not change it, so they cost no scan of the items.
   */
  #view: string | null = null;
  #viewKey = '';
  #watchedView: string | null = null;

  constructor(host: ReactiveControllerHost, options: TranscriptPlaceholdersOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  hostConnected(): void {
    // Back in the page: the placeholders still there are watched again (hostDisconnected let them go).
    if ((this.#host as { hasUpdated?: boolean }).hasUpdated) void this.#host.updateComplete.then(() => this.#watch(true));
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    this.#observer = null;
    this.#root = null;
    this.#near.clear();
  }

  hostUpdated(): void {
    this.#watch(false);
  }

  /** The transcript left the page (the conversation list): back to it, only the newest replies render in full. */
  reset(): void {
    this.#full.clear();
  }

  /**
   * Called by the transcript's render with its items (key and kind, oldest first) before rendering them.
   * Returns the index from which items render in full.
   */
  begin(conversationId: string | null, items: readonly { key: string; kind: string }[]): number {
    if (conversationId !== this.#fullOf) {
      this.#full.clear();
      this.#fullOf = conversationId;
    }
    const fullFrom = items.length - HISTORY_FULL;
    const key = `${conversationId}\n${items.length}\n${this.#full.size}`;
    if (key !== this.#viewKey) {
      this.#viewKey = key;
      this.#view = fullFrom > 0 && items.some((item, i) => i < fullFrom && item.kind === 'assistant' && !this.#full.has(item.key)) ? key : null;
    }
    return fullFrom;
  }

  /** Whether the reply `key` renders as a placeholder (`old`: older than the newest HISTORY_FULL items). */
  placeholder(key: string, old: boolean): boolean {
    if (!old) this.#full.add(key);
    return old && !this.#full.has(key);
  }

  /** The reader scrolled: placeholders near the view that waited are rendered now, unless still held. */
  renderNear(): void {
    if (!this.#near.size || this.#options.hold()) return;
    const near = [...this.#near];
    this.#near.clear();
    void this.renderInFull(near);
  }

  /** Renders these placeholder replies (their `.message` elements, with `data-key`) in full; resolves once they are. */
  async renderInFull(messages: readonly HTMLElement[]): Promise<void> {
    let added = false;
    for (const message of messages) {
      this.#observer?.unobserve(message);
      this.#near.delete(message);
      const key = message.dataset.key;
      if (key && !this.#full.has(key)) {
        this.#full.add(key);
        added = true;
      }
    }
    if (!added) return;
    // Replies above the view change size: a reader at the end is kept there by TranscriptScrollController
    // (after the update, and again as the sizes settle).
    this.#host.requestUpdate();
    await this.#host.updateComplete;
  }

  #watch(force: boolean): void {
    const root = this.#options.transcript();
    if (root !== this.#root) force = true;
    if (!force && this.#view === this.#watchedView) return;
    this.#watchedView = this.#view;
    if (!this.#view || !root || typeof IntersectionObserver !== 'function') return;
    if (root !== this.#root || !this.#observer) {
      // A new transcript (back from the conversation list): the old one's placeholders are gone.
      this.#observer?.disconnect();
      this.#near.clear();
      this.#root = root;
      this.#observer = new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (e.isIntersecting) this.#near.add(e.target as HTMLElement);
          else this.#near.delete(e.target as HTMLElement);
        }
        this.renderNear();
      }, { root, rootMargin: UPGRADE_MARGIN });
    }
    // Observing an element again does nothing: the ones already watched stay as they are.
    for (const bubble of root.querySelectorAll('.message > .bubble.placeholder')) this.#observer.observe(bubble.parentElement!);
  }
}
