/**
 * The composer of `<agent-chat>`: the message box with its buttons (send, or stop while a reply streams,
 * and the microphone with `voice-input`) and the voice bar under it (the hands-free toggle and the voice
 * state line). It holds the draft, which voice in also writes (the words heard, as they come), and sends
 * it through the element's `send`. Typing silences the voice reading a reply and stops listening.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ShownStrings } from '../strings.js';
import type { ChatSessionController } from './chat-session-controller.js';
import type { VoiceInController } from './voice-in-controller.js';
import type { VoiceOutController } from './voice-out-controller.js';
import type { InputContentChunk } from '../../../client/types.js';
import type { AttachmentTray } from '../attachment-tray.js';
import type { MessageAttachment } from '../transcript.js';
import { textField } from '../../internal/text-field.js';

/** The message box in `root` (the element's shadow root), when it is rendered. */
export function messageBox(root: ParentNode): HTMLTextAreaElement | null {
  return root.querySelector('.composer textarea');
}

/** What the controller reads of `<agent-chat>` (and `handsFree`, which its toggle sets). */
export interface ComposerHost extends ParleyElement {
  handsFree: boolean;
  voiceAutosend: boolean;
  maxAttachments: number;
  maxAttachmentBytes: number;
  attachmentTypes: string;
  send(text: string, attachments?: readonly File[]): Promise<void>;
  stop(): void;
}

/** The controllers the composer works with. */
export interface ComposerParts {
  chat: ChatSessionController;
  voiceIn: VoiceInController;
  voiceOut: VoiceOutController;
  /** Says a sentence in the element's polite live region. */
  announce(text: string): void;
  words(): ShownStrings;
}

/** `attachment-types` as the file input's `accept` (commas between types). */
const acceptOf = (types: string) => types.split(/[\s,]+/).filter(Boolean).join(',');

/** See the module comment. It needs no lifecycle hooks, so it only asks its host to update. */
export class ComposerController {
  readonly #host: ComposerHost;
  readonly #chat: ChatSessionController;
  readonly #voiceIn: VoiceInController;
  readonly #voiceOut: VoiceOutController;
  readonly #parts: ComposerParts;
  #draft = '';
  /** The attached files (attachment-tray.ts), loaded with the first file attached. */
  #tray: AttachmentTray | null = null;
  #trayLoading: Promise<AttachmentTray> | null = null;
  #renderSent: typeof import('../attachment-tray.js').renderSentAttachments | null = null;
  #sentLoading: Promise<unknown> | null = null;

  constructor(host: ComposerHost, parts: ComposerParts) {
    this.#host = host;
    this.#parts = parts;
    this.#chat = parts.chat;
    this.#voiceIn = parts.voiceIn;
    this.#voiceOut = parts.voiceOut;
  }

  /** The attachment tray, its code loaded on first use. */
  #loadTray(): Promise<AttachmentTray> {
    return (this.#trayLoading ??= import('../attachment-tray.js').then(({ AttachmentTray, parseTypes, renderSentAttachments }) => {
      const host = this.#host;
      this.#renderSent = renderSentAttachments;
      return (this.#tray = new AttachmentTray(host, {
        limits: () => ({ maxCount: host.maxAttachments, maxBytes: host.maxAttachmentBytes, types: parseTypes(host.attachmentTypes) }),
        words: () => this.#parts.words(),
        announce: (text) => this.#parts.announce(text),
      }));
    }, (error: unknown) => {
      this.#trayLoading = null; // the next use tries again
      throw error;
    }));
  }

  /** While the attachment code loads for files shown in the transcript: settled once they are rendered (the element's updateComplete waits). */
  get loading(): Promise<unknown> | null {
    return this.#tray ? null : this.#sentLoading;
  }

  /** The files sent with a user message (`sent-attachments` part); nothing while their code loads (asking loads it). */
  renderSent(attachments: readonly MessageAttachment[], t: ShownStrings): TemplateResult | typeof nothing {
    if (this.#renderSent) return this.#renderSent(attachments, t);
    this.#sentLoading ??= this.#loadTray().then(() => {
      this.#host.requestUpdate();
      return this.#host.updateComplete;
    }).catch(() => {
      this.#sentLoading = null;
    });
    return nothing;
  }

  /** Whether files are taken now (attachments are on, and there is a session). */
  get #accepting(): boolean {
    return this.#host.maxAttachments > 0 && !!this.#chat.session;
  }

  /** Attaches `files` (checked against the limits; the refused ones are said). */
  async attach(files: readonly File[]): Promise<void> {
    if (files.length && this.#accepting) (await this.#loadTray()).add(files);
  }

  /** The content chunks of `text` with `files`, or null when a file is refused or unreadable (then said). */
  async content(text: string, files: readonly File[]): Promise<InputContentChunk[] | null> {
    return (await this.#loadTray()).content(text, files);
  }

  /** Drops the attached files (sent, or a new conversation). */
  clearAttachments(): void {
    this.#tray?.clear();
  }

  /** What the message box holds. */
  get draft(): string {
    return this.#draft;
  }

  set draft(text: string) {
    if (text === this.#draft) return;
    this.#draft = text;
    this.#host.requestUpdate();
  }

  /** Focuses the message box once the element has updated. */
  focus(): void {
    this.#host.updateComplete.then(() => messageBox(this.#host.renderRoot)?.focus());
  }

  /**
   * An utterance ended with `text`: sends it (hands-free, or `voice-autosend`) and returns true, or leaves it
   * in the message box and returns false.
   */
  said(text: string): boolean {
    const host = this.#host;
    const chat = this.#chat;
    if ((!host.voiceAutosend && !host.handsFree) || !chat.session) {
      this.draft = text;
      this.focus();
      return false;
    }
    this.draft = '';
    if (chat.busy) host.stop(); // the user talked over a reply that was still streaming
    void host.send(text, this.#tray?.files ?? []); // with what is attached, as the send button would
    return true;
  }

  render(t: ShownStrings): TemplateResult {
    const chat = this.#chat;
    const voiceIn = this.#voiceIn;
    const voiceOut = this.#voiceOut;
    const host = this.#host;
    const files = this.#tray?.files.length ?? 0;
    return html`${this.#tray?.render(t) ?? nothing}<form part="composer" class="composer" @submit=${this.#submit}
            @dragover=${this.#dragOver} @dragleave=${this.#dragLeave} @drop=${this.#drop}>
            ${host.maxAttachments > 0 ? this.#renderAttachButton(t) : nothing}
            <textarea
              part="input"
              rows="1"
              aria-label=${t.inputLabel}
              placeholder=${t.inputPlaceholder}
              .value=${live(this.#draft)}
              ${textField()}
              @input=${(e: Event) => { this.draft = (e.target as HTMLTextAreaElement).value; voiceOut.silence(); voiceIn.stop(); }}
              @keydown=${this.#keydown}
              @paste=${this.#paste}
            ></textarea>
            ${voiceIn.enabled ? this.#renderMicButton(t) : nothing}
            ${chat.busy
              ? html`<button part="stop-button" class="stop" type="button" @click=${() => { voiceIn.stop(); host.stop(); }}>${t.stop}</button>`
              : html`<button part="send-button" class="send primary" type="submit" ?disabled=${(!this.#draft.trim() && !files) || !chat.session}>
                  ${t.send}
                </button>`}
          </form>
          ${voiceIn.enabled ? this.#renderVoiceBar(t) : nothing}`;
  }

  /**
   * The attach button and its file input. No `capture`: it would open the camera only; without it a phone's
   * picker offers the camera, the photos and the files (PDFs) for these types.
   */
  #renderAttachButton(t: ShownStrings): TemplateResult {
    return html`<button part="attach-button" class="attach" type="button" aria-label=${t.attach} ?disabled=${!this.#chat.session}
        @click=${this.#openPicker}>
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="m21 11-8.6 8.6a5 5 0 0 1-7-7L14 4a3.3 3.3 0 0 1 4.7 4.7l-8.6 8.6a1.7 1.7 0 0 1-2.4-2.4l8-8" /></svg>
      </button><input type="file" multiple hidden tabindex="-1" aria-hidden="true" accept=${acceptOf(this.#host.attachmentTypes)} @change=${this.#picked} />`;
  }

  readonly #openPicker = (): void => {
    this.#host.renderRoot.querySelector<HTMLInputElement>('.composer input[type="file"]')?.click();
  };

  readonly #picked = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = ''; // the same file can be picked again
    void this.attach(files);
  };

  // A drop or paste of files: the files are taken from the event at once (its data is gone after it).
  readonly #dragOver = (event: DragEvent): void => {
    if (!this.#accepting || !event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    (event.currentTarget as HTMLElement).classList.add('dragging');
  };

  readonly #dragLeave = (event: DragEvent): void => {
    (event.currentTarget as HTMLElement).classList.remove('dragging');
  };

  readonly #drop = (event: DragEvent): void => {
    this.#dragLeave(event);
    const files = [...(event.dataTransfer?.files ?? [])];
    if (!files.length || !this.#accepting) return;
    event.preventDefault();
    void this.attach(files);
  };

  readonly #paste = (event: ClipboardEvent): void => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (!files.length || !this.#accepting) return;
    event.preventDefault();
    void this.attach(files);
  };

  #renderMicButton(t: ShownStrings): TemplateResult {
    const on = this.#voiceIn.phase === 'listening';
    return html`<button part="mic-button" class="mic ${on ? 'primary' : ''}" type="button" aria-pressed=${on} aria-label=${on ? t.stopListening : t.speakMessage} ?disabled=${!this.#chat.session} @click=${this.#toggleMic}>
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M9 5a3 3 0 0 1 6 0v6a3 3 0 0 1-6 0zM5 11a7 7 0 0 0 14 0M12 18v3" /></svg>
    </button>`;
  }

  #renderVoiceBar(t: ShownStrings): TemplateResult {
    const host = this.#host;
    const status = { off: '', listening: t.voiceListening, thinking: t.voiceThinking, speaking: t.voiceSpeaking }[this.#voiceIn.phase];
    return html`<div part="voice-bar" class="voice-bar">
      <button part="hands-free-button" class=${host.handsFree ? 'primary' : ''} type="button" aria-pressed=${host.handsFree} ?disabled=${!this.#chat.session} @click=${() => { this.#voiceOut.unlock(!host.handsFree); host.handsFree = !host.handsFree; }}>${t.handsFree}</button>
      <span part="voice-status" role="status">${status}</span>
    </div>`;
  }

  readonly #submit = (event: Event): void => {
    event.preventDefault();
    const text = this.#draft;
    const files = this.#tray?.files ?? [];
    if ((!text.trim() && !files.length) || this.#chat.busy || !this.#chat.session) return;
    this.draft = '';
    this.#voiceOut.silence();
    this.#voiceOut.unlock(); // inside the gesture, so the reply can be spoken on iOS
    void this.#host.send(text, files);
  };

  readonly #keydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#submit(event);
    }
  };

  readonly #toggleMic = (): void => {
    const voiceIn = this.#voiceIn;
    this.#voiceOut.unlock(); // inside the click, so a spoken reply can start later (iOS)
    const listening = voiceIn.phase === 'listening';
    if (voiceIn.phase === 'speaking') this.#host.stop(); // talking over the reply, by hand: the microphone is already open
    if (listening) voiceIn.finish();
    else voiceIn.listen();
  };
}
