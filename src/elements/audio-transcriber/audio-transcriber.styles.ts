/** Styles of `<audio-transcriber>` beyond the shared controls (see controls.styles.ts); colours and spacing come from the shared `--parley-*` tokens (see ParleyElement). */
import { css } from 'lit';

export const audioTranscriberStyles = css`
  .record {
    touch-action: none; /* push-to-talk: a held touch must not scroll or open a menu */
    user-select: none;
  }
  .record.recording {
    background: var(--_error);
    border-color: var(--_error);
  }
  .level {
    width: 5rem;
  }
  .elapsed {
    font-variant-numeric: tabular-nums;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .drop-zone {
    flex: 1;
    border-radius: var(--_radius);
  }
  .drop-zone.dragging {
    border-style: solid;
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
    border-radius: var(--_radius-control);
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
    padding-inline-start: 1.5rem;
    font-size: 0.9em;
  }
  .segment-time {
    font-variant-numeric: tabular-nums;
    color: var(--_muted);
    margin-inline-end: 0.4rem;
  }
  .speaker {
    font-weight: 600;
    margin-inline-end: 0.4rem;
  }
`;
