/**
 * An element's polite live region: the sentences a screen reader should say (sending, a reply's first
 * words, a failure, a file read), written to one visually hidden `role="status"` element. Screen readers
 * say a live region again only when its text changes, so the same message twice in a row gets a
 * no-break space added.
 */
import { html, type ReactiveControllerHost, type TemplateResult } from 'lit';

/** See the module comment. It needs no lifecycle hooks, so it only asks its host to update. */
export class LiveRegionController {
  readonly #host: ReactiveControllerHost;
  #text = '';

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
  }

  /** What the region says now. */
  get text(): string {
    return this.#text;
  }

  /** Says `message` once, politely (see the module comment). */
  announce(message: string): void {
    this.#text = message === this.#text ? `${message}\u00a0` : message;
    this.#host.requestUpdate();
  }

  /** The region itself: render it once, anywhere in the element's template (its class hides it visually). */
  render(): TemplateResult {
    return html`<div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.#text}</div>`;
  }
}
