/**
 * The launcher of `<agent-chat mode="launcher">`: the floating button and the panel it opens and closes.
 * The panel is a `<dialog>`, modal on small screens (the browser keeps focus inside and makes the page
 * inert) and non-modal beside the page on wide ones; a screen change while it is open reopens it the
 * other way. Opening and closing fire `parley-open-changed` and move focus: into the message box, and
 * back to the button. Inline (the default), the panel is a plain region.
 */
import { html, nothing } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import { messageBox } from './composer-controller.js';
import type { ShownStrings } from '../strings.js';

/**
 * Screens on which the open launcher panel covers the page as a modal dialog (focus kept inside, the page
 * behind inert); on wider ones it is a non-modal panel beside the page.
 */
const SMALL_SCREEN = '(max-width: 600px), (max-height: 480px)';

/** What the controller reads of `<agent-chat>` (and `open`, which it sets). */
export interface LauncherHost extends ParleyElement {
  mode: 'inline' | 'launcher';
  open: boolean;
}

/** See the module comment. */
export class LauncherController implements ReactiveController {
  readonly #host: LauncherHost;
  #smallScreen: MediaQueryList | null = null;
  readonly #onScreenChange = () => this.#sync();

  constructor(host: LauncherHost) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    this.#smallScreen = typeof matchMedia === 'function' ? matchMedia(SMALL_SCREEN) : null;
    this.#smallScreen?.addEventListener('change', this.#onScreenChange);
  }

  hostDisconnected(): void {
    this.#smallScreen?.removeEventListener('change', this.#onScreenChange);
    this.#smallScreen = null;
  }

  /** After an update that changed `open` or `mode` (`toggled`: `open` changed, and not by the first update). */
  changed(toggled: boolean): void {
    this.#sync();
    const host = this.#host;
    if (!toggled || host.mode !== 'launcher') return;
    host.emit('parley-open-changed', { open: host.open });
    if (host.open) messageBox(host.renderRoot)?.focus();
    else if (host.shadowRoot?.activeElement || host.matches(':focus-within')) this.#button()?.focus();
  }

  /** Closes the panel and gives focus back to the launcher button. */
  close(): void {
    this.#host.open = false;
    this.#host.updateComplete.then(() => this.#button()?.focus());
  }

  /** The launcher button (`mode="launcher"`). */
  renderButton(t: ShownStrings): TemplateResult | typeof nothing {
    const host = this.#host;
    if (host.mode !== 'launcher') return nothing;
    return html`<button
      part="launcher"
      class="launcher"
      type="button"
      aria-label=${host.open ? t.closeChat : t.openChat}
      aria-expanded=${host.open ? 'true' : 'false'}
      aria-controls="panel"
      @click=${() => { host.open = !host.open; }}
    >
      <slot name="launcher-icon">
        <svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
          <path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" />
        </svg>
      </slot>
    </button>`;
  }

  /** The panel around the chat: the launcher's `<dialog>`, or the inline region. `keydown`: the panel's key handler. */
  renderPanel(t: ShownStrings, content: (launcher: boolean) => TemplateResult, keydown: (event: KeyboardEvent) => void): TemplateResult {
    if (this.#host.mode !== 'launcher') {
      return html`<section part="panel" id="panel" class="panel" role="region" aria-label=${t.chatPanelLabel} @keydown=${keydown}>
        ${content(false)}
      </section>`;
    }
    return html`<dialog
      part="panel"
      id="panel"
      class="panel"
      aria-label=${t.chatPanelLabel}
      ?hidden=${!this.#host.open}
      @keydown=${keydown}
      @cancel=${(e: Event) => e.preventDefault()}
      @close=${this.#onClose}
    >${content(true)}</dialog>`;
  }

  #button(): HTMLButtonElement | null {
    return this.#host.renderRoot.querySelector('.launcher');
  }

  #dialog(): HTMLDialogElement | null {
    return this.#host.renderRoot.querySelector('dialog.panel');
  }

  /**
   * Shows or hides the launcher's `<dialog>` to match `open`: modal on small screens, non-modal beside the
   * page on wide ones; a screen change while open reopens it the other way.
   */
  #sync(): void {
    const dialog = this.#dialog();
    if (!dialog) return;
    if (!this.#host.open) {
      if (dialog.open) dialog.close();
      dialog.removeAttribute('aria-modal');
      return;
    }
    const modal = this.#smallScreen?.matches ?? false;
    if (dialog.open && dialog.matches(':modal') === modal) return;
    if (dialog.open) dialog.close();
    if (modal) dialog.showModal();
    else dialog.show();
    // Set here, not rendered: it follows the dialog, which changes after rendering.
    if (modal) dialog.setAttribute('aria-modal', 'true');
    else dialog.removeAttribute('aria-modal');
  }

  /** The panel's `<dialog>` closed by the browser (a second Escape on a modal panel): the chat follows. */
  readonly #onClose = (): void => {
    if (this.#dialog()?.open || !this.#host.open) return; // reopened the other way (screen change), or already closed
    this.close();
  };
}
