/**
 * Voice out for `<agent-chat>`: reads a reply aloud sentence by sentence, while it still streams or
 * once it is finished, through one {@link SpeechSession} (`client.speech.stream()` into SpeechPlayback).
 * The chat loads this module on first use (dynamic import, through audio-out.ts), so the chat's own bundle carries none of the
 * audio code.
 */
import type { ParleyClientApi, PlatformErrorShape, SpeechFormat } from '../client/contracts.js';
import type { SpeechPlayback } from './speech-playback.js';
import { SpeechSession, type Utterance } from './speech-session.js';
import { SentenceSplitter } from './spoken-text.js';

export interface ReplySpeakerOptions {
  client: ParleyClientApi;
  /** Voice id or slug (default: the platform's). */
  voice?: string;
  model?: string;
  /** Default `pcm` (lowest latency). */
  format?: SpeechFormat;
  /**
   * An AudioContext to play into (the browser's own, made and started inside a user gesture before this
   * module was loaded); default: SpeechPlayback's (the browser's, at 24 kHz), made on first use. Closed by `dispose()`.
   */
  context?: AudioContext;
  /** The reply being spoken changed (null: silent). */
  onSpeaking?: (entryId: string | null) => void;
  onError?: (error: PlatformErrorShape) => void;
  /** The first audio of a reply is scheduled (`latencyMs` from its first request). */
  onFirstAudio?: (entryId: string, latencyMs: number) => void;
}

/**
 * Speaks one reply at a time; a new reply, `stop()` or barge-in silences the previous one at once. It is
 * also how its replies are said (the session's {@link Utterance}): a new `voice` or `model` applies from the next sentence.
 */
export class ReplySpeaker implements Utterance {
  readonly client: ParleyClientApi;
  readonly format: SpeechFormat;
  /** Voice id or slug (empty: the platform's). */
  voice: string;
  /** Text-to-speech model (empty: the platform's). */
  model: string;
  readonly #options: ReplySpeakerOptions;
  readonly #session: SpeechSession;
  #entryId: string | null = null;
  #splitter = new SentenceSplitter();
  #textDone = false;
  /** The reply the user silenced: following it again (it may still be streaming) stays silent. */
  #silencedId: string | null = null;

  constructor(options: ReplySpeakerOptions) {
    this.#options = options;
    this.client = options.client;
    this.format = options.format ?? 'pcm';
    this.voice = options.voice ?? '';
    this.model = options.model ?? '';
    this.#session = new SpeechSession({
      ...(options.context ? { context: options.context } : {}),
      onFirstAudio: (latencyMs) => {
        if (this.#entryId) options.onFirstAudio?.(this.#entryId, latencyMs);
      },
      onEnded: () => this.#setSpeaking(null),
      onError: (error) => {
        this.stop();
        options.onError?.(error.toJSON());
      },
    });
  }

  /** The playback replies are spoken into. */
  get playback(): SpeechPlayback {
    return this.#session.playback;
  }

  /** Id of the reply being spoken, or null. */
  get speakingId(): string | null {
    return this.#entryId;
  }

  /** Call inside the user's gesture (send, read-aloud click) so iOS lets audio start later. */
  unlock(): void {
    this.playback.unlock();
  }

  /** Reads a finished reply from its start (replacing whatever is being spoken). */
  speak(entryId: string, markdown: string): void {
    this.stop();
    this.#silencedId = null;
    this.follow(entryId, markdown, true);
  }

  /**
   * Follows a reply as it grows: call with the whole text so far on every update, and `done` once it is
   * complete. Finished sentences are spoken in order while the rest streams in.
   */
  follow(entryId: string, markdown: string, done: boolean): void {
    if (entryId === this.#silencedId) return;
    if (entryId !== this.#entryId) {
      if (this.#entryId && !this.#textDone) return; // still following another reply: finish that one first
      this.#begin(entryId);
    }
    if (this.#textDone) return;
    const sentences = done ? this.#splitter.finish(markdown) : this.#splitter.push(markdown);
    this.#textDone = done;
    this.#session.say(sentences, done);
  }

  /** Silences everything at once and cancels the requests in flight; the reply being spoken stays silent. */
  stop(): void {
    if (this.#entryId) this.#silencedId = this.#entryId;
    this.#session.stop();
    this.#setSpeaking(null);
  }

  async dispose(): Promise<void> {
    this.stop();
    await this.#session.dispose();
  }

  #begin(entryId: string): void {
    this.stop();
    this.#silencedId = null;
    this.#splitter = new SentenceSplitter();
    this.#textDone = false;
    void this.#session.begin(this);
    this.#setSpeaking(entryId);
  }

  #setSpeaking(entryId: string | null): void {
    if (this.#entryId === entryId) return;
    this.#entryId = entryId;
    this.#options.onSpeaking?.(entryId);
  }
}
