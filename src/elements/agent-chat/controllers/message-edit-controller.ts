/**
 * Edit-and-resend in `<agent-chat>`: a user message's "Edit" button turns the message into a form (its
 * text in a box, Cancel, "Save and send"); saving sends the new text in its place, and what came after it
 * is dropped. Escape or Cancel puts the message back and focus on its "Edit" button.
 */
import { html } from 'lit';
import type { TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { ChatSessionController } from './chat-session-controller.js';
import { messageBox } from './composer-controller.js';
import type { TranscriptScrollController } from './transcript-scroll-controller.js';
import { textField } from '../../internal/text-field.js';

/** See the module comment. It needs no lifecycle hooks, so it only asks its host to update. */
export class MessageEditController {
  readonly #host: ParleyElement;
  readonly #chat: ChatSessionController;
  readonly #scroll: TranscriptScrollController;
  /** Key of the user message being edited (see TranscriptItem). */
  #key: string | null = null;
  #draft = '';

  constructor(host: ParleyElement, chat: ChatSessionController, scroll: TranscriptScrollController) {
    this.#host = host;
    this.#chat = chat;
    this.#scroll = scroll;
  }

  /** Whether the user message `key` is being edited (it renders as the form, {@link renderForm}). */
  editing(key: string): boolean {
    return this.#key === key;
  }

  /** Edits the user message `key`, which says `text`: its form, focused. */
  start(key: string, text: string): void {
    this.#key = key;
    this.#draft = text;
    this.#host.requestUpdate();
    this.#host.updateComplete.then(() => this.#host.renderRoot.querySelector<HTMLTextAreaElement>('.edit textarea')?.focus());
  }

  /** Leaves edit mode without sending and without moving focus (another conversation is shown). */
  end(): void {
    if (this.#key === null) return;
    this.#key = null;
    this.#host.requestUpdate();
  }

  /** The message being edited, as a form (its `message` and `message-user` parts are the message's). */
  renderForm(t: ShownStrings): TemplateResult {
    return html`<form part="message message-user" class="message user edit" @submit=${this.#submit}>
        <textarea
          aria-label=${t.editLabel}
          .value=${live(this.#draft)}
          ${textField()}
          @input=${(e: Event) => { this.#draft = (e.target as HTMLTextAreaElement).value; this.#host.requestUpdate(); }}
          @keydown=${this.#keydown}
        ></textarea>
        <div class="edit-buttons">
          <button type="button" @click=${this.#cancel}>${t.cancel}</button>
          <button type="submit" class="primary" ?disabled=${!this.#draft.trim()}>${t.saveAndSend}</button>
        </div>
      </form>`;
  }

  readonly #cancel = (): void => {
    const key = this.#key;
    this.end();
    this.#host.updateComplete.then(() => {
      const root = this.#host.renderRoot;
      const button = key ? root.querySelector<HTMLButtonElement>(`[data-edit="${CSS.escape(key)}"]`) : null;
      (button ?? messageBox(root))?.focus();
    });
  };

  readonly #submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const chat = this.#chat;
    const key = this.#key;
    // The entry's id now (a temporary id may have been renamed since editing began).
    const id = chat.items.find((item) => item.key === key)?.entry.id;
    const text = this.#draft.trim();
    if (!chat.session || !id || !text || chat.busy) return;
    this.end();
    this.#scroll.stickToBottom = true;
    this.#host.emit('parley-message-sent', { text, conversationId: chat.state.conversationId, kind: 'edit' });
    messageBox(this.#host.renderRoot)?.focus();
    await chat.edit(id, text);
  };

  readonly #keydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.#cancel();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      void this.#submit(event);
    }
  };
}
