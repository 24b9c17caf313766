import { html, nothing } from 'lit';
import { cssProps } from '../internal/css-props.js';
import type { PropertyValues, TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { PlatformError, refusalKind } from '../../client/index.js';
import { noRelayUrl, sharedClient } from '../internal/shared-client.js';
import type { PlatformErrorShape, SpeechFormat, SpeechVoice } from '../../client/contracts.js';
import { LatestRun } from '../../client/latest-run.js';
import type { SpeechPlayback } from '../../audio/speech-playback.js';
import type { SpeechSession } from '../../audio/speech-session.js';
import { unlockedContext } from '../../audio/gesture-context.js';
import { ParleyElement } from '../internal/parley-element.js';
import { emitOriginRefusal } from '../internal/origin-refusal.js';
import { FocusRescueController } from '../internal/focus-rescue.js';
import { resolveSpeechPlayerStrings } from './strings.js';
import type { SpeechPlayerStrings } from './strings.js';
import { controlStyles } from '../internal/controls.styles.js';
import { speechPlayerStyles } from './speech-player.styles.js';
import { LiveRegionController } from '../internal/live-region.js';

/** Rates offered by the speed picker. */
const RATES = [0.75, 1, 1.25, 1.5];
const FORMATS: readonly SpeechFormat[] = ['pcm', 'wav', 'mp3', 'flac', 'opus'];

/** `idle` → `loading` (request sent) → `playing` ⇄ `paused` → `ended` | `stopped` | `error`. */
export type SpeechPlayerStatus = 'idle' | 'loading' | 'playing' | 'paused' | 'ended' | 'stopped' | 'error';

/**
 * Speaks text through a Parley relay, playing while the audio still streams: play, pause, stop,
 * progress, voice and speed pickers, a level meter and a status region for screen readers.
 *
 * The text comes from the `text` attribute, else the argument of `speak(text)`, else the element's
 * own text content (the default slot). Audio is streamed from `POST /v1/audio/speech` and scheduled
 * gaplessly on Web Audio (`src/audio`); `format="pcm"` (default) starts fastest.
 *
 * The audio code (SpeechSession and SpeechPlayback, src/audio) is loaded on the first press of play
 * (or the first `speak()`), not with the element: the press unlocks the browser's own AudioContext
 * inside the gesture (iOS) and the player plays into it once its code has arrived.
 *
 * Speed is applied with `AudioBufferSourceNode.playbackRate` (the platform has no speed parameter), so
 * the pitch moves with it; a new speed applies to audio that arrives after the change.
 *
 * The voice picker lists `GET /v1/audio/voices`; when the relay does not route it (404) or it fails,
 * the picker is hidden and `voice` is sent as given (the platform accepts a voice id or slug).
 *
 * @tagname speech-player
 * @summary Speak text with a Parley voice, streamed and played as it arrives.
 *
 * @slot - The text to speak (when there is no `text` attribute). It is not shown: put it in the page too if it should be read.
 *
 * @csspart base - The wrapper of everything.
 * @csspart controls - The row of buttons and pickers.
 * @csspart play-button - Plays, pauses and resumes.
 * @csspart stop-button - Stops and forgets the audio.
 * @csspart voice-picker - The label and select of the voice picker (hidden when voices cannot be listed).
 * @csspart voice-select - The voice select.
 * @csspart rate-picker - The label and select of the speed picker.
 * @csspart rate-select - The speed select.
 * @csspart progress - The progress row.
 * @csspart progress-bar - The bar of time played out of time received.
 * @csspart time - `played / received` in minutes and seconds.
 * @csspart level - The output level meter.
 * @csspart error - The error message.
 *
 * @cssproperty [--parley-font-family=system-ui] - Font.
 * @cssproperty [--parley-font-size=15px] - Base font size.
 * @cssproperty [--parley-color-text=#1d1d1f] - Text colour.
 * @cssproperty [--parley-color-muted=#545458] - Labels and the time.
 * @cssproperty [--parley-color-background=#ffffff] - Background.
 * @cssproperty [--parley-color-surface=#f4f4f6] - Track of the progress bar and the level meter.
 * @cssproperty [--parley-color-border=#d2d2d7] - Borders.
 * @cssproperty [--parley-color-accent=#0b57d0] - Play button, progress.
 * @cssproperty [--parley-color-on-accent=#ffffff] - Text on the accent colour.
 * @cssproperty [--parley-color-error=#b3261e] - Error text.
 * @cssproperty [--parley-radius=12px] - Corner radius.
 * @cssproperty [--parley-gap=0.75rem] - Spacing.
 * @cssproperty [--parley-focus-ring=2px solid var(--parley-color-accent)] - Outline of focused controls.
 * @cssproperty [--parley-level-color=var(--parley-color-accent)] - Colour of the level meter.
 *
 * @fires {CustomEvent<ParleySpeechStartDetail>} parley-speech-start - A text is being requested (`detail.text`).
 * @fires {CustomEvent<ParleySpeechFirstAudioDetail>} parley-speech-first-audio - Its first audio is scheduled (`detail.latencyMs` from the request).
 * @fires {CustomEvent<ParleySpeechEndDetail>} parley-speech-end - Playback ended: all played, or stopped (`detail.stopped`, `played`, `received`, `underruns`).
 * @fires {CustomEvent<ParleySpeechErrorDetail>} parley-speech-error - The request or its stream failed (`detail.error`), or no sound can be played on this device (`detail.error.code` `audio_not_started`: its AudioContext did not start after the press).
 * @fires {CustomEvent<ParleyErrorDetail>} parley-error - The relay does not serve this page's origin (`detail.error.code` is `origin_not_allowed`; the visitor sees a neutral message).
 * @fires {CustomEvent<ParleySpeechUnderrunDetail>} parley-speech-underrun - Audio arrived late and a gap was heard (`detail.underruns`).
 */
export class SpeechPlayer extends ParleyElement {
  static override styles = [ParleyElement.styles, controlStyles, speechPlayerStyles];

  /** Base URL of the Parley relay, e.g. `/api`. */
  @property({ attribute: 'relay-url' }) relayUrl = '';

  /** Text-to-speech model (default: the platform's). */
  @property() model = '';

  /** Voice id or slug (default: the platform's). */
  @property() voice = '';

  /** Playback speed, 0.5–2 (the picker offers 0.75–1.5). Pitch follows the speed. */
  @property({ type: Number }) rate = 1;

  /** Volume, 0–1. */
  @property({ type: Number }) volume = 1;

  /** Audio format requested: `pcm` (default, lowest latency), `wav`, `mp3`, `flac` or `opus` (compressed formats play once complete). */
  @property() format: SpeechFormat = 'pcm';

  /** The text to speak (takes precedence over the slotted text). */
  @property() text = '';

  /** Overrides of the element's words (see `SpeechPlayerStrings`), for translation. */
  @property({ attribute: false }) strings: Partial<SpeechPlayerStrings> | null = null;

  @state() private playerStatus: SpeechPlayerStatus = 'idle';
  @state() private played = 0;
  @state() private received = 0;
  @state() private level = 0;
  @state() private voices: SpeechVoice[] | null = null;
  @state() private error: PlatformErrorShape | null = null;

  /** What speaks (requests into SpeechPlayback, see speech-session.ts): null until the audio code is loaded. */
  #session: SpeechSession | null = null;
  #sessionLoad: Promise<SpeechSession> | null = null;
  /** Each `speak()`: a stop or a newer one makes it stale while the audio code and the client load. */
  readonly #speeches = new LatestRun();
  /** The browser's AudioContext unlocked by a press before the audio code arrived (see the class comment). */
  #gestureContext: AudioContext | null = null;

  /** The audio layer of this player: null until the first play (or `speak()`) loads the audio code. */
  get playback(): SpeechPlayback | null {
    return this.#session?.playback ?? null;
  }

  #ticker = 0;
  #voicesFor = '';
  /** What a screen reader says: one polite live region, rendered at the end of the template. */
  readonly #liveRegion = new LiveRegionController(this);
  /** @internal The stop button is disabled once playback is over: focus on it moves to the play button, not to the page. */
  protected readonly focusRescue = new FocusRescueController(this, '[part~="stop-button"]', '[part~="play-button"]');

  /** Where playback stands: `idle`, `loading`, `playing`, `paused`, `ended`, `stopped` or `error`. */
  get status(): SpeechPlayerStatus {
    return this.playerStatus;
  }

  get #t(): SpeechPlayerStrings {
    return resolveSpeechPlayerStrings(this.strings, this);
  }

  get #speechFormat(): SpeechFormat {
    return FORMATS.includes(this.format) ? this.format : 'pcm';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stop();
  }

  protected override willUpdate(changed: PropertyValues): void {
    const playback = this.playback;
    if (changed.has('rate') && playback) playback.rate = this.rate;
    if (changed.has('volume') && playback) playback.volume = this.volume;
  }

  /** Unlocks audio inside the caller's gesture: the player's own context once loaded, else the browser's, for it to take. */
  #unlock(): void {
    if (this.#session) this.#session.playback.unlock();
    else this.#gestureContext = unlockedContext(this.#gestureContext);
  }

  /** The speech session, its code loaded on first use (playing into the context a press unlocked, if any). */
  #loadSession(): Promise<SpeechSession> {
    this.#sessionLoad ??= import('../../audio/audio-out.js').then(({ SpeechSession }) => {
      const gesture = this.#gestureContext;
      const session: SpeechSession = new SpeechSession({
        ...(gesture ? { context: gesture } : {}),
        onFirstAudio: (latencyMs) => {
          if (this.status === 'loading') this.playerStatus = session.playback.paused ? 'paused' : 'playing';
          this.emit('parley-speech-first-audio', { latencyMs });
        },
        onUnderrun: (underruns) => this.emit('parley-speech-underrun', { underruns }),
        onEnded: () => this.#finishPlayback(),
        onError: (error) => this.#fail(error),
      });
      session.playback.rate = this.rate;
      session.playback.volume = this.volume;
      this.#session = session;
      return session;
    }, (error: unknown) => {
      this.#sessionLoad = null; // a failed chunk load (offline): the next press tries again
      throw error;
    });
    return this.#sessionLoad;
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('relayUrl') && this.relayUrl && this.#voicesFor !== this.relayUrl) void this.#loadVoices();
  }

  // ---------------------------------------------------------------- actions

  /**
   * Speaks `text` (default: the `text` attribute, else the slotted text), replacing what is playing.
   * Call it from a user gesture the first time (iOS Safari only starts audio from one).
   * @param text - The text to speak; without it, the `text` attribute, else the slotted text.
   */
  async speak(text?: string): Promise<void> {
    this.#unlock(); // first, while still inside the caller's gesture
    this.#stopPlayback(false);
    const input = (text ?? (this.text || this.#slottedText())).trim();
    const speech = this.#speeches.next();
    this.error = null;
    this.played = 0;
    this.received = 0;
    if (!input) {
      this.#liveRegion.announce(this.#t.nothingToSay);
      return;
    }
    if (!this.relayUrl) {
      this.#fail(noRelayUrl());
      return;
    }
    const format = this.#speechFormat;
    this.playerStatus = 'loading';
    this.#liveRegion.announce(this.#t.loading);
    this.emit('parley-speech-start', { text: input });
    const requestedAt = performance.now();
    let session: SpeechSession;
    let client: Awaited<ReturnType<typeof sharedClient>>;
    try {
      [session, client] = await Promise.all([this.#loadSession(), this.#client()]);
    } catch (error) {
      if (speech.current()) this.#fail(PlatformError.from(error));
      return;
    }
    if (!speech.current()) return;
    // Paused while the audio code was still loading: the audio waits as it would have.
    if (this.status === 'paused') await session.playback.pause();
    if (!speech.current()) return;
    this.#startTicker();
    await session.speak(input, { client, format, model: this.model, voice: this.#voiceId() }, requestedAt);
  }

  /** Pauses (the stream keeps arriving; nothing is lost). */
  async pause(): Promise<void> {
    if (this.status !== 'playing' && this.status !== 'loading') return;
    this.playerStatus = 'paused';
    this.#liveRegion.announce(this.#t.paused);
    await this.playback?.pause();
  }

  /** Resumes after `pause()`. */
  async resume(): Promise<void> {
    if (this.status !== 'paused') return;
    this.playerStatus = (this.playback?.received ?? 0) > 0 ? 'playing' : 'loading';
    this.#liveRegion.announce(this.#t.playing);
    await this.playback?.resume();
  }

  /** Stops at once: the audio is silenced and the request is cancelled. */
  stop(): void {
    this.#stopPlayback(true);
  }

  #stopPlayback(announce: boolean): void {
    const active = this.status === 'loading' || this.status === 'playing' || this.status === 'paused';
    this.#speeches.cancel();
    const { played, received, underruns } = this.#figures();
    this.#session?.stop();
    this.#stopTicker();
    if (active) {
      this.playerStatus = 'stopped';
      if (announce) this.#liveRegion.announce(this.#t.stopped);
      this.emit('parley-speech-end', { stopped: true, played, received, underruns });
    }
  }

  #finishPlayback(): void {
    this.#stopTicker();
    const figures = this.#figures();
    this.played = figures.received;
    this.received = figures.received;
    this.playerStatus = 'ended';
    this.#liveRegion.announce(this.#t.ended);
    this.emit('parley-speech-end', { stopped: false, played: figures.received, received: figures.received, underruns: figures.underruns });
  }

  #fail(error: PlatformError): void {
    this.#stopTicker();
    this.playerStatus = 'error';
    this.error = error.toJSON();
    this.emit('parley-speech-error', { error: this.error });
    // Announced once, politely, through the live region; the error line stays visible.
    this.#liveRegion.announce(this.#t.errorMessage(this.error));
    // The visitor sees a sentence in their language; the platform's own words are for the site owner.
    if (!refusalKind(this.error) && this.error.message) console.warn('[parley] <speech-player> speech failed:', this.error);
    emitOriginRefusal(this, error);
  }

  #figures() {
    const playback = this.playback;
    return { played: playback?.played ?? 0, received: playback?.received ?? 0, underruns: playback?.underruns ?? 0 };
  }

  #client() {
    return sharedClient(this.relayUrl);
  }

  /** The voice to send: the id of the listed voice whose id or slug matches `voice`, else `voice` as given. */
  #voiceId(): string {
    const wanted = this.voice.trim();
    if (!wanted) return '';
    return this.voices?.find((v) => v.id === wanted || v.slug === wanted)?.id ?? wanted;
  }

  #slottedText(): string {
    const slot = this.renderRoot.querySelector<HTMLSlotElement>('slot:not([name])');
    const nodes = slot ? slot.assignedNodes({ flatten: true }) : [...this.childNodes];
    return nodes.map((n) => n.textContent ?? '').join(' ').replace(/\s+/g, ' ').trim();
  }

  async #loadVoices(): Promise<void> {
    const relay = this.relayUrl;
    this.#voicesFor = relay;
    try {
      const list = await (await this.#client()).speech.voices({ limit: 100 });
      if (this.relayUrl === relay) this.voices = list.items;
    } catch {
      // No voices route on this relay (404) or it failed: the picker stays hidden; `voice` is sent as given.
      if (this.relayUrl === relay) this.voices = null;
    }
  }

  #startTicker(): void {
    this.#stopTicker();
    const tick = () => {
      const playback = this.playback;
      this.played = playback?.played ?? 0;
      this.received = playback?.received ?? 0;
      this.level = this.status === 'playing' && playback ? playback.level() : 0;
    };
    this.#ticker = window.setInterval(tick, 100);
  }

  #stopTicker(): void {
    if (this.#ticker) window.clearInterval(this.#ticker);
    this.#ticker = 0;
    this.level = 0;
  }

  #onPlayClick(): void {
    if (this.status === 'playing' || this.status === 'loading') void this.pause();
    else if (this.status === 'paused') {
      this.#unlock();
      void this.resume();
    } else void this.speak();
  }

  #onVoiceChange(event: Event): void {
    this.voice = (event.target as HTMLSelectElement).value;
  }

  #onRateChange(event: Event): void {
    this.rate = Number((event.target as HTMLSelectElement).value) || 1;
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && (this.status === 'playing' || this.status === 'paused' || this.status === 'loading')) {
      event.preventDefault();
      this.stop();
    }
  }

  // ---------------------------------------------------------------- render

  protected override render(): TemplateResult {
    const t = this.#t;
    const busy = this.status === 'playing' || this.status === 'loading';
    const active = busy || this.status === 'paused';
    const playLabel = busy ? t.pause : this.status === 'paused' ? t.resume : t.play;
    const fraction = this.received > 0 ? Math.min(1, this.played / this.received) : 0;
    const rates = RATES.includes(this.rate) ? RATES : [...RATES, this.rate].sort((a, b) => a - b);
    return html`<div part="base" class="base" role="group" aria-label=${t.playerLabel} @keydown=${this.#onKeydown}>
      <div part="controls" class="controls">
        <button part="play-button" class="play primary" type="button" aria-pressed=${busy ? 'true' : 'false'} @click=${this.#onPlayClick}>${playLabel}</button>
        <button part="stop-button" class="stop" type="button" ?disabled=${!active} @click=${() => this.stop()}>${t.stop}</button>
        ${this.voices
          ? html`<label part="voice-picker">${t.voice}
              <select part="voice-select" class="voice" @change=${this.#onVoiceChange}>
                <option value="" ?selected=${!this.voice}>${t.defaultVoice}</option>
                ${this.voices.map((v) => html`<option value=${v.id} ?selected=${v.id === this.#voiceId()}>${v.name}</option>`)}
              </select>
            </label>`
          : nothing}
        <label part="rate-picker">${t.rate}
          <select part="rate-select" class="rate" @change=${this.#onRateChange}>
            ${rates.map((r) => html`<option value=${r} ?selected=${r === this.rate}>${t.rateOption(r)}</option>`)}
          </select>
        </label>
      </div>
      <div part="progress" class="progress">
        <div
          part="progress-bar"
          class="bar"
          role="progressbar"
          aria-label=${t.progressLabel}
          aria-valuemin="0"
          aria-valuemax=${Math.max(0, Math.round(this.received * 10) / 10)}
          aria-valuenow=${Math.round(this.played * 10) / 10}
          aria-valuetext=${t.progressText(this.played, this.received)}
        ><span ${cssProps({ transform: `scaleX(${fraction})` })}></span></div>
        <span part="time" class="time" aria-hidden="true">${t.progressText(this.played, this.received)}</span>
        <div part="level" class="level" aria-hidden="true"><span ${cssProps({ transform: `scaleX(${Math.min(1, this.level * 4)})` })}></span></div>
      </div>
      ${this.error ? html`<p part="error" class="error">${t.errorMessage(this.error)}</p>` : nothing}
      ${this.#liveRegion.render()}
      <slot hidden></slot>
    </div>`;
  }
}
