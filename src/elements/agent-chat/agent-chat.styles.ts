import { css } from 'lit';

export const agentChatStyles = css`
  :host {
    --_user: var(--parley-color-user-bubble, var(--_accent));
    --_on-user: var(--parley-color-on-user-bubble, var(--_on-accent));
    --_assistant: var(--parley-color-assistant-bubble, var(--_surface));
  }

  button,
  textarea {
    font: inherit;
    color: inherit;
  }
  button {
    cursor: pointer;
    border: 1px solid var(--_border);
    background: var(--_bg);
    border-radius: var(--_radius-control);
    padding: 0.3rem 0.7rem;
  }
  button:disabled {
    cursor: default;
    opacity: 0.6;
  }
  :is(button, textarea, a, [tabindex]):focus-visible {
    outline: var(--_focus);
    outline-offset: 2px;
  }
  .primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  .quiet {
    border-color: transparent;
    background: transparent;
    color: var(--_muted);
    padding: 0.15rem 0.4rem;
    font-size: 0.85em;
  }
  .quiet:hover {
    color: var(--_text);
    background: var(--_surface);
  }

  /* ---------------------------------------------------------------- panel */
  .panel {
    display: flex;
    flex-direction: column;
    height: var(--parley-height, 32rem);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  /* The buttons go below the title when both do not fit on one line (a long agent name, a phone). */
  header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.25rem 0.5rem;
    padding: 0.5rem var(--_gap);
    border-bottom: 1px solid var(--_border);
  }
  header ::slotted(*) {
    flex: 1;
  }
  /* A long name wraps to two lines, then ends with an ellipsis; the whole name is its title. */
  .title {
    flex: 1 1 12rem;
    min-width: 0;
    margin: 0;
    font-size: 1rem;
    font-weight: 600;
    overflow-wrap: anywhere;
    display: -webkit-box;
    -webkit-box-orient: vertical;
    -webkit-line-clamp: 2;
    line-clamp: 2;
    overflow: hidden;
  }
  .header-actions {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 0.25rem;
    margin-inline-start: auto;
  }

  /* ---------------------------------------------------------------- transcript */
  .transcript {
    flex: 1;
    min-height: 0;
    overflow-y: auto;
    padding: var(--_gap);
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
  }
  .empty {
    margin: auto;
    color: var(--_muted);
    text-align: center;
  }
  /* The search bar's styles come with it (search-bar.ts). */
  /* Search matches (CSS Custom Highlight API: the text is not changed), the current one stronger, its message ringed. */
  ::highlight(parley-search) {
    background-color: #fff0a8;
    color: #1d1d1f;
  }
  ::highlight(parley-search-current) {
    background-color: #ffb02e;
    color: #000000;
  }
  .message.search-current > .bubble {
    outline: 2px solid var(--_accent);
    outline-offset: 1px;
  }
  /* content-visibility clips painting to the message's box: the padding keeps focus rings inside it. */
  .message {
    display: flex;
    flex-direction: column;
    gap: 0.25rem;
    max-width: 85%;
    padding: 4px;
    content-visibility: auto;
    contain-intrinsic-size: auto 3rem;
  }
  /* Scrolling regions clip what is outside them: their own ring is drawn inside. */
  :is(.transcript, .conversations, pre, .markdown table):focus-visible {
    outline-offset: -2px;
  }
  .message.user {
    align-self: flex-end;
    align-items: flex-end;
  }
  .message.assistant {
    align-self: flex-start;
  }
  .bubble {
    padding: 0.5rem 0.8rem;
    border-radius: var(--_radius);
    overflow-wrap: anywhere;
  }
  .user .bubble {
    background: var(--_user);
    color: var(--_on-user);
    white-space: pre-wrap;
  }
  .assistant .bubble {
    background: var(--_assistant);
  }
  /* A reply far from the view before its markdown is rendered (TranscriptPlaceholdersController): its text as it is. */
  .bubble.placeholder {
    white-space: pre-wrap;
  }
  .message-actions {
    display: flex;
    gap: 0.25rem;
  }
  .interrupted {
    margin: 0;
    color: var(--_muted);
    font-size: 0.85em;
    font-style: italic;
  }
  .edit {
    display: flex;
    flex-direction: column;
    gap: 0.4rem;
    align-self: stretch;
    min-width: min(24rem, 100%);
  }
  .edit-buttons {
    display: flex;
    gap: 0.4rem;
    justify-content: flex-end;
  }
  .thinking {
    color: var(--_muted);
    font-style: italic;
    margin: 0;
  }
  .handoff {
    align-self: stretch;
    display: flex;
    align-items: center;
    gap: 0.5rem;
    color: var(--_muted);
    font-size: 0.85em;
    margin: 0;
  }
  .handoff::before,
  .handoff::after {
    content: '';
    flex: 1;
    border-top: 1px solid var(--_border);
  }
  .tool-call {
    align-self: flex-start;
    max-width: 85%;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    font-size: 0.9em;
  }
  .tool-call summary {
    cursor: pointer;
    padding: 0.3rem 0.6rem;
    color: var(--_muted);
  }
  .tool-call .tool-body {
    padding: 0 0.6rem 0.5rem;
  }
  .tool-call h3 {
    font-size: 0.8em;
    margin: 0.4rem 0 0.2rem;
    color: var(--_muted);
  }
  .tool-call pre {
    margin: 0;
  }
  /* A server tool's status line (starters: starters-view.ts; a call asking for consent: tool-approval.ts). */
  .tool-progress:empty {
    display: none;
  }
  .tool-progress p {
    color: var(--_muted);
    font-size: 0.9em;
    margin: 0;
  }

  /* ---------------------------------------------------------------- markdown */
  .markdown > :first-child {
    margin-top: 0;
  }
  .markdown > :last-child {
    margin-bottom: 0;
  }
  .markdown :is(p, ul, ol, pre, blockquote, table, h1, h2, h3, h4, h5, h6) {
    margin: 0.5em 0;
  }
  .markdown :is(h1, h2, h3, h4, h5, h6) {
    font-size: 1em;
    font-weight: 700;
  }
  .markdown h1 {
    font-size: 1.2em;
  }
  .markdown h2 {
    font-size: 1.1em;
  }
  .markdown :is(ul, ol) {
    padding-inline-start: 1.4em;
  }
  /* Code reads left to right on right-to-left pages too. */
  pre,
  code {
    font-family: var(--parley-font-family-code, ui-monospace, 'SF Mono', Menlo, Consolas, monospace);
    font-size: 0.9em;
    direction: ltr;
    unicode-bidi: isolate;
  }
  pre {
    padding: 0.6em 0.8em;
    overflow-x: auto;
    text-align: left;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    white-space: pre;
  }
  .markdown :not(pre) > code {
    background: var(--_bg);
    border-radius: calc(var(--_radius-control) / 2);
    padding: 0.05em 0.3em;
  }
  .markdown blockquote {
    margin-inline-start: 0;
    padding-inline-start: 0.8em;
    border-inline-start: 3px solid var(--_border);
    color: var(--_muted);
  }
  .markdown table {
    border-collapse: collapse;
    display: block;
    overflow-x: auto;
  }
  .markdown :is(th, td) {
    border: 1px solid var(--_border);
    padding: 0.25em 0.5em;
  }
  .markdown a {
    color: var(--_accent);
  }
  .markdown img {
    max-width: 100%;
    height: auto;
  }
  .markdown .parley-image-blocked {
    color: var(--_accent);
    text-decoration: underline dotted;
  }
  .markdown .parley-image-blocked::before {
    content: '🖼 ';
  }

  /* ---------------------------------------------------------------- status, composer */
  .notice {
    margin: 0;
    padding: 0.4rem var(--_gap);
    background: var(--_surface);
    color: var(--_muted);
    font-size: 0.85em;
  }
  .error {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    padding: 0.5rem var(--_gap);
    color: var(--_error);
    border-top: 1px solid var(--_border);
  }
  .error p {
    flex: 1;
    margin: 0;
  }
  .composer {
    display: flex;
    gap: 0.5rem;
    align-items: flex-end;
    padding: 0.5rem var(--_gap);
    border-top: 1px solid var(--_border);
  }
  textarea {
    flex: 1;
    resize: none;
    min-height: 2.4rem;
    max-height: 10rem;
    field-sizing: content;
    padding: 0.45rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    background: var(--_bg);
  }

  .composer.dragging {
    outline: 2px dashed var(--_accent);
    outline-offset: -4px;
  }

  /* ---------------------------------------------------------------- voice in */
  .mic,
  .attach {
    padding: 0.45rem;
    line-height: 0;
  }
  .voice-bar {
    padding: 0 var(--_gap) 0.4rem;
    color: var(--_muted);
    font-size: 0.85em;
  }

  /* The conversation list's styles come with it (conversation-list-view.ts). */

  /* ---------------------------------------------------------------- launcher */
  :host([mode='launcher']) {
    position: fixed;
    inset-block-end: var(--parley-launcher-inset, 1.25rem);
    inset-inline-end: var(--parley-launcher-inset, 1.25rem);
    z-index: var(--parley-z-index, 2147483000);
  }
  /* The launcher panel is a <dialog>: beside the launcher on wide screens (non-modal)… */
  dialog.panel {
    position: absolute;
    inset: auto;
    inset-inline-end: 0;
    inset-block-end: calc(var(--parley-launcher-size, 3.5rem) + 0.75rem);
    margin: 0;
    padding: 0;
    max-width: none;
    max-height: none;
    color: var(--_text);
    width: var(--parley-panel-width, min(24rem, calc(100vw - 2.5rem)));
    height: var(--parley-panel-height, min(36rem, calc(100vh - 7rem)));
    box-shadow: 0 12px 40px rgb(0 0 0 / 0.18);
  }
  dialog.panel:not([open]) {
    display: none;
  }
  /* …and the whole screen, modal, on small ones. */
  dialog.panel:modal {
    position: fixed;
    inset: 0;
    width: 100%;
    height: 100%;
    border: 0;
    border-radius: 0;
    box-shadow: none;
  }
  dialog.panel::backdrop {
    background: rgb(0 0 0 / 0.4);
  }
  .launcher {
    display: grid;
    place-items: center;
    width: var(--parley-launcher-size, 3.5rem);
    height: var(--parley-launcher-size, 3.5rem);
    border-radius: 50%;
    padding: 0;
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
    box-shadow: 0 6px 20px rgb(0 0 0 / 0.2);
  }
  .launcher svg {
    width: 55%;
    height: 55%;
  }

  dialog {
    max-width: min(26rem, calc(100vw - 2rem));
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    color: var(--_text);
    background: var(--_bg);
  }
  dialog h2 {
    margin: 0 0 0.5rem;
    font-size: 1rem;
  }
  dialog .real-host {
    font-weight: 700;
    overflow-wrap: anywhere;
  }
  .dialog-buttons {
    display: flex;
    justify-content: flex-end;
    gap: 0.5rem;
    margin-top: 1rem;
  }

  @media (prefers-reduced-motion: no-preference) {
    .thinking {
      animation: parley-pulse 1.4s ease-in-out infinite;
    }
  }
  @keyframes parley-pulse {
    50% {
      opacity: 0.5;
    }
  }
`;
