/**
 * Client tools asking the visitor, and server tools at work, in `<agent-chat>`: the calls waiting for
 * consent (`state.approvals`) are shown by tool-approval.ts, loaded the first time one asks; and the status
 * line of a tool the platform runs now (a `tool.execution` entry not done yet: a connector, the document
 * library).
 */
import { html, nothing } from 'lit';
import type { ReactiveController, TemplateResult } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { ToolApprovalParts, ToolApprovalView } from '../tool-approval.js';
import { prettyJson } from '../transcript.js';

export class ToolApprovalController implements ReactiveController {
  readonly #host: ParleyElement;
  readonly #parts: ToolApprovalParts;
  #view: ToolApprovalView | null = null;
  #loading: Promise<void> | null = null;

  constructor(host: ParleyElement, parts: Omit<ToolApprovalParts, 'pretty'>) {
    this.#host = host;
    this.#parts = { ...parts, pretty: prettyJson };
    host.addController(this);
  }

  hostUpdated(): void {
    this.#view?.updated();
  }

  /** The consent cards (nothing while their module loads: it asks for an update once it is there). */
  render(t: ShownStrings): TemplateResult | typeof nothing {
    if (!this.#parts.chat.state.approvals?.length) return nothing;
    if (this.#view) return this.#view.render(t);
    this.#loading ??= import('../tool-approval.js').then(({ ToolApprovalView }) => {
      this.#view = new ToolApprovalView(this.#host, this.#parts);
      this.#host.requestUpdate();
    }, (error: unknown) => {
      this.#loading = null;
      console.warn('[parley] <agent-chat> could not load the tool approval view:', error);
    });
    return nothing;
  }

  /** The status line of the tools the platform runs now (`tool-progress` part, a polite live region). */
  renderProgress(t: ShownStrings, busy: boolean): TemplateResult {
    const running = busy ? this.#parts.chat.state.entries.filter((e) => e.type === 'tool.execution' && !e.completed_at) : [];
    return html`<div part="tool-progress" class="tool-progress" role="status">${running.map((e) => e.type === 'tool.execution' && html`<p dir="auto">${
      e.name === 'document_library' ? t.searchingDocuments : t.toolRunning(e.name)}</p>`)}</div>`;
  }
}
