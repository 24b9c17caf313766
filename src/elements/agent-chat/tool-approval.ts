/**
 * The consent cards of `<agent-chat>`: a client tool's call that needs the visitor's consent
 * (`requiresApproval`), its name and arguments (pretty-printed, as text: they come from the model) with
 * Allow and Deny. Announces each call once and moves focus to it when focus was in the chat; the answer
 * goes to the session and focus to the next card, else back to the message box. Loaded with `import()`
 * the first time a call asks (ToolApprovalController).
 */
import { css, html } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ToolApprovalRequest } from '../../client/contracts.js';
import type { ParleyElement } from '../internal/parley-element.js';
import type { LiveRegionController } from '../internal/live-region.js';
import type { ChatSessionController } from './controllers/chat-session-controller.js';
import type { ShownStrings } from './strings.js';
import { toolApprovalEnglish } from './tool-approval.strings.js';

/** The element's words with this module's English. */
type Words = ShownStrings & typeof toolApprovalEnglish;

/** What the approvals use of `<agent-chat>`. */
export interface ToolApprovalParts {
  chat: ChatSessionController;
  live: LiveRegionController;
  /** The element's words now. */
  words(): ShownStrings;
  /** Moves focus to the message box. */
  focusComposer(): void;
  /** JSON indented for reading. */
  pretty(json: string): string;
}

/** The element's words with the cards' English under them (a catalogue's or the host's still win). */
const withEnglish = (t: ShownStrings): Words => ({ ...toolApprovalEnglish, ...t });

export class ToolApprovalView {
  readonly #host: ParleyElement;
  readonly #parts: ToolApprovalParts;
  /** The calls already announced (each is announced, and takes focus, once). */
  readonly #seen = new Set<string>();

  constructor(host: ParleyElement, parts: ToolApprovalParts) {
    this.#host = host;
    this.#parts = parts;
    // The cards' styles join the element's own, in its shadow root.
    const root = host.renderRoot as ShadowRoot;
    const sheet = approvalStyles.styleSheet;
    if (sheet && Array.isArray(root.adoptedStyleSheets)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  get #requests(): readonly ToolApprovalRequest[] {
    return this.#parts.chat.state.approvals ?? [];
  }

  /** After a render: announces the calls that just asked, and focuses the first when focus was in the chat. */
  updated(): void {
    const fresh = this.#requests.filter((r) => !this.#seen.has(r.toolCallId));
    if (!fresh.length) return;
    for (const r of fresh) {
      this.#seen.add(r.toolCallId);
      this.#parts.live.announce(withEnglish(this.#parts.words()).approvalAnnouncement(r.name));
    }
    if (this.#host.matches(':focus-within')) this.#card(fresh[0].toolCallId)?.focus();
  }

  /** One card per waiting call (`tool-approval` part). */
  render(shown: ShownStrings): TemplateResult {
    const t = withEnglish(shown);
    return html`${repeat(this.#requests, (r) => r.toolCallId, (r, i) => html`<div
        part="tool-approval"
        class="tool-approval"
        role="group"
        tabindex="-1"
        aria-labelledby=${`tool-approval-${i}`}
        data-tool-call-id=${r.toolCallId}
      >
        <p id=${`tool-approval-${i}`} class="tool-approval-question" dir="auto">${t.approvalQuestion(r.name)}</p>
        <h3 class="visually-hidden">${t.functionArguments}</h3>
        <pre tabindex="0" dir="auto">${this.#parts.pretty(r.arguments)}</pre>
        <div class="tool-approval-actions">
          <button part="allow-button" class="primary" type="button" @click=${() => this.decide(r, true)}>${t.allowTool}</button>
          <button part="deny-button" class="quiet" type="button" @click=${() => this.decide(r, false)}>${t.denyTool}</button>
        </div>
      </div>`)}`;
  }

  /** The visitor's answer: to the session; focus goes to the next card, else back to the message box. */
  decide(request: ToolApprovalRequest, allow: boolean): void {
    if (!this.#parts.chat.session?.decideToolCall?.(request.toolCallId, allow)) return;
    if (!allow) this.#parts.live.announce(withEnglish(this.#parts.words()).toolDeclined(request.name));
    const next = this.#requests.find((r) => r.toolCallId !== request.toolCallId);
    void this.#host.updateComplete.then(() => {
      const card = next && this.#card(next.toolCallId);
      if (card) card.focus();
      else this.#parts.focusComposer();
    });
  }

  #card(toolCallId: string): HTMLElement | null {
    for (const card of this.#host.renderRoot.querySelectorAll<HTMLElement>('.tool-approval')) if (card.dataset.toolCallId === toolCallId) return card;
    return null;
  }
}

/** The cards' styles: they come with this module, not with the element's first load. */
const approvalStyles = css`
  .tool-approval {
    align-self: stretch;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    padding: 0.5rem 0.6rem;
  }
  .tool-approval pre {
    margin: 0.4rem 0;
    max-height: 12rem;
    overflow: auto;
  }
  .tool-approval-question {
    margin: 0;
    font-weight: 600;
  }
  .tool-approval-actions {
    display: flex;
    gap: 0.4rem;
  }
`;
