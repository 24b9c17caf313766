/** Styles of `<doc-ocr-viewer>` beyond the shared controls (see controls.styles.ts); colours and spacing come from the shared `--parley-*` tokens (see ParleyElement). */
import { css } from 'lit';

// The original sits beside the text when the page view is 40rem wide or more, above it otherwise. The columns
// are sized by the container, never by the picture, so drawing a page cannot change the width it is drawn at.
export const docOcrViewerStyles = css`
  input {
    padding-inline: 0.5rem;
  }
  /* Focus rings inside the scrolling areas (and of the areas themselves) are drawn inside, where no scrolling clips them. */
  .page:focus-visible,
  .original-frame:focus-visible,
  .page-button:focus-visible {
    outline: var(--_focus);
    outline-offset: -2px;
  }
  .drop-zone {
    flex: 1 1 14rem;
  }
  .hint,
  .preview,
  .page-matches,
  .empty,
  .copy-status,
  .match-count,
  .working-text {
    color: var(--_muted);
    font-size: 0.9em;
  }
  .working progress {
    flex: 1 1 8rem;
  }
  .spacer {
    flex: 1;
  }
  .reader {
    display: grid;
    grid-template-columns: minmax(8rem, 14rem) 1fr;
    gap: var(--_gap);
    margin-block-start: var(--_gap);
  }
  @media (max-width: 40rem) {
    .reader {
      grid-template-columns: 1fr;
    }
  }
  .page-list {
    list-style: none;
    margin: 0;
    padding: 0;
    display: flex;
    flex-direction: column;
    gap: 0.25rem;
    max-height: 32rem;
    overflow: auto;
  }
  .page-button {
    width: 100%;
    text-align: start;
    display: flex;
    flex-direction: column;
    background: var(--_surface);
  }
  .page-button[aria-current='page'] {
    border-color: var(--_accent);
    box-shadow: inset 3px 0 0 var(--_accent);
  }
  /* The current page's mark is on the start side: the right in right-to-left text. */
  :host(:dir(rtl)) .page-button[aria-current='page'] {
    box-shadow: inset -3px 0 0 var(--_accent);
  }
  @media (max-width: 40rem) {
    /* The pages in a strip above the page (arrow keys still move along it). */
    .page-list {
      flex-direction: row;
      overflow-x: auto;
      max-height: none;
      padding-block-end: 0.25rem;
    }
    .page-list > li {
      flex: 0 0 auto;
      max-width: 10rem;
    }
  }
  [part~='original-button'][aria-pressed='true'] {
    border-color: var(--_accent);
    box-shadow: inset 0 0 0 1px var(--_accent);
  }
  .page-number {
    font-weight: 600;
  }
  .page {
    background: var(--_surface);
    border-radius: var(--_radius-control);
    padding: var(--_gap);
    margin-block-start: calc(var(--_gap) / 2);
    overflow-wrap: anywhere;
    max-height: 40rem;
    overflow: auto;
  }
  .page img {
    max-width: 100%;
    height: auto;
  }
  .page table {
    border-collapse: collapse;
  }
  .page :is(td, th) {
    border: 1px solid var(--_border);
    padding: 0.2rem 0.4rem;
  }
  .page mark {
    background: var(--parley-match-color, #ffe082);
    color: inherit;
  }
  .page mark[part~='current'] {
    outline: 2px solid var(--_accent);
  }
  .page-view {
    container: page-view / inline-size;
    min-width: 0;
  }
  .page-body {
    display: grid;
    grid-template-columns: minmax(0, 1fr);
    column-gap: var(--_gap);
    align-items: start;
  }
  @container page-view (min-width: 40rem) {
    .page-body.with-original {
      grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
    }
  }
  .original-frame {
    margin-block-start: calc(var(--_gap) / 2);
    overflow: auto;
    max-height: 40rem;
    min-width: 0;
  }
  .original {
    display: block;
    width: 100%;
    height: auto;
    box-sizing: border-box;
    border: 1px solid var(--_border);
    background: #fff;
  }
  .original-status {
    margin: 0;
    padding: var(--_gap);
    color: var(--_muted);
    background: var(--_surface);
    border-radius: var(--_radius-control);
  }
  .thumbnail-slot {
    display: block;
    margin-block-start: 0.25rem;
  }
  .thumbnail {
    display: block;
    max-width: 100%;
    height: auto;
    border: 1px solid var(--_border);
    background: #fff;
  }
  .parley-image-blocked {
    color: var(--_muted);
    font-style: italic;
  }
`;
