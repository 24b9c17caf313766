/**
 * Voice out for `<agent-chat>`: reads a reply aloud sentence by sentence, while it still streams or
 * once it is finished, through `client.speech.stream()` and one {@link SpeechPlayback}. The chat loads
 * this module on first use (dynamic import), so the chat's own bundle carries none of the audio code.
 */
import type { ParleyClientApi, PlatformErrorShape, SpeechFormat } from '../../client/contracts.js';
import { PlatformError } from '../../client/errors.js';
import { SpeechPlayback } from '../../audio/speech-playback.js';
import { SentenceSplitter } from '../../audio/spoken-text.js';
import type { IAudioContext } from '../../vendor/audio-context.js';

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

/** Speaks one reply at a time; a new reply, `stop()` or barge-in silences the previous one at once. */
export class ReplySpeaker {
  readonly playback: SpeechPlayback;
  voice: string;
  model: string;
  readonly #options: ReplySpeakerOptions;
  #entryId: string | null = null;
  #splitter = new SentenceSplitter();
  #queue: string[] = [];
  #textDone = false;
  #working = false;
  #generation = 0;
  #requestedAt = 0;
  #firstHeard = false;
  /** The reply the user silenced: following it again (it may still be streaming) stays silent. */
  #silencedId: string | null = null;

  constructor(options: ReplySpeakerOptions) {
    this.#options = options;
    this.voice = options.voice ?? '';
    this.model = options.model ?? '';
    const context = options.context;
    this.playback = new SpeechPlayback({
      // The DOM's AudioContext has all SpeechPlayback uses of standardized-audio-context's.
      ...(context ? { createContext: () => context as unknown as IAudioContext } : {}),
      onFirstAudio: (detail) => {
        if (this.#firstHeard || !this.#entryId) return;
        this.#firstHeard = true;
        this.#options.onFirstAudio?.(this.#entryId, detail.chunk.scheduledAt - this.#requestedAt);
      },
    });
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
    this.#queue.push(...sentences);
    this.#textDone = done;
    void this.#work();
  }

  /** Silences everything at once and cancels the requests in flight; the reply being spoken stays silent. */
  stop(): void {
    if (this.#entryId) this.#silencedId = this.#entryId;
    this.#generation++;
    this.#queue = [];
    this.#working = false;
    this.playback.stop();
    this.#setSpeaking(null);
  }

  async dispose(): Promise<void> {
    this.stop();
    await this.playback.dispose();
  }

  #begin(entryId: string): void {
    this.stop();
    this.#silencedId = null;
    this.#splitter = new SentenceSplitter();
    this.#textDone = false;
    this.#firstHeard = false;
    this.#requestedAt = performance.now();
    this.#setSpeaking(entryId);
  }

  /** Requests and feeds the queued sentences one after another; ends when the reply is spoken. */
  async #work(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    const generation = this.#generation;
    const format = this.#options.format ?? 'pcm';
    try {
      for (;;) {
        const sentence = this.#queue.shift();
        if (sentence === undefined) {
          if (!this.#textDone) {
            // Waiting for the reply to grow: a pause here is the text's, not an underrun.
            this.playback.scheduler.endRun();
            return;
          }
          await this.playback.finish();
          if (generation === this.#generation) this.#setSpeaking(null);
          return;
        }
        const stream = this.#options.client.speech.stream({
          input: sentence,
          response_format: format,
          ...(this.model ? { model: this.model } : {}),
          ...(this.voice ? { voice_id: this.voice } : {}),
        });
        const fed = await this.playback.feed(stream, format);
        if (fed.stopped || generation !== this.#generation) return;
      }
    } catch (error) {
      if (generation !== this.#generation) return;
      this.stop();
      this.#options.onError?.(PlatformError.from(error).toJSON());
    } finally {
      if (generation === this.#generation) this.#working = false;
    }
  }

  #setSpeaking(entryId: string | null): void {
    if (this.#entryId === entryId) return;
    this.#entryId = entryId;
    this.#options.onSpeaking?.(entryId);
  }
}
