/**
 * Control styles shared by the panels (`<speech-player>`, `<audio-transcriber>`, `<doc-ocr-viewer>`): the
 * panel frame (`.base`, `.heading`), buttons, pickers, focus ring, labels, the level meter and the error line. Kept apart from ParleyElement's host styles
 * because `<agent-chat>` styles its controls differently and must not load these rules.
 */
import { css } from 'lit';

/** Panel frame, buttons, selects, labels, focus ring, `.primary`, `.error` and the `.level` meter (each element sets its width). */
export const controlStyles = css`
  .base {
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
    padding: var(--_gap);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .heading {
    margin: 0;
    font-size: 1.1em;
  }
  button,
  select {
    font: inherit;
    color: inherit;
    border: 1px solid var(--_border);
    background: var(--_bg);
    border-radius: var(--_radius-control);
    padding: 0.3rem 0.7rem;
  }
  button {
    cursor: pointer;
  }
  button:disabled {
    cursor: default;
    opacity: 0.6;
  }
  .primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  :is(button, select):focus-visible {
    outline: var(--_focus);
    outline-offset: 2px;
  }
  label {
    display: inline-flex;
    align-items: center;
    gap: 0.35rem;
    color: var(--_muted);
    font-size: 0.9em;
  }
  .level {
    height: 6px;
    border-radius: 3px;
    background: var(--_surface);
    overflow: hidden;
  }
  .level > span {
    display: block;
    height: 100%;
    background: var(--parley-level-color, var(--_accent));
    transform-origin: left;
  }
  :host(:dir(rtl)) .level > span {
    transform-origin: right;
  }
  .error {
    color: var(--_error);
    margin: 0;
  }
`;
