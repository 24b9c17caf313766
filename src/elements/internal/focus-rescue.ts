/**
 * Keeps focus in an element when the control holding it goes away: a focused control that an update
 * removes or disables hands focus to another control of the element, instead of letting it fall to the
 * page (e.g. Stop disabled when playback ends → Play; Cancel gone when a file is done → the drop zone).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

type Host = ReactiveControllerHost & HTMLElement & { renderRoot: HTMLElement | DocumentFragment };

/** See the module comment: `from` and `to` are selectors in the host's render root. */
export class FocusRescueController implements ReactiveController {
  readonly #host: Host;
  readonly #from: string;
  readonly #to: string;
  #hadFocus = false;

  constructor(host: Host, from: string, to: string) {
    this.#host = host;
    this.#from = from;
    this.#to = to;
    host.addController(this);
  }

  hostUpdate(): void {
    this.#hadFocus = this.#host.shadowRoot?.activeElement?.matches(this.#from) ?? false;
  }

  hostUpdated(): void {
    if (!this.#hadFocus) return;
    const control = this.#host.renderRoot.querySelector<HTMLButtonElement>(this.#from);
    if (!control || control.disabled) this.#host.renderRoot.querySelector<HTMLElement>(this.#to)?.focus();
  }
}
