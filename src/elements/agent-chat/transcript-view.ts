/**
 * The transcript of `<agent-chat>`, as templates: its rows (transcript.ts) as user messages, replies in
 * markdown (or as placeholders: TranscriptPlaceholdersController), function calls and handoffs, with the
 * buttons under them (edit, regenerate, read aloud). Kept apart from the element, which passes in what
 * the transcript shows and does; no state of its own.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { markdown } from '../internal/markdown-directive.js';
import type { ChatSessionController } from './controllers/chat-session-controller.js';
import type { ComposerController } from './controllers/composer-controller.js';
import type { MessageEditController } from './controllers/message-edit-controller.js';
import type { StartersController } from './controllers/starters-controller.js';
import type { ToolApprovalController } from './controllers/tool-approval-controller.js';
import type { ReplyExtrasController } from './controllers/reply-extras-controller.js';
import type { TranscriptPlaceholdersController } from './controllers/transcript-placeholders-controller.js';
import type { VoiceOutController } from './controllers/voice-out-controller.js';
import type { ShownStrings } from './strings.js';
import { lastReply } from './transcript.js';
import type { TranscriptItem } from './transcript.js';

/** What the transcript shows and does, from `<agent-chat>`. */
export interface TranscriptView {
  chat: ChatSessionController;
  placeholders: TranscriptPlaceholdersController;
  edit: MessageEditController;
  voiceOut: VoiceOutController;
  /** The suggested first messages of an empty chat. */
  starters: StartersController;
  /** The files sent with user messages (shown by the attachment code, loaded for them). */
  composer: ComposerController;
  /** Client-tool calls asking for consent, and server tools at work. */
  tools: ToolApprovalController;
  /** Copy, feedback and sources of replies. */
  extras: ReplyExtrasController;
  /** A reply is awaited or streaming (the edit and regenerate buttons wait). */
  busy: boolean;
  /** Finished replies can be read aloud (there is a relay to speak through). */
  readAloud: boolean;
  /** Hosts whose images replies may show. */
  imageHosts: string[];
  /** Asks again for the reply `entryId`. */
  regenerate(entryId: string): void;
  /** The transcript's click and scroll listeners. */
  click(event: MouseEvent): void;
  scroll(): void;
}

/** The scrolling list of messages (`transcript` part). */
export function renderTranscript(view: TranscriptView, t: ShownStrings): TemplateResult {
  const { chat } = view;
  const items = chat.items;
  const lastReplyId = lastReply(items)?.entry.id ?? null;
  const fullFrom = view.placeholders.begin(chat.state.conversationId, items);
  return html`<div
      part="transcript"
      class="transcript"
      role="region"
      aria-label=${t.transcriptLabel}
      aria-busy=${view.busy ? 'true' : 'false'}
      tabindex="0"
      @click=${view.click}
      @scroll=${view.scroll}
    >
      ${items.length === 0 && chat.state.status !== 'submitted'
        ? html`<slot name="empty"><p part="empty" class="empty">${t.emptyState}</p></slot>${view.starters.render(t)}`
        : nothing}
      ${repeat(items, (item) => item.key, (item, i) => renderItem(view, item, t, lastReplyId, i < fullFrom))}
      ${view.tools.render(t)}${view.tools.renderProgress(t, view.busy)}
      ${chat.state.status === 'submitted' && !chat.state.approvals?.length ? html`<p part="thinking" class="thinking">${t.thinking}</p>` : nothing}
    </div>`;
}

/** `old`: the item is older than the newest HISTORY_FULL (a reply is then a placeholder until rendered in full: TranscriptPlaceholdersController). */
function renderItem(view: TranscriptView, item: TranscriptItem, t: ShownStrings, lastReplyId: string | null, old: boolean): TemplateResult {
  switch (item.kind) {
    case 'user':
      return renderUserMessage(view, item, t);
    case 'assistant':
      return renderReply(view, item, t, item.entry.id === lastReplyId, view.placeholders.placeholder(item.key, old));
    case 'call':
      return renderCall(item, t);
    case 'result':
      return html`<details part="tool-call" class="tool-call">
        <summary>${t.functionResult}</summary>
        <div class="tool-body"><pre tabindex="0">${item.result}</pre></div>
      </details>`;
    case 'handoff':
      return html`<p part="handoff" class="handoff">${t.handoff(item.entry.next_agent_name)}</p>`;
  }
}

function renderUserMessage(view: TranscriptView, { key, entry, text, attachments }: TranscriptItem & { kind: 'user' }, t: ShownStrings): TemplateResult {
  if (view.edit.editing(key)) return view.edit.renderForm(t);
  return html`<div part="message message-user" class="message user" data-entry-id=${entry.id}>
    <span class="visually-hidden">${t.you}:</span>
    ${attachments.length ? view.composer.renderSent(attachments, t) : nothing}
    ${text ? html`<div part="bubble" class="bubble" dir="auto">${text}</div>` : nothing}
    ${view.chat.state.waiting?.includes(entry.id) ? html`<p part="waiting" class="interrupted">${t.waitingToSend}</p>` : nothing}
    ${view.busy
      ? nothing
      : html`<div part="message-actions" class="message-actions">
          <button part="edit-button" class="quiet" type="button" data-edit=${key} @click=${() => view.edit.start(key, text)}>
            ${t.edit}
          </button>
        </div>`}
  </div>`;
}

function renderReply(view: TranscriptView, reply: TranscriptItem & { kind: 'assistant' }, t: ShownStrings, isLast: boolean, placeholder: boolean): TemplateResult {
  const { chat, busy, voiceOut, extras } = view;
  const { key, entry, text } = reply;
  const streaming = entry.id === chat.state.streamingEntryId && busy;
  const interrupted = !streaming && (entry.interrupted === true || chat.stoppedIds.has(entry.id));
  return html`<div part="message message-assistant" class="message assistant" data-entry-id=${entry.id} data-key=${key}>
    <span class="visually-hidden">${chat.state.agentName || t.assistant}:</span>
    ${placeholder
      ? html`<div part="bubble" class="bubble markdown placeholder" dir="auto">${text}</div>`
      : html`<div part="bubble" class="bubble markdown" dir="auto" ${markdown(extras.text(reply), {
          streaming,
          cacheKey: entry.id,
          allowImageHosts: view.imageHosts,
          imageBlocked: t.imageBlocked,
          copyCode: t.copyCode,
        })}></div>`}
    ${placeholder ? nothing : extras.sources(reply, t)}
    ${interrupted ? html`<p part="interrupted" class="interrupted">${t.interrupted}</p>` : nothing}
    ${!streaming && entry.type === 'message.output' && (!placeholder || view.readAloud || (isLast && !busy))
      ? html`<div part="message-actions" class="message-actions">
          ${placeholder ? nothing : extras.actions(reply, t)}
          ${view.readAloud && text
            ? html`<button part="read-aloud-button" class="quiet" type="button" @click=${() => voiceOut.toggleReadAloud(entry.id, text)}>${voiceOut.speakingId === entry.id ? t.stopReading : t.readAloud}</button>`
            : nothing}
          ${isLast && !busy
            ? html`<button part="regenerate-button" class="quiet" type="button" @click=${() => view.regenerate(entry.id)}>${t.regenerate}</button>`
            : nothing}
        </div>`
      : nothing}
  </div>`;
}

function renderCall({ entry, arguments: args, result }: TranscriptItem & { kind: 'call' }, t: ShownStrings): TemplateResult {
  const isFunction = entry.type === 'function.call';
  return html`<details part="tool-call" class="tool-call" data-entry-id=${entry.id}>
    <summary>${isFunction ? t.functionCall(entry.name) : t.toolExecution(entry.name)}</summary>
    <div class="tool-body">
      <h3>${t.functionArguments}</h3>
      <pre tabindex="0">${args}</pre>
      ${isFunction
        ? html`<h3>${t.functionResult}</h3>
            ${result !== null ? html`<pre tabindex="0">${result}</pre>` : html`<p>${t.functionPending}</p>`}`
        : nothing}
    </div>
  </details>`;
}
