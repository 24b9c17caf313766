/**
 * Speech out through one {@link SpeechPlayback}: an utterance is one or more texts (a whole text, or a
 * reply's sentences as they stream in), each requested with `client.speech.stream()` and fed to the
 * playback one after another, gaplessly; it ends once all of it has played. A new utterance or `stop()`
 * silences the one before at once and aborts its request (the latest run wins). `<speech-player>` and the
 * chat's reply speaker both speak through it; it loads with SpeechPlayback (the audio-out chunk), never
 * with an element.
 */
import type { ParleyClientApi, SpeechAudioStream, SpeechFormat } from '../client/contracts.js';
import { AUDIO_NOT_STARTED, PlatformError } from '../client/errors.js';
import { LatestRun } from '../client/latest-run.js';
import { SpeechPlayback } from './speech-playback.js';
import { audioStarted, type StartingContext } from './audio-start.js';

/** How an utterance is said. Its fields are read again for each text: a change applies from the next one. */
export interface Utterance {
  client: Pick<ParleyClientApi, 'speech'>;
  format: SpeechFormat;
  /** Text-to-speech model (empty: the platform's). */
  model?: string;
  /** Voice id or slug (empty: the platform's). */
  voice?: string;
}

export interface SpeechSessionOptions {
  /**
   * An AudioContext to play into (the browser's own, made and started inside a user gesture before the
   * audio code was loaded); default: SpeechPlayback's, made on first use. Closed by `dispose()`.
   */
  context?: AudioContext;
  /** The first audio of an utterance is scheduled, `latencyMs` after the utterance began. */
  onFirstAudio?: (latencyMs: number) => void;
  /** Audio arrived late and a gap was heard (`underruns` over the playback's lifetime). */
  onUnderrun?: (underruns: number) => void;
  /** The utterance played to its end. */
  onEnded?: () => void;
  /** A request or its stream failed, or the context did not start (code `audio_not_started`): the utterance is stopped. */
  onError?: (error: PlatformError) => void;
}

/** See the module comment. */
export class SpeechSession {
  readonly playback: SpeechPlayback;
  readonly #options: SpeechSessionOptions;
  readonly #runs = new LatestRun();
  #utterance: Utterance | null = null;
  #queue: string[] = [];
  /** No text comes after the queued ones. */
  #last = false;
  #working = false;
  #startedAt = 0;
  #heard = false;
  /** The request being read: aborted by `stop()` even when all of it has arrived. */
  #stream: SpeechAudioStream | null = null;
  #over: (() => void) | null = null;

  constructor(options: SpeechSessionOptions = {}) {
    this.#options = options;
    const context = options.context;
    this.playback = new SpeechPlayback({
      ...(context ? { createContext: () => context } : {}),
      onFirstAudio: ({ chunk }) => {
        if (this.#heard || !this.#utterance) return;
        this.#heard = true;
        options.onFirstAudio?.(chunk.scheduledAt - this.#startedAt);
      },
      onUnderrun: ({ underruns }) => options.onUnderrun?.(underruns),
    });
  }

  /**
   * Starts an utterance, silencing the one before; `say()` gives its texts. Resolves once it is over:
   * played to its end (`onEnded`), failed (`onError`), or cut by `stop()` or a newer utterance.
   * @param utterance - The client, format, model and voice to say it with.
   * @param startedAt - When it was asked for (`performance.now()`), for `onFirstAudio`'s latency.
   */
  begin(utterance: Utterance, startedAt = performance.now()): Promise<void> {
    // Only an utterance still going is stopped: a playback paused before this one began stays paused.
    if (this.#utterance) this.stop();
    this.#utterance = utterance;
    this.#startedAt = startedAt;
    this.#heard = false;
    this.#last = false;
    // A context that does not start (no output device) would leave the utterance "playing" silently at 0:00.
    void audioStarted(this.playback.context as unknown as StartingContext).then((started) => {
      if (started || this.#utterance !== utterance || this.playback.paused) return;
      this.stop();
      this.#options.onError?.(new PlatformError({
        status: 0, type: 'audio_error', code: AUDIO_NOT_STARTED, retryAfter: null, message: 'No sound can be played on this device (its audio did not start)',
      }));
    });
    return new Promise((resolve) => {
      this.#over = resolve;
    });
  }

  /**
   * Adds texts to the utterance begun last, spoken in order after what is queued.
   * @param texts - Texts (a whole text, or sentences) to speak.
   * @param last - Nothing comes after them: the utterance ends once they have played.
   */
  say(texts: readonly string[], last = false): void {
    if (!this.#utterance) return;
    this.#queue.push(...texts);
    this.#last = last;
    void this.#work();
  }

  /** Speaks one whole text: `begin()`, then `say([text], true)`. */
  speak(text: string, utterance: Utterance, startedAt?: number): Promise<void> {
    const over = this.begin(utterance, startedAt);
    this.say([text], true);
    return over;
  }

  /** Silences everything at once and aborts the requests in flight. */
  stop(): void {
    this.#runs.cancel();
    this.#stream?.abort();
    this.#stream = null;
    this.#queue = [];
    this.#working = false;
    this.#utterance = null;
    this.playback.stop();
    this.#end();
  }

  /** Stops and closes the playback's context. */
  async dispose(): Promise<void> {
    this.stop();
    await this.playback.dispose();
  }

  /** Requests and feeds the queued texts one after another; ends the utterance once all of it has played. */
  async #work(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    const run = this.#runs.now();
    const utterance = this.#utterance!;
    try {
      for (;;) {
        const input = this.#queue.shift();
        if (input === undefined) {
          if (!this.#last) {
            // Waiting for more text: a pause here is the text's, not an underrun.
            this.playback.scheduler.endRun();
            return;
          }
          await this.playback.finish();
          if (!run.current()) return;
          this.#utterance = null;
          this.#end();
          this.#options.onEnded?.();
          return;
        }
        const { model, voice, format } = utterance;
        const stream = utterance.client.speech.stream({
          input,
          response_format: format,
          ...(model ? { model } : {}),
          ...(voice ? { voice_id: voice } : {}),
        });
        this.#stream = stream;
        const fed = await this.playback.feed(stream, format, { startedAt: this.#startedAt });
        if (fed.stopped || !run.current()) return;
      }
    } catch (error) {
      if (!run.current()) return;
      this.stop();
      this.#options.onError?.(PlatformError.from(error));
    } finally {
      if (run.current()) this.#working = false;
    }
  }

  #end(): void {
    const over = this.#over;
    this.#over = null;
    over?.();
  }
}
