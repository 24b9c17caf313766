/**
 * The search bar of `<agent-chat>` (SearchController): the field, the state line, previous / next and close.
 * Loaded with `import()` the first time the search opens; its styles and words come with it.
 */
import { css, html } from 'lit';
import type { TemplateResult } from 'lit';
import type { ShownStrings } from './strings.js';
import { searchBarEnglish } from './search-bar.strings.js';
import { textField } from '../internal/text-field.js';

/** What the bar shows and does, from its controller. */
export interface SearchBarParts {
  /** The state line ("3 of 12 matches"). */
  status: string;
  /** Matches found. */
  total: number;
  input(event: Event): void;
  keydown(event: KeyboardEvent): void;
  /** To the previous (-1) or next (1) match. */
  move(by: 1 | -1): void;
  close(): void;
}

/** Adds the bar's styles to `root` (the element's shadow root), once. */
export function adoptSearchStyles(root: ShadowRoot): void {
  const sheet = searchStyles.styleSheet;
  if (sheet && Array.isArray(root.adoptedStyleSheets) && !root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/** The state line: which match is shown, of how many, or that none was found. */
export function statusText(current: number, total: number, shown: ShownStrings): string {
  const t = { ...searchBarEnglish, ...shown };
  return total ? t.searchMatches(current, total) : t.searchNoMatches;
}

export function renderSearchBar(parts: SearchBarParts, shown: ShownStrings): TemplateResult {
  const t = { ...searchBarEnglish, ...shown };
  return html`<div part="search" class="search" id="search" role="search">
    <input
      part="search-input"
      type="search"
      ${textField()}
      aria-label=${t.searchLabel}
      placeholder=${t.searchLabel}
      @input=${parts.input}
      @keydown=${parts.keydown}
    />
    <span part="search-status" class="search-status" role="status" aria-live="polite">${parts.status}</span>
    <button part="search-previous-button" class="quiet" type="button" aria-label=${t.searchPrevious} ?disabled=${!parts.total} @click=${() => parts.move(-1)}>
      <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 15l6-6 6 6" /></svg>
    </button>
    <button part="search-next-button" class="quiet" type="button" aria-label=${t.searchNext} ?disabled=${!parts.total} @click=${() => parts.move(1)}>
      <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 9l6 6 6-6" /></svg>
    </button>
    <button part="search-close-button" class="quiet" type="button" aria-label=${t.closeSearch} @click=${parts.close}>✕</button>
  </div>`;
}

/** The bar's styles: they come with this module, not with the element's first load. */
const searchStyles = css`
  .search {
    display: flex;
    align-items: center;
    gap: 0.25rem;
    padding: 0.4rem var(--_gap);
    border-bottom: 1px solid var(--_border);
  }
  .search input {
    flex: 1;
    min-width: 0;
    font: inherit;
    color: inherit;
    padding: 0.3rem 0.5rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    background: var(--_bg);
  }
  .search input:focus-visible {
    outline: var(--_focus);
    outline-offset: 1px;
  }
  .search-status {
    color: var(--_muted);
    font-size: 0.85em;
    white-space: nowrap;
  }
  .search button {
    display: inline-flex;
    align-items: center;
  }
`;
