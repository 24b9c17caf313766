/**
 * The conversation list of `<agent-chat>` as it shows (ConversationListController): the saved conversations,
 * each to resume or delete, and the way back to the chat. Loaded with `import()` the first time the list is
 * shown; its styles and words come with it.
 */
import { css, html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { CachedConversation } from '../../client/contracts.js';
import type { ShownStrings } from './strings.js';
import { conversationListEnglish } from './conversation-list.strings.js';

/** What the list shows and does, from its controller. */
export interface ConversationListParts {
  conversations: readonly CachedConversation[];
  /** The conversation shown in the transcript. */
  current: string | null;
  open(id: string): void;
  remove(id: string): void;
  close(): void;
}

/** Adds the list's styles to `root` (the element's shadow root), once. */
export function adoptListStyles(root: ShadowRoot): void {
  const sheet = listStyles.styleSheet;
  if (sheet && Array.isArray(root.adoptedStyleSheets) && !root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

export function renderConversationList(parts: ConversationListParts, shown: ShownStrings): TemplateResult {
  const t = { ...conversationListEnglish, ...shown };
  const list = parts.conversations;
  return html`<div part="conversation-list" class="conversations">
      <h3 tabindex="-1">${t.conversations}</h3>
      ${list.length === 0
        ? html`<p>${t.noConversations}</p>`
        : html`<ul>
            ${repeat(list, (c) => c.id, (c) => {
              const title = c.title || t.untitledConversation;
              const updated = new Date(c.updatedAt);
              return html`<li part="conversation">
                <button
                  part="conversation-button"
                  class="conversation-button"
                  type="button"
                  aria-current=${c.id === parts.current ? 'true' : 'false'}
                  @click=${() => parts.open(c.id)}
                >
                  <span dir="auto">${title}</span>
                  ${Number.isNaN(updated.getTime()) ? nothing : html`<time datetime=${c.updatedAt}>${updated.toLocaleString()}</time>`}
                </button>
                <button part="delete-button" class="quiet" type="button" aria-label=${t.deleteConversation(title)} @click=${() => parts.remove(c.id)}>
                  ✕
                </button>
              </li>`;
            })}
          </ul>`}
      <button type="button" class="quiet" @click=${parts.close}>${t.closeConversations}</button>
    </div>`;
}

/** The list's styles: they come with this module, not with the element's first load. */
const listStyles = css`
  .conversations {
    flex: 1;
    overflow-y: auto;
    padding: var(--_gap);
  }
  .conversations h3 {
    margin: 0 0 0.5rem;
    font-size: 0.95rem;
  }
  .conversations ul {
    list-style: none;
    margin: 0;
    padding: 0;
    display: flex;
    flex-direction: column;
    gap: 0.25rem;
  }
  .conversations li {
    display: flex;
    gap: 0.25rem;
  }
  .conversation-button {
    flex: 1;
    text-align: start;
    display: flex;
    flex-direction: column;
    border-color: transparent;
  }
  .conversation-button:hover,
  .conversation-button[aria-current='true'] {
    background: var(--_surface);
  }
  .conversation-button time {
    font-size: 0.8em;
    color: var(--_muted);
  }
`;
