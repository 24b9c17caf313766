/**
 * The conversation list of `<agent-chat>` (the header's "Conversations" button): the conversations saved
 * in the page's history, each to resume or delete. The list takes the transcript's place while it is
 * shown; focus moves to its heading, and back to the message box when it closes.
 */
import { html, nothing } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { ChatSessionController } from './chat-session-controller.js';
import { messageBox } from './composer-controller.js';

/** What the element does when the list moves the transcript. */
export interface ConversationListHooks {
  /** The list is shown: the transcript left the page (called before the update that renders the list). */
  shown(): void;
  /** A saved conversation is about to be shown in the transcript. */
  opening(): void;
}

/** See the module comment. */
export class ConversationListController implements ReactiveController {
  readonly #host: ParleyElement;
  readonly #chat: ChatSessionController;
  readonly #hooks: ConversationListHooks;
  #shown = false;
  /** Whether the last update rendered the list. */
  #rendered = false;

  constructor(host: ParleyElement, chat: ChatSessionController, hooks: ConversationListHooks) {
    this.#host = host;
    this.#chat = chat;
    this.#hooks = hooks;
    host.addController(this);
  }

  /** Whether the list is shown (in the transcript's place). */
  get shown(): boolean {
    return this.#shown;
  }

  hostUpdate(): void {
    if (this.#shown && !this.#rendered) this.#hooks.shown();
    this.#rendered = this.#shown;
  }

  /** Back to the transcript, focus left where it is. */
  hide(): void {
    this.#set(false);
  }

  /** The header's button: shows the list (listed again) and focuses its heading, or closes it and focuses the message box. */
  readonly toggle = async (): Promise<void> => {
    this.#set(!this.#shown);
    if (this.#shown) {
      await this.#chat.refreshConversations();
      await this.#host.updateComplete;
      this.#focusHeading();
    } else {
      await this.#host.updateComplete;
      messageBox(this.#host.renderRoot)?.focus();
    }
  };

  render(t: ShownStrings): TemplateResult {
    const chat = this.#chat;
    const list = chat.conversations ?? [];
    return html`<div part="conversation-list" class="conversations">
      <h3 tabindex="-1">${t.conversations}</h3>
      ${list.length === 0
        ? html`<p>${t.noConversations}</p>`
        : html`<ul>
            ${repeat(list, (c) => c.id, (c) => {
              const title = c.title || t.untitledConversation;
              const updated = new Date(c.updatedAt);
              return html`<li part="conversation">
                <button
                  part="conversation-button"
                  class="conversation-button"
                  type="button"
                  aria-current=${c.id === chat.state.conversationId ? 'true' : 'false'}
                  @click=${() => this.#open(c.id)}
                >
                  <span dir="auto">${title}</span>
                  ${Number.isNaN(updated.getTime()) ? nothing : html`<time datetime=${c.updatedAt}>${updated.toLocaleString()}</time>`}
                </button>
                <button part="delete-button" class="quiet" type="button" aria-label=${t.deleteConversation(title)} @click=${() => this.#delete(c.id)}>
                  ✕
                </button>
              </li>`;
            })}
          </ul>`}
      <button type="button" class="quiet" @click=${this.toggle}>${t.closeConversations}</button>
    </div>`;
  }

  async #open(id: string): Promise<void> {
    if (!this.#chat.session) return;
    this.#set(false);
    this.#hooks.opening();
    await this.#chat.open(id);
    await this.#host.updateComplete;
    messageBox(this.#host.renderRoot)?.focus();
  }

  async #delete(id: string): Promise<void> {
    if (!this.#chat.session) return;
    await this.#chat.delete(id);
    await this.#host.updateComplete;
    this.#focusHeading();
  }

  #focusHeading(): void {
    this.#host.renderRoot.querySelector<HTMLElement>('.conversations h3')?.focus();
  }

  #set(shown: boolean): void {
    if (shown === this.#shown) return;
    this.#shown = shown;
    this.#host.requestUpdate();
  }
}
