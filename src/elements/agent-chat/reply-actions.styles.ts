import { css } from 'lit';

/** Styles of the reply actions, the comment form, the Sources list and code blocks' copy buttons (adopted by reply-actions.ts when it loads). */
export const replyExtrasStyles = css`
  .message-actions {
    flex-wrap: wrap;
  }
  .thumb[aria-pressed='true'] {
    color: var(--_text);
    background: var(--_surface);
    border-color: var(--_border);
  }
  .feedback-form {
    flex-basis: 100%;
    display: grid;
    gap: 0.4rem;
    margin-top: 0.3rem;
  }
  .feedback-form label {
    display: grid;
    gap: 0.2rem;
    font-size: 0.85em;
  }
  .feedback-form textarea {
    resize: vertical;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    padding: 0.3rem 0.5rem;
  }
  .feedback-buttons {
    display: flex;
    gap: 0.4rem;
  }
  .sources {
    margin-top: 0.3rem;
    font-size: 0.85em;
    max-width: 100%;
  }
  .sources summary {
    cursor: pointer;
    color: var(--_muted);
  }
  .source-list {
    margin: 0.3rem 0 0;
    padding-inline-start: 1.5rem;
  }
  .source {
    margin-bottom: 0.4rem;
    overflow-wrap: anywhere;
  }
  .source .favicon {
    vertical-align: -0.15em;
    margin-inline-end: 0.25rem;
  }
  .source-host,
  .source-page {
    color: var(--_muted);
    margin-inline-start: 0.4rem;
  }
  .source-description {
    margin: 0.15rem 0 0;
    color: var(--_muted);
  }
  .markdown pre {
    position: relative;
  }
  .parley-copy-code {
    position: absolute;
    inset-block-start: 0.25rem;
    inset-inline-end: 0.25rem;
    padding: 0.1rem 0.4rem;
    font-size: 0.8em;
    opacity: 0.8;
  }
  .parley-copy-code::before {
    content: '⧉';
  }
  .parley-source-marker {
    color: var(--_muted);
    font-size: 0.75em;
  }
`;
