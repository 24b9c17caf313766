import { css } from 'lit';

export const speechPlayerStyles = css`
  :host {
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
  .base {
    display: flex;
    flex-direction: column;
    gap: calc(var(--_gap) / 2);
    padding: var(--_gap);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .controls {
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
  .progress {
    display: flex;
    align-items: center;
    gap: calc(var(--_gap) / 2);
    font-variant-numeric: tabular-nums;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .bar {
    flex: 1;
    height: 6px;
    border-radius: 3px;
    background: var(--_surface);
    overflow: hidden;
  }
  .bar > span {
    display: block;
    height: 100%;
    background: var(--_accent);
    transform-origin: left;
  }
  .level {
    width: 4rem;
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
  .error {
    color: var(--_error);
    margin: 0;
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
