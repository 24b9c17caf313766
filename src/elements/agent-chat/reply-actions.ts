/**
 * The buttons under a finished reply of `<agent-chat>` and what they do (loaded with the first reply shown,
 * see ReplyExtrasController):
 *
 * - **Copy** copies the reply as markdown, its sources listed under it; "Copied" (or, when the browser
 *   refuses, a sentence saying so) is announced.
 * - **Thumbs up / down** (toggle buttons, `aria-pressed`): the rating is kept in the history store across
 *   reloads and fires `parley-feedback`; pressing the pressed one again takes the rating back (`rating: null`).
 *   A thumbs-down opens a small form for an optional comment; the rating goes out when it is sent or skipped.
 *   When the relay serves feedback (its session lists `feedback`), the rating is also sent to it, and the
 *   relay writes it to the site owner's dataset.
 * - **Sources** (sources-view.ts), and a document's page shown in the `<doc-ocr-viewer>` named by `document-viewer`.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { ReplyFeedback } from '../../client/contracts.js';
import type { ParleyElement } from '../internal/parley-element.js';
import { openSharedStore, sharedClient } from '../internal/shared-client.js';
import type { ShownStrings } from './strings.js';
import { replyActionsEnglish } from './reply-actions.strings.js';
import type { TranscriptItem } from './transcript.js';
import { renderSourcesList, replySources, sourcesMarkdown, type Source } from './sources-view.js';
import { replyExtrasStyles } from './reply-actions.styles.js';
import type {} from './feedback-events.js';
import { textField } from '../internal/text-field.js';

/** The element's words with this module's English. */
type Words = ShownStrings & typeof replyActionsEnglish;

type Reply = TranscriptItem & { kind: 'assistant' };

/** What the actions read of `<agent-chat>`. */
export interface ReplyActionsHost {
  element: ParleyElement & { relayUrl: string; documentViewer: string };
  /** Says a sentence in the chat's live region. */
  announce(message: string): void;
  words(): ShownStrings;
  conversationId(): string | null;
  /** Hosts whose images may load (favicons). */
  imageHosts(): string[];
}

/** The element's words with these parts' English under them (a catalogue's or the host's still win); the last one kept. */
let lastShown: ShownStrings | null = null;
let lastWords: Words | null = null;
function withEnglish(t: ShownStrings): Words {
  if (t !== lastShown) [lastShown, lastWords] = [t, { ...replyActionsEnglish, ...t }];
  return lastWords!;
}

/** The comment a visitor may write with a thumbs-down, capped (the relay refuses longer ones). */
export const MAX_COMMENT = 2000;

/** A `<doc-ocr-viewer>` (or anything with its `showPassage`). */
interface PassageViewer extends Element {
  showPassage(page: number, passage?: string): Promise<boolean>;
}

/**
 * Writes `text` to the clipboard: `navigator.clipboard` where the page may use it (a secure context), else
 * the browser's copy command on a hidden text box. Resolves false when neither worked.
 */
async function copyText(root: ParentNode, text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API here (insecure context, old browser) or it was refused: the copy command, if it still works.
  }
  const box = document.createElement('textarea');
  box.value = text;
  box.setAttribute('readonly', '');
  box.style.cssText = 'position:fixed;opacity:0;inset:0 auto auto 0';
  root.append(box);
  try {
    box.select();
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    box.remove();
  }
}

/** See the module comment. */
export class ReplyActions {
  readonly #host: ReplyActionsHost;
  /** Ratings of the conversation shown (`#ratingsOf`), by message id. */
  #ratings = new Map<string, ReplyFeedback>();
  #ratingsOf: string | null = null;
  /** The reply whose comment form is open. */
  #commenting: string | null = null;
  /** The reply last copied (its button says so). */
  #copied: string | null = null;
  /** Focus to move after the next update (a selector in the render root). */
  #focus: string | null = null;

  constructor(host: ReplyActionsHost) {
    this.#host = host;
    const root = host.element.renderRoot as ShadowRoot;
    // The styles of what this module renders come with it (constructable sheets, as Lit adopts its own).
    const sheet = replyExtrasStyles.styleSheet;
    if (sheet && 'adoptedStyleSheets' in root) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  /** After each update of the chat: reads the ratings of a newly shown conversation, moves focus when asked. */
  updated(): void {
    const id = this.#host.conversationId();
    if (id !== this.#ratingsOf) {
      this.#ratingsOf = id;
      this.#ratings = new Map();
      this.#commenting = null;
      if (id) void this.#readRatings(id);
    }
    if (this.#focus) {
      this.#host.element.renderRoot.querySelector<HTMLElement>(this.#focus)?.focus();
      this.#focus = null;
    }
  }

  async #readRatings(id: string): Promise<void> {
    const kept = await (await openSharedStore())?.getFeedback?.(id).catch(() => undefined);
    if (!kept || this.#ratingsOf !== id) return;
    // Ratings given while the store was read win over the kept ones.
    this.#ratings = new Map([...Object.entries(kept), ...this.#ratings]);
    this.#host.element.requestUpdate();
  }

  /** The transcript's clicks: a code block's copy button (the markdown renderer's) copies its code. */
  onClick(event: MouseEvent): void {
    const button = event.composedPath().find((node): node is HTMLButtonElement => node instanceof HTMLButtonElement);
    if (!button?.classList.contains('parley-copy-code') || !button.closest('.markdown')) return;
    const code = button.closest('pre')?.querySelector('code')?.textContent ?? '';
    void this.#copyText(code.replace(/\n$/, ''));
  }

  /** Copies `text` and says whether it worked. */
  async #copyText(text: string): Promise<boolean> {
    const done = await copyText(this.#host.element.renderRoot, text);
    const t = withEnglish(this.#host.words());
    this.#host.announce(done ? t.copied : t.copyFailed);
    return done;
  }

  /** The reply's text with its sources' markers in place. */
  text(reply: Reply): string {
    return typeof reply.entry.content === 'string' ? reply.text : replySources(reply.entry.content).text;
  }

  renderSources(reply: Reply, shown: ShownStrings): TemplateResult | null {
    const { sources } = replySources(reply.entry.content);
    if (!sources.length) return null;
    const viewer = this.#host.element.documentViewer;
    return html`${renderSourcesList(sources, withEnglish(shown), {
      imageHosts: this.#host.imageHosts(),
      ...(viewer ? { openPage: (source: Source) => void this.#openPage(viewer, source) } : {}),
    })}`;
  }

  /** Copy, thumbs up and thumbs down, and the comment form after a thumbs-down. */
  renderActions(reply: Reply, shown: ShownStrings): TemplateResult {
    const t = withEnglish(shown);
    const id = reply.entry.id;
    const rating = this.#ratings.get(id)?.rating;
    const rated = this.#host.conversationId() !== null;
    return html`<button part="copy-button" class="quiet" type="button" data-copy=${id} @click=${() => void this.#copy(reply)}>${this.#copied === id ? t.copied : t.copyReply}</button>
      ${rated
        ? html`<button part="feedback-button feedback-up-button" class="quiet thumb" type="button" data-rate="up" data-for=${id}
            aria-pressed=${rating === 'up' ? 'true' : 'false'} aria-label=${t.goodReply} title=${t.goodReply}
            @click=${() => this.#rate(id, 'up')}>👍</button>
          <button part="feedback-button feedback-down-button" class="quiet thumb" type="button" data-rate="down" data-for=${id}
            aria-pressed=${rating === 'down' ? 'true' : 'false'} aria-label=${t.badReply} title=${t.badReply}
            @click=${() => this.#rate(id, 'down')}>👎</button>`
        : nothing}
      ${this.#commenting === id ? this.#renderCommentForm(id, t) : nothing}`;
  }

  #renderCommentForm(id: string, t: Words): TemplateResult {
    return html`<form part="feedback-form" class="feedback-form" data-for=${id}
        @submit=${(event: SubmitEvent) => {
          event.preventDefault();
          const comment = ((event.currentTarget as HTMLFormElement).elements.namedItem('comment') as HTMLTextAreaElement).value;
          this.#finishDown(id, comment);
        }}
        @keydown=${(event: KeyboardEvent) => {
          if (event.key !== 'Escape') return;
          event.preventDefault(); // the chat's own Escape (stop, close the panel) waits
          this.#finishDown(id, '');
        }}>
      <label>${t.feedbackComment}<textarea part="feedback-comment" name="comment" rows="2" maxlength=${MAX_COMMENT} ${textField()}></textarea></label>
      <div class="feedback-buttons">
        <button part="feedback-send-button" class="primary" type="submit">${t.sendFeedback}</button>
        <button part="feedback-skip-button" class="quiet" type="button" @click=${() => this.#finishDown(id, '')}>${t.skipFeedback}</button>
      </div>
    </form>`;
  }

  async #copy(reply: Reply): Promise<void> {
    const t = withEnglish(this.#host.words());
    const text = reply.text + sourcesMarkdown(replySources(reply.entry.content).sources, t);
    const done = await this.#copyText(text);
    this.#copied = done ? reply.entry.id : null;
    this.#host.element.requestUpdate();
  }

  #rate(id: string, rating: 'up' | 'down'): void {
    const conversationId = this.#host.conversationId();
    if (!conversationId) return;
    const pressed = this.#ratings.get(id)?.rating === rating;
    if (pressed) {
      // Taken back: forgotten here and told to the page (the dataset keeps what was sent).
      this.#keep(conversationId, id, null);
      if (this.#commenting === id) this.#commenting = null;
      this.#host.element.emit('parley-feedback', { conversationId, messageId: id, rating: null });
    } else if (rating === 'up') {
      if (this.#commenting === id) this.#commenting = null;
      this.#keep(conversationId, id, { rating: 'up' });
      this.#send(conversationId, id, { rating: 'up' });
    } else {
      this.#keep(conversationId, id, { rating: 'down' });
      this.#commenting = id;
      this.#focus = `.feedback-form[data-for="${CSS.escape(id)}"] textarea`;
    }
    this.#host.element.requestUpdate();
  }

  /** The thumbs-down's form was sent (with or without a comment) or skipped: the rating goes out. */
  #finishDown(id: string, comment: string): void {
    const conversationId = this.#host.conversationId();
    this.#commenting = null;
    this.#focus = `[data-rate="down"][data-for="${CSS.escape(id)}"]`;
    this.#host.element.requestUpdate();
    if (!conversationId || this.#ratings.get(id)?.rating !== 'down') return;
    const text = comment.trim().slice(0, MAX_COMMENT);
    const feedback: ReplyFeedback = text ? { rating: 'down', comment: text } : { rating: 'down' };
    this.#keep(conversationId, id, feedback);
    this.#send(conversationId, id, feedback);
  }

  #keep(conversationId: string, id: string, feedback: ReplyFeedback | null): void {
    if (feedback) this.#ratings.set(id, feedback);
    else this.#ratings.delete(id);
    void openSharedStore().then((store) => store?.setFeedback?.(conversationId, id, feedback)).catch(() => {});
  }

  /** Tells the page (`parley-feedback`) and, when the relay serves it, the relay. */
  #send(conversationId: string, messageId: string, feedback: ReplyFeedback): void {
    this.#host.element.emit('parley-feedback', { conversationId, messageId, ...feedback });
    this.#host.announce(withEnglish(this.#host.words()).feedbackThanks);
    const relayUrl = this.#host.element.relayUrl;
    if (!relayUrl) return;
    void (async () => {
      const client = await sharedClient(relayUrl);
      if (!client.feedback || !(await client.feedback.available())) return;
      await client.feedback.send(conversationId, { message_id: messageId, ...feedback });
    })().catch((error: unknown) => {
      // The visitor's rating is kept and the page was told; the dataset missing it is the site owner's to see.
      console.warn('[parley] <agent-chat> feedback could not be sent to the relay:', error);
    });
  }

  /** Shows a document source's page in the viewer with the id `viewerId` (in the chat's tree, or the document). */
  async #openPage(viewerId: string, source: Source): Promise<void> {
    const root = this.#host.element.getRootNode() as Document | ShadowRoot;
    const viewer = (root.getElementById?.(viewerId) ?? document.getElementById(viewerId)) as PassageViewer | null;
    if (!viewer || typeof viewer.showPassage !== 'function' || !source.page) return;
    viewer.scrollIntoView?.({ block: 'nearest' });
    await viewer.showPassage(source.page, source.description.replace(/…$/, ''));
  }
}
