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
import type { AgentChatStrings } from '../strings.js';
import type { ChatSessionController } from './chat-session-controller.js';
import type { VoiceInController } from './voice-in-controller.js';
import type { VoiceOutController } from './voice-out-controller.js';

/** The message box in `root` (the element's shadow root), when it is rendered. */
export function messageBox(root: ParentNode): HTMLTextAreaElement | null {
  return root.querySelector('.composer textarea');
}

/** What the controller reads of `<agent-chat>` (and `handsFree`, which its toggle sets). */
export interface ComposerHost extends ParleyElement {
  handsFree: boolean;
  voiceAutosend: boolean;
  send(text: string): Promise<void>;
  stop(): void;
}

/** The controllers the composer works with. */
export interface ComposerParts {
  chat: ChatSessionController;
  voiceIn: VoiceInController;
  voiceOut: VoiceOutController;
}

/** See the module comment. It needs no lifecycle hooks, so it only asks its host to update. */
export class ComposerController {
  readonly #host: ComposerHost;
  readonly #chat: ChatSessionController;
  readonly #voiceIn: VoiceInController;
  readonly #voiceOut: VoiceOutController;
  #draft = '';

  constructor(host: ComposerHost, { chat, voiceIn, voiceOut }: ComposerParts) {
    this.#host = host;
    this.#chat = chat;
    this.#voiceIn = voiceIn;
    this.#voiceOut = voiceOut;
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
    void host.send(text);
    return true;
  }

  render(t: AgentChatStrings): TemplateResult {
    const chat = this.#chat;
    const voiceIn = this.#voiceIn;
    const voiceOut = this.#voiceOut;
    const host = this.#host;
    return html`<form part="composer" class="composer" @submit=${this.#submit}>
            <textarea
              part="input"
              dir="auto"
              rows="1"
              aria-label=${t.inputLabel}
              placeholder=${t.inputPlaceholder}
              .value=${live(this.#draft)}
              @input=${(e: Event) => { this.draft = (e.target as HTMLTextAreaElement).value; voiceOut.silence(); voiceIn.stop(); }}
              @keydown=${this.#keydown}
            ></textarea>
            ${voiceIn.enabled ? this.#renderMicButton(t) : nothing}
            ${chat.busy
              ? html`<button part="stop-button" class="stop" type="button" @click=${() => { voiceIn.stop(); host.stop(); }}>${t.stop}</button>`
              : html`<button part="send-button" class="send primary" type="submit" ?disabled=${!this.#draft.trim() || !chat.session}>
                  ${t.send}
                </button>`}
          </form>
          ${voiceIn.enabled ? this.#renderVoiceBar(t) : nothing}`;
  }

  #renderMicButton(t: AgentChatStrings): TemplateResult {
    const on = this.#voiceIn.phase === 'listening';
    return html`<button part="mic-button" class="mic ${on ? 'primary' : ''}" type="button" aria-pressed=${on} aria-label=${on ? t.stopListening : t.speakMessage} ?disabled=${!this.#chat.session} @click=${this.#toggleMic}>
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M9 5a3 3 0 0 1 6 0v6a3 3 0 0 1-6 0zM5 11a7 7 0 0 0 14 0M12 18v3" /></svg>
    </button>`;
  }

  #renderVoiceBar(t: AgentChatStrings): TemplateResult {
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
    if (!text.trim() || this.#chat.busy || !this.#chat.session) return;
    this.draft = '';
    this.#voiceOut.silence();
    this.#voiceOut.unlock(); // inside the gesture, so the reply can be spoken on iOS
    void this.#host.send(text);
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
