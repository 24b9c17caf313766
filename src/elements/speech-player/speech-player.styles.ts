/** Styles of `<speech-player>` beyond the shared controls (see controls.styles.ts) and tokens (see ParleyElement). */
import { css } from 'lit';

export const speechPlayerStyles = css`
  .base {
    gap: calc(var(--_gap) / 2);
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
  /* The bar fills from the start of the line: from the right in right-to-left text. */
  :host(:dir(rtl)) .bar > span {
    transform-origin: right;
  }
  .level {
    width: 4rem;
  }
`;
