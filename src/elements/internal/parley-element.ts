/**
 * Base class of the kit's elements: typed `emit()` for `parley-*` events and host styles shared by all.
 * Never touches `window` at import time.
 */
import { LitElement, css } from 'lit';
import type { CSSResultGroup } from 'lit';
import type { ParleyEventDetails, ParleyEventName } from './events.js';

/** A kit event: bubbles and is composed, so it reaches listeners outside the shadow root. */
export function parleyEvent<K extends ParleyEventName>(name: K, detail: ParleyEventDetails[K], cancelable = false): CustomEvent<ParleyEventDetails[K]> {
  return new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable });
}

/** Base class of the kit's elements. */
export class ParleyElement extends LitElement {
  static override styles: CSSResultGroup = css`
    :host {
      box-sizing: border-box;
    }
    :host *,
    :host *::before,
    :host *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
  `;

  /** Dispatches a kit event: bubbles, composed, typed detail. Returns false when a listener cancelled it. */
  emit<K extends ParleyEventName>(name: K, detail: ParleyEventDetails[K], options: { cancelable?: boolean } = {}): boolean {
    return this.dispatchEvent(parleyEvent(name, detail, options.cancelable ?? false));
  }
}
