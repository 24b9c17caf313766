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
  /** Host styles, the theme tokens every element reads (`--parley-*` custom properties → private `--_*`) and `.visually-hidden` for screen-reader-only text. */
  static override styles: CSSResultGroup = css`
    :host {
      box-sizing: border-box;
      --_font: var(--parley-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
      --_text: var(--parley-color-text, #1d1d1f);
      --_muted: var(--parley-color-muted, #545458);
      --_bg: var(--parley-color-background, #ffffff);
      --_surface: var(--parley-color-surface, #f4f4f6);
      --_border: var(--parley-color-border, #d2d2d7);
      --_accent: var(--parley-color-accent, #0b57d0);
      --_on-accent: var(--parley-color-on-accent, #ffffff);
      --_error: var(--parley-color-error, #b3261e);
      --_radius: var(--parley-radius, 12px);
      --_gap: var(--parley-gap, 0.75rem);
      --_focus: var(--parley-focus-ring, 2px solid var(--_accent));

      display: block;
      color: var(--_text);
      font-family: var(--_font);
      font-size: var(--parley-font-size, 15px);
      line-height: 1.5;
    }
    :host *,
    :host *::before,
    :host *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    .visually-hidden {
      position: absolute;
      width: 1px;
      height: 1px;
      margin: -1px;
      padding: 0;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
      border: 0;
    }
  `;

  /** Dispatches a kit event: bubbles, composed, typed detail. Returns false when a listener cancelled it. */
  emit<K extends ParleyEventName>(name: K, detail: ParleyEventDetails[K], options: { cancelable?: boolean } = {}): boolean {
    return this.dispatchEvent(parleyEvent(name, detail, options.cancelable ?? false));
  }
}
