import { html, nothing } from 'lit';
import { cssProps } from '../internal/css-props.js';
import type { TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { TranscriptionSegment } from '../../client/index.js';
import { TranscriptionSession } from '../../client/transcription-session.js';
import type { Transcription, TranscriptionActivity, TranscriptionErrorKind, TranscriptionSource } from '../../client/transcription-session.js';
import { ParleyElement } from '../internal/parley-element.js';
import { relayClient } from '../internal/shared-client.js';
import { formatElapsed, formatSegmentTime, resolveAudioTranscriberStrings } from './strings.js';
import type { AudioTranscriberStrings } from './strings.js';
import { controlStyles } from '../internal/controls.styles.js';
import { audioTranscriberStyles } from './audio-transcriber.styles.js';
import { LiveRegionController } from '../internal/live-region.js';
import { emitOriginRefusal } from '../internal/origin-refusal.js';
import { refusalKind } from '../../client/errors.js';
import { FocusRescueController } from '../internal/focus-rescue.js';
import { FileDropController, fileDropStyles } from '../internal/file-drop.js';

/** Languages offered by the picker (codes the platform's transcription models know); `''` is Auto. */
const LANGUAGES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['en', 'English'], ['fr', 'Français'], ['de', 'Deutsch'], ['es', 'Español'], ['it', 'Italiano'], ['pt', 'Português'], ['nl', 'Nederlands'], ['hi', 'हिन्दी'],
];

/** How the record button works: click to start and click to stop, or hold it (or Space) while talking. */
export type AudioTranscriberMode = 'toggle' | 'push-to-talk';

/** What the element is doing: one recording or one file at a time. */
export type AudioTranscriberActivity = TranscriptionActivity;

/** One finished (or interrupted) transcript: a recording or a file. */
export interface TranscriptEntry {
  source: TranscriptionSource;
  /** The file name, or the strings' `microphone`. */
  label: string;
  text: string;
  segments: TranscriptionSegment[];
  language: string | null;
  /** The stream broke: `text` is what arrived before. */
  interrupted: boolean;
}

/** A failure in words, as shown. */
interface ShownError {
  kind: TranscriptionErrorKind;
  message: string;
}

/**
 * Turns speech into text through a Parley relay: from the microphone (realtime, live words while
 * speaking) or from an audio file (picked or dropped, streamed with live words), with segments,
 * speaker labels, copy and clear.
 *
 * The microphone layer (`src/audio/capture`) is loaded on the first recording, so a page that only
 * uploads files never downloads it. Every text is rendered as plain text, never as HTML.
 *
 * @tagname audio-transcriber
 * @summary Transcribe the microphone or an audio file, with live text, segments and copy.
 *
 * @attr relay-url - Base URL of the Parley relay, e.g. `/api`.
 * @attr model - Model of file transcriptions (default: the platform's).
 * @attr realtime-model - Model of microphone (realtime) transcriptions (default: the client's).
 * @attr language - Language of files (`en`, `fr`, …; empty = detected). The picker changes it.
 * @attr mode - `toggle` (default: click to start, click to stop) or `push-to-talk` (hold the button, or Space while it is focused).
 * @attr diarize - Ask for speaker labels on file segments.
 * @attr timestamps - Ask for segments with times and show them (files: only with the Auto language; the platform cannot give both).
 * @attr heading - A visible heading, also the element's accessible name.
 * @attr disabled - Turns off recording and file picking.
 *
 * @csspart base - The wrapper of everything.
 * @csspart heading - The heading (when `heading` is set).
 * @csspart controls - The row of the record button, level, time and language.
 * @csspart record-button - Starts and stops recording (`aria-pressed` while recording).
 * @csspart level - The microphone level meter.
 * @csspart elapsed - The recording time.
 * @csspart language-picker - The label and select of the language.
 * @csspart language-select - The language select.
 * @csspart language-note - Says that segment times need the Auto language (the platform cannot give both).
 * @csspart drop-zone - The file button, also the target for dropped files.
 * @csspart cancel-button - Cancels a file being transcribed.
 * @csspart error - The error message.
 * @csspart result - The result area: actions, transcript and segments.
 * @csspart copy-button - Copies the transcript.
 * @csspart clear-button - Clears the transcript.
 * @csspart copy-status - `Copied` after a copy.
 * @csspart transcript - The transcript text.
 * @csspart live - The words recognised so far (while speaking or streaming).
 * @csspart segments - The list of segments with their times.
 * @csspart segment - One segment.
 * @csspart segment-time - `start–end` of a segment (mm:ss.s).
 * @csspart speaker - The speaker of a segment (diarized files).
 *
 * @cssproperty [--parley-font-family=system-ui] - Font.
 * @cssproperty [--parley-font-size=15px] - Base font size.
 * @cssproperty [--parley-color-text=#1d1d1f] - Text colour.
 * @cssproperty [--parley-color-muted=#545458] - Hints, times, live text.
 * @cssproperty [--parley-color-background=#ffffff] - Background.
 * @cssproperty [--parley-color-surface=#f4f4f6] - Drop zone, transcript and level track.
 * @cssproperty [--parley-color-border=#d2d2d7] - Borders.
 * @cssproperty [--parley-color-accent=#0b57d0] - Record button, level, drop highlight.
 * @cssproperty [--parley-color-on-accent=#ffffff] - Text on the accent colour.
 * @cssproperty [--parley-color-error=#b3261e] - Error text and the recording button.
 * @cssproperty [--parley-radius=12px] - Corner radius.
 * @cssproperty [--parley-gap=0.75rem] - Spacing.
 * @cssproperty [--parley-focus-ring=2px solid var(--parley-color-accent)] - Outline of focused controls.
 * @cssproperty [--parley-level-color=var(--parley-color-accent)] - Colour of the level meter.
 *
 * @fires {CustomEvent<ParleyTranscriptionStartDetail>} parley-transcription-start - Recording started or a file is being sent (`detail.source`).
 * @fires {CustomEvent<ParleyTranscriptionPartialDetail>} parley-transcription-partial - The words so far (`detail.text`, the whole text, not a delta).
 * @fires {CustomEvent<ParleyTranscriptionFinalDetail>} parley-transcription-final - A finished transcript (`detail.text`, `segments`, `language`, `source`).
 * @fires {CustomEvent<ParleyTranscriptionErrorDetail>} parley-transcription-error - Recording or transcription failed (`detail.kind`, the `message` shown, the platform's or browser's own words in `detail`). Kinds include `audio-not-started` (the microphone's AudioContext did not start), `too-large` and `not-available` (the relay refuses the page, model or scope; no retry).
 * @fires {CustomEvent<ParleyErrorDetail>} parley-error - The relay does not serve this page's origin (`detail.error.code` is `origin_not_allowed`; the visitor sees a neutral message).
 */
export class AudioTranscriber extends ParleyElement {
  static override styles = [ParleyElement.styles, controlStyles, fileDropStyles, audioTranscriberStyles];

  /** Base URL of the Parley relay, e.g. `/api`. */
  @property({ attribute: 'relay-url' }) relayUrl = '';

  /** Model of file transcriptions (default: the platform's). */
  @property() model = '';

  /** Model of microphone (realtime) transcriptions (default: the client's). */
  @property({ attribute: 'realtime-model' }) realtimeModel = '';

  /** Language of files (`en`, `fr`, …); empty lets the platform detect it. The picker changes it. */
  @property({ reflect: true }) language = '';

  /** `toggle` (click to start, click to stop) or `push-to-talk` (hold the button, or Space while it is focused). */
  @property() mode: AudioTranscriberMode = 'toggle';

  /** Ask for speaker labels on the segments of files. */
  @property({ type: Boolean }) diarize = false;

  /** Ask for segments with times and show them. */
  @property({ type: Boolean }) timestamps = false;

  /** A visible heading, also the element's accessible name. */
  @property() heading = '';

  /** Turns off recording and file picking (the transcript can still be copied and cleared). */
  @property({ type: Boolean, reflect: true }) disabled = false;

  /** Overrides of the element's words (see `AudioTranscriberStrings`), for translation. */
  @property({ attribute: false }) strings: Partial<AudioTranscriberStrings> | null = null;

  @state() private entries: TranscriptEntry[] = [];
  @state() private elapsed = 0;
  @state() private error: ShownError | null = null;
  @state() private copyStatus = '';

  /** The recording or the file being transcribed: its requests, live words and failures (see transcription-session.ts). */
  readonly #session = new TranscriptionSession({
    client: () => relayClient(this.relayUrl),
    voiceInput: () => import('../../audio/capture/index.js').then((capture) => capture.createVoiceInput),
    changed: () => {
      if (this.#session.activity !== 'listening') this.#stopTicker();
      this.requestUpdate();
    },
    // While finishing, the button stays enabled (aria-disabled) so that focus stays on it.
    notice: (notice) => this.#liveRegion.announce(this.#t[notice]),
    fileTaken: (name) => this.#liveRegion.announce(this.#t.transcribingFile(name)),
    started: (source) => {
      if (source === 'microphone') this.#startTicker();
      this.emit('parley-transcription-start', { source });
    },
    partial: (text) => this.emit('parley-transcription-partial', { text }),
    finished: (transcription) => {
      const { text, segments, language, source } = this.#addEntry(transcription);
      this.#liveRegion.announce(this.#t.finalAnnouncement(text));
      this.emit('parley-transcription-final', { text, segments, language, source });
    },
    failed: ({ kind, detail, cause, kept }) => {
      if (kept) this.#addEntry(kept);
      // The relay does not serve this page (the page hears it as parley-error), or refuses the model or scope
      // (the console names the setting): the visitor reads neutral words, with no "try again".
      this.#fail(emitOriginRefusal(this, cause) || refusalKind(cause) === 'not-allowed' ? 'not-available' : kind, detail);
    },
  });
  /** Push-to-talk: the button or Space is still held (a release during `starting` stops once started). */
  #held = false;
  /** Files picked or dropped on the drop zone, while recording and file picking are on and nothing runs. */
  readonly #fileDrop = new FileDropController(this, {
    accepting: () => !this.disabled && this.activity === 'idle',
    file: (file) => void this.transcribeFile(file),
  });
  /** What a screen reader says: one polite live region, rendered at the end of the template. */
  readonly #liveRegion = new LiveRegionController(this);
  /** @internal The cancel button goes when the file is done: focus on it moves to the drop zone, not to the page. */
  protected readonly focusRescue = new FocusRescueController(this, '.cancel', '.drop-zone');
  /** Counts the recording's time while listening. */
  #ticker = 0;

  /** What the element is doing: `idle`, `starting`, `listening`, `finishing` (a recording) or `file`. */
  get activity(): AudioTranscriberActivity {
    return this.#session.activity;
  }

  /** The finished transcripts, oldest first. */
  get transcript(): readonly TranscriptEntry[] {
    return this.entries;
  }

  /** All finished text, one paragraph per recording or file (what Copy copies). */
  get text(): string {
    return this.entries.map((e) => e.text).join('\n\n');
  }

  get #t(): AudioTranscriberStrings {
    return resolveAudioTranscriberStrings(this.strings, this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.cancel();
  }

  // ---------------------------------------------------------------- actions

  /** Starts recording (call it from a user gesture: the browser asks for the microphone). */
  async startRecording(): Promise<void> {
    if (this.disabled) return;
    this.error = null; // (none shows while something runs: a failure ends it)
    const listening = await this.#session.startRecording(this.realtimeModel);
    if (listening && this.mode === 'push-to-talk' && !this.#held) await this.stopRecording();
  }

  /** Stops recording; the final text is added to the transcript. */
  stopRecording(): Promise<void> {
    return this.#session.stopRecording();
  }

  /**
   * Transcribes an audio file (streamed: words appear as they are recognised).
   * @param file - The audio (or video) file; a file of another type is refused without being sent.
   */
  async transcribeFile(file: Blob): Promise<void> {
    if (this.disabled) return;
    this.error = null; // (none shows while something runs: a failure ends it)
    await this.#session.transcribeFile(file, { model: this.model, language: this.language, diarize: this.diarize, timestamps: this.timestamps });
  }

  /** Stops whatever is running at once (a recording without its final text, or a file); nothing is added. */
  cancel(): void {
    this.#held = false;
    this.#session.cancel();
  }

  /** Forgets the transcript (and any error). */
  clear(): void {
    this.entries = [];
    this.error = null;
    this.copyStatus = '';
  }

  /** Copies the transcript to the clipboard; resolves true when the browser allowed it. */
  async copy(): Promise<boolean> {
    try {
      await navigator.clipboard.writeText(this.text);
      this.copyStatus = this.#t.copied;
      return true;
    } catch {
      this.copyStatus = this.#t.copyFailed;
      return false;
    }
  }

  /** Adds a finished (or interrupted) transcription to the transcript, labelled with its file's name or `microphone`. */
  #addEntry({ fileName, ...transcription }: Transcription): TranscriptEntry {
    const entry = { ...transcription, label: fileName ?? this.#t.microphone };
    this.entries = [...this.entries, entry];
    this.copyStatus = '';
    return entry;
  }

  #fail(kind: TranscriptionErrorKind, detail: string): void {
    const message = this.#t.errorMessage(kind, detail);
    this.error = { kind, message };
    // Announced once, politely, through the live region; the error line stays visible.
    this.#liveRegion.announce(message);
    this.emit('parley-transcription-error', { kind, message, detail });
    // The platform's or browser's own words are for the site owner (the visitor sees the sentence above);
    // a refused origin is already explained in the console by the client, a wrong file is the visitor's.
    if (detail && kind !== 'not-available' && kind !== 'not-audio' && kind !== 'too-large') console.warn(`[parley] <audio-transcriber> transcription failed (${kind}):`, detail);
  }

  #startTicker(): void {
    this.#stopTicker();
    const startedAt = performance.now();
    this.#ticker = window.setInterval(() => { this.elapsed = (performance.now() - startedAt) / 1000; }, 200);
    this.elapsed = 0;
  }

  #stopTicker(): void {
    if (this.#ticker) window.clearInterval(this.#ticker);
    this.#ticker = 0;
  }

  // ---------------------------------------------------------------- input handlers

  #onRecordClick(): void {
    if (this.mode === 'push-to-talk') return; // pointer and Space hold drive it
    if (this.activity === 'idle') void this.startRecording();
    else if (this.activity === 'listening') void this.stopRecording();
    else if (this.activity === 'starting') this.cancel();
  }

  #press(): void {
    if (this.#held) return;
    this.#held = true;
    void this.startRecording();
  }

  #release(): void {
    if (!this.#held) return;
    this.#held = false;
    void this.stopRecording();
  }

  #onRecordPointerDown(event: PointerEvent): void {
    if (this.mode !== 'push-to-talk' || event.button !== 0) return;
    (event.currentTarget as HTMLElement).setPointerCapture?.(event.pointerId);
    this.#press();
  }

  #onRecordPointerUp(): void {
    if (this.mode === 'push-to-talk') this.#release();
  }

  #onRecordKeydown(event: KeyboardEvent): void {
    if (this.mode !== 'push-to-talk' || event.key !== ' ') return;
    event.preventDefault(); // no click on keyup: the hold is the gesture
    if (!event.repeat) this.#press();
  }

  #onRecordKeyup(event: KeyboardEvent): void {
    if (this.mode !== 'push-to-talk' || event.key !== ' ') return;
    event.preventDefault();
    this.#release();
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && this.activity !== 'idle') {
      event.preventDefault();
      this.cancel();
    }
  }

  #onLanguageChange(event: Event): void {
    this.language = (event.target as HTMLSelectElement).value;
  }

  #onCancelClick(): void {
    this.cancel();
    this.#focusAfterUpdate('.drop-zone');
  }

  #onClearClick(): void {
    this.clear();
    this.#focusAfterUpdate(this.disabled ? '.copy' : '.record');
  }

  /** Moves focus to the control `selector` once the coming update has rendered. */
  #focusAfterUpdate(selector: string): void {
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(selector)?.focus());
  }

  // ---------------------------------------------------------------- render

  #recordLabel(): string {
    const t = this.#t;
    const on = this.activity === 'starting' || this.activity === 'listening';
    if (this.mode === 'push-to-talk') return on ? t.releaseToStop : t.holdToTalk;
    return on ? t.stopRecording : t.startRecording;
  }

  #renderSegments(segments: readonly TranscriptionSegment[]): TemplateResult {
    const t = this.#t;
    return html`${segments.map((s) => html`<li part="segment" class="segment">
      <span part="segment-time" class="segment-time">${formatSegmentTime(s.start)}–${formatSegmentTime(s.end)}</span>
      ${s.speaker_id ? html`<span part="speaker" class="speaker">${t.speaker(s.speaker_id)}</span>` : nothing}
      <span class="segment-text">${s.text.trim()}</span>
    </li>`)}`;
  }

  protected override render(): TemplateResult {
    const t = this.#t;
    const { activity, liveText, liveSegments } = this.#session;
    const level = Math.min(1, this.#session.level);
    const pressed = activity === 'starting' || activity === 'listening';
    const mic = pressed || activity === 'finishing';
    const busy = activity !== 'idle';
    const languages = this.language && !LANGUAGES.some(([code]) => code === this.language) ? [...LANGUAGES, [this.language, this.language] as const] : LANGUAGES;
    const segments = this.entries.flatMap((e) => e.segments);
    const empty = this.entries.length === 0 && !liveText;
    return html`<div part="base" class="base" role="group" aria-label=${this.heading || t.transcriberLabel} @keydown=${this.#onKeydown}>
      ${this.heading ? html`<h2 part="heading" class="heading">${this.heading}</h2>` : nothing}
      <div part="controls" class="controls">
        <button
          part="record-button"
          class="record primary ${pressed ? 'recording' : ''}"
          type="button"
          aria-pressed=${pressed ? 'true' : 'false'}
          ?disabled=${this.disabled || activity === 'file'}
          aria-disabled=${activity === 'finishing' ? 'true' : nothing}
          @click=${this.#onRecordClick}
          @pointerdown=${this.#onRecordPointerDown}
          @pointerup=${this.#onRecordPointerUp}
          @pointercancel=${this.#onRecordPointerUp}
          @keydown=${this.#onRecordKeydown}
          @keyup=${this.#onRecordKeyup}
          @blur=${this.#onRecordPointerUp}
        >${this.#recordLabel()}</button>
        <div
          part="level"
          class="level"
          role="meter"
          aria-label=${t.levelLabel}
          aria-valuemin="0"
          aria-valuemax="100"
          aria-valuenow=${Math.round(level * 100)}
          aria-live="off"
        ><span ${cssProps({ transform: `scaleX(${level})` })}></span></div>
        <span part="elapsed" class="elapsed"><span class="visually-hidden">${t.elapsedLabel}</span> ${formatElapsed(mic ? this.elapsed : 0)}</span>
        <label part="language-picker" class="language">${t.language}
          <select part="language-select" ?disabled=${this.disabled || busy} @change=${this.#onLanguageChange}>
            <option value="" ?selected=${!this.language}>${t.autoLanguage}</option>
            ${languages.map(([code, name]) => html`<option value=${code} lang=${code} ?selected=${code === this.language}>${name}</option>`)}
          </select>
        </label>
        ${this.timestamps && this.language ? html`<small part="language-note" class="note">${t.timesNeedAuto}</small>` : nothing}
      </div>
      <div class="row">
        ${this.#fileDrop.render(t.chooseFile, t.dropHint, 'audio/*')}
        ${activity === 'file' ? html`<button part="cancel-button" class="cancel" type="button" @click=${this.#onCancelClick}>${t.cancel}</button>` : nothing}
      </div>
      ${this.error ? html`<p part="error" class="error">${this.error.message}</p>` : nothing}
      <div part="result" class="result" role="group" aria-label=${t.transcript}>
        <div class="actions row">
          <button part="copy-button" class="copy" type="button" ?disabled=${this.entries.length === 0} @click=${() => void this.copy()}>${t.copy}</button>
          <button part="clear-button" class="clear" type="button" ?disabled=${this.entries.length === 0 && !this.error} @click=${this.#onClearClick}>${t.clear}</button>
          <span part="copy-status" class="copy-status" role="status">${this.copyStatus}</span>
        </div>
        <div part="transcript" class="transcript">
          ${empty ? html`<p class="empty">${t.emptyTranscript}</p>` : nothing}
          ${this.entries.map((e) => html`<p class="entry ${e.interrupted ? 'interrupted' : ''}">${e.text}${e.interrupted
            ? html` <small class="note">(${t.interruptedNote})</small>` : nothing}</p>`)}
          ${liveText ? html`<p part="live" class="live">${liveText}</p>` : nothing}
        </div>
        ${this.timestamps && (segments.length || liveSegments.length)
          ? html`<ol part="segments" class="segments" aria-label=${t.segments}>${this.#renderSegments(segments)}${this.#renderSegments(liveSegments)}</ol>`
          : nothing}
      </div>
      ${this.#liveRegion.render()}
    </div>`;
  }
}
