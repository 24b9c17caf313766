/**
 * Base class of the kit's elements: typed `emit()` for `parley-*` events and host styles shared by all.
 * Never touches `window` at import time.
 */
import { LitElement, css } from 'lit';
import { property } from 'lit/decorators.js';
import type { CSSResultGroup } from 'lit';
import type { ParleyEventDetails, ParleyEventName } from './events.js';

/** The dark theme's tokens: theme="dark", or the visitor's system theme when theme is "auto" (the default). */
const DARK_TOKENS = css`
  --_text: var(--parley-color-text, #ececf1);
  --_muted: var(--parley-color-muted, #b4b4bd);
  --_bg: var(--parley-color-background, #1c1c1f);
  --_surface: var(--parley-color-surface, #2c2c31);
  --_border: var(--parley-color-border, #4a4a52);
  --_accent: var(--parley-color-accent, #8ab4f8);
  --_on-accent: var(--parley-color-on-accent, #0b1a33);
  --_error: var(--parley-color-error, #f2b8b5);
  color-scheme: dark;
`;

/** Base class of the kit's elements. */
export class ParleyElement extends LitElement {
  /** Host styles, the theme tokens every element reads (light, dark by `theme` or the system, forced colours) (`--parley-*` custom properties → private `--_*`) and `.visually-hidden` for screen-reader-only text. */
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
      /* Buttons, fields and code blocks: two thirds of --parley-radius unless set apart. */
      --_radius-control: var(--parley-radius-control, calc(var(--_radius) * 2 / 3));
      --_gap: var(--parley-gap, 0.75rem);
      --_focus: var(--parley-focus-ring, 2px solid var(--_accent));

      display: block;
      color-scheme: light;
      color: var(--_text);
      font-family: var(--_font);
      font-size: var(--parley-font-size, 15px);
      line-height: 1.5;
    }
    /* Dark: theme="dark", or the visitor's system theme when theme is "auto" (the default). The same
       --parley-color-* properties override either. */
    :host([theme='dark']) {
      ${DARK_TOKENS}
    }
    @media (prefers-color-scheme: dark) {
      :host(:not([theme='light'])) {
        ${DARK_TOKENS}
      }
    }
    /* Forced colours (Windows high contrast): system colours, and borders where backgrounds carried meaning. */
    @media (forced-colors: active) {
      :host {
        --_text: CanvasText;
        --_muted: CanvasText;
        --_bg: Canvas;
        --_surface: Canvas;
        --_border: CanvasText;
        --_accent: LinkText;
        --_on-accent: Canvas;
        --_error: CanvasText;
        --_focus: 2px solid Highlight;
      }
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

  /**
   * Colour theme: `auto` (default) follows the visitor's system setting (`prefers-color-scheme`), `light`
   * and `dark` fix it. Colours, radii and fonts come from the `--parley-*` custom properties in every theme.
   */
  @property({ reflect: true }) theme: 'auto' | 'light' | 'dark' = 'auto';

  /**
   * Dispatches a kit event: bubbles, composed, typed detail. Returns false when a listener cancelled it.
   * @param name - The event's name (`parley-…`, see the element's events).
   * @param detail - What the event carries (`event.detail`), of the type its name gives.
   * @param options - `cancelable`: whether a listener may cancel the event with `preventDefault()` (default false).
   */
  emit<K extends ParleyEventName>(name: K, detail: ParleyEventDetails[K], options: { cancelable?: boolean } = {}): boolean {
    // Bubbles and is composed, so it reaches listeners outside the shadow root. Made apart from the dispatch:
    // the manifest analyzer reads `dispatchEvent(new CustomEvent(name))` as an event called "name".
    const event = new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: options.cancelable ?? false });
    return this.dispatchEvent(event);
  }
}
