/**
 * The conversation list of `<agent-chat>` (the header's "Conversations" button): the conversations saved
 * in the page's history, each to resume or delete. The list takes the transcript's place while it is
 * shown; focus moves to its heading, and back to the message box when it closes. What it shows is
 * conversation-list-view.ts, loaded the first time it is shown (the element's updateComplete waits for it).
 */
import { nothing } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { ChatSessionController } from './chat-session-controller.js';
import { messageBox } from './composer-controller.js';

/** What the element does when the list moves the transcript. */
export interface ConversationListHooks {
  /** The list is shown: the transcript left the page (called before the update that renders the list). */
  shown(): void;
  /** The transcript is about to come back: the list closed, or a saved conversation is about to be shown in it. */
  back(): void;
}

/** See the module comment. */
export class ConversationListController implements ReactiveController {
  readonly #host: ParleyElement;
  readonly #chat: ChatSessionController;
  readonly #hooks: ConversationListHooks;
  #shown = false;
  /** Whether the last update rendered the list. */
  #rendered = false;
  /** The list's module (conversation-list-view.ts), loaded the first time it is shown. */
  #view: typeof import('../conversation-list-view.js') | null = null;
  #loading: Promise<unknown> | null = null;

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

  /** While the list's module loads: settled once it has rendered (the element's updateComplete waits). */
  get loading(): Promise<unknown> | null {
    return this.#view ? null : this.#loading;
  }

  /** The list (`conversation-list` part); nothing while its module loads (asking loads it). */
  render(t: ShownStrings): TemplateResult | typeof nothing {
    const view = this.#view;
    if (view) {
      return view.renderConversationList({
        conversations: this.#chat.conversations ?? [], current: this.#chat.state.conversationId,
        open: (id) => void this.#open(id), remove: (id) => void this.#delete(id), close: this.toggle,
      }, t);
    }
    this.#loading ??= import('../conversation-list-view.js').then((module) => {
      module.adoptListStyles(this.#host.renderRoot as ShadowRoot);
      this.#view = module;
      this.#host.requestUpdate();
      return this.#host.updateComplete;
    }, () => {
      this.#loading = null; // the next render tries again
    });
    return nothing;
  }

  async #open(id: string): Promise<void> {
    if (!this.#chat.session) return;
    this.#set(false);
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
    if (!shown) this.#hooks.back();
    this.#host.requestUpdate();
  }
}
