import { css } from 'lit';

export const speechPlayerStyles = css`
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
