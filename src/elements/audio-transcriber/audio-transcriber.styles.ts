/** Styles of `<audio-transcriber>`; colours and spacing come from the shared `--parley-*` tokens (see ParleyElement). */
import { css } from 'lit';

export const audioTranscriberStyles = css`
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
  .file-row,
  .actions {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_gap) / 2);
  }
  button,
  select {
    font: inherit;
    color: inherit;
    border: 1px solid var(--_border);
    background: var(--_bg);
    border-radius: 8px;
    padding: 0.3rem 0.7rem;
  }
  button {
    cursor: pointer;
  }
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
  .record {
    touch-action: none; /* push-to-talk: a held touch must not scroll or open a menu */
    user-select: none;
  }
  .record.recording {
    background: var(--_error);
    border-color: var(--_error);
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
    width: 5rem;
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
  .elapsed {
    font-variant-numeric: tabular-nums;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .drop-zone {
    flex: 1;
    min-height: 3.5rem;
    border: 2px dashed var(--_border);
    background: var(--_surface);
    border-radius: var(--_radius);
  }
  .drop-zone.dragging {
    border-color: var(--_accent);
    border-style: solid;
  }
  .hint {
    color: var(--_muted);
  }
  .error {
    color: var(--_error);
    margin: 0;
  }
  .result {
    display: flex;
    flex-direction: column;
    gap: calc(var(--_gap) / 2);
  }
  .copy-status {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .transcript {
    background: var(--_surface);
    border-radius: 8px;
    padding: calc(var(--_gap) / 2) var(--_gap);
    min-height: 3rem;
  }
  .transcript p {
    margin: 0.25rem 0;
    white-space: pre-wrap;
  }
  .empty,
  .live,
  .note {
    color: var(--_muted);
  }
  .live {
    font-style: italic;
  }
  .segments {
    margin: 0;
    padding-left: 1.5rem;
    font-size: 0.9em;
  }
  .segment-time {
    font-variant-numeric: tabular-nums;
    color: var(--_muted);
    margin-right: 0.4rem;
  }
  .speaker {
    font-weight: 600;
    margin-right: 0.4rem;
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
