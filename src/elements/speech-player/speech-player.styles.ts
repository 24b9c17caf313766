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
  }
  .level {
    width: 4rem;
  }
`;
