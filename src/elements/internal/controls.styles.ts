/**
 * Control styles shared by the panels (`<speech-player>`, `<audio-transcriber>`, `<doc-ocr-viewer>`): the
 * panel frame (`.base`, `.heading`), rows of controls, buttons, pickers, fields, focus ring, labels, the level meter and progress bar
 * and the error line (the drop zone's rules are file-drop.ts's). Kept apart from ParleyElement's host styles because `<agent-chat>` styles its controls differently and must not load these rules.
 */
import { css } from 'lit';

/**
 * Panel frame, rows (`.controls`, `.row`), buttons, selects and fields, labels, focus ring, `.primary`, `.error`,
 * the `.level` meter and `.bar` (each element sets its width). The drop zone's rules are beside its controller (file-drop.ts).
 */
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
  .controls,
  .row {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_gap) / 2);
  }
  button,
  select,
  input {
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
  /* aria-disabled: a control that keeps focus while it does nothing (a busy drop zone, a finishing recording). */
  button:disabled,
  button[aria-disabled='true'] {
    cursor: default;
    opacity: 0.6;
  }
  .primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  :is(button, select, input):focus-visible {
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
  /* A meter or bar that fills from the start of the line (from the right in right-to-left text). */
  .level,
  .bar {
    height: 6px;
    border-radius: 3px;
    background: var(--_surface);
    overflow: hidden;
  }
  :is(.level, .bar) > span {
    display: block;
    height: 100%;
    background: var(--_accent);
    transform-origin: left;
  }
  .level > span {
    background: var(--parley-level-color, var(--_accent));
  }
  :host(:dir(rtl)) :is(.level, .bar) > span {
    transform-origin: right;
  }
  .error {
    color: var(--_error);
    margin: 0;
  }
`;
