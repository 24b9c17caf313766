/**
 * Links in `<agent-chat>`'s replies whose text shows another host than they open
 * (`[https://bank.example](https://evil.example)`): a click asks first, in a modal dialog that names both
 * hosts (`link-dialog`); confirming opens the link in a new tab. Other links open as they are.
 */
import { html, nothing } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import { spoofedLinkHost } from '../../internal/links.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';

/** A link waiting for the reader's answer: where it goes, the host its text shows, the host it opens. */
interface PendingLink {
  href: string;
  shown: string;
  real: string;
}

/** See the module comment. */
export class LinkWarningController implements ReactiveController {
  readonly #host: ParleyElement;
  #pending: PendingLink | null = null;
  /** The pending link the dialog was last shown or closed for. */
  #synced: PendingLink | null = null;

  constructor(host: ParleyElement) {
    this.#host = host;
    host.addController(this);
  }

  hostUpdated(): void {
    if (this.#pending === this.#synced) return;
    this.#synced = this.#pending;
    const dialog = this.#host.renderRoot.querySelector<HTMLDialogElement>('dialog.link-dialog');
    if (this.#pending && !dialog?.open) dialog?.showModal();
    if (!this.#pending && dialog?.open) dialog.close();
  }

  /** The transcript's click listener: a link in a reply whose text shows another host waits for the dialog. */
  readonly onClick = (event: MouseEvent): void => {
    const anchor = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement);
    if (!anchor || !anchor.closest('.markdown, .sources')) return;
    const spoof = spoofedLinkHost(anchor.textContent ?? '', anchor.href);
    if (!spoof) return;
    event.preventDefault();
    this.#set({ href: anchor.href, ...spoof });
  };

  render(t: ShownStrings): TemplateResult {
    const link = this.#pending;
    return html`<dialog part="link-dialog" class="link-dialog" aria-labelledby="link-dialog-title" @close=${this.#dismiss}>
      <h2 id="link-dialog-title">${t.linkWarningTitle}</h2>
      ${link
        ? html`<p>${t.linkWarningBody(link.shown, link.real)}</p>
            <p class="real-host">${link.real}</p>`
        : nothing}
      <div class="dialog-buttons">
        <button type="button" class="cancel" @click=${this.#dismiss}>${t.cancel}</button>
        <button type="button" class="primary confirm" @click=${this.#confirm}>${t.openLink}</button>
      </div>
    </dialog>`;
  }

  readonly #dismiss = (): void => this.#set(null);

  readonly #confirm = (): void => {
    const link = this.#pending;
    this.#set(null);
    if (link) window.open(link.href, '_blank', 'noopener,noreferrer');
  };

  #set(link: PendingLink | null): void {
    if (link === this.#pending) return;
    this.#pending = link;
    this.#host.requestUpdate();
  }
}
