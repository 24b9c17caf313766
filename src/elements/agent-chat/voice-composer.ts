/**
 * Voice in for `<agent-chat>`'s composer: one utterance from the microphone button, or hands-free turns
 * (listen → send → the reply is spoken → listen again) with barge-in (talking over the reply silences
 * it and becomes the next message). Pure turn logic over the `VoiceInputApi` contract: the element
 * supplies the microphone (loaded on first use) and does the sending and speaking, so this module
 * carries no audio code and can be driven by a `VoiceInputApi` double in tests.
 */
import type { VoiceInputApi, VoiceInputError, VoiceInputResult } from '../../client/contracts.js';
import type { LatestRun } from '../../client/latest-run.js';

/**
 * What the voice composer is doing: `off`; `listening` for an utterance; `thinking` (hands-free: the
 * utterance was sent, the reply is awaited); `speaking` (hands-free: the reply is read aloud while the
 * microphone listens for barge-in).
 */
export type VoicePhase = 'off' | 'listening' | 'thinking' | 'speaking';

/** What the chat does for the voice composer. */
export interface VoiceComposerHost {
  /** A microphone for one utterance, not started (`handsFree`: it must not give up waiting for speech). */
  openInput(options: { handsFree: boolean }): Promise<VoiceInputApi>;
  /** An utterance began to be listened for. */
  started(): void;
  /** The message box: the words heard are shown live after what it held when the utterance began. */
  draft(): string;
  setDraft(text: string): void;
  /**
   * The final text of an utterance (after what the message box held). Returns true when it was sent as
   * a message (hands-free then waits for the reply), false when it was left in the message box.
   */
  said(text: string): boolean;
  /** The user started to talk over the reply: silence it (and stop it streaming). */
  bargeIn(): void;
  /** The microphone or the transcription failed; hands-free has been turned off. */
  failed(error: VoiceInputError): void;
  /** Input level 0..1 while listening (0 when the microphone closes). */
  level(value: number): void;
  /** `phase` changed. */
  changed(): void;
}

/** Drives the chat's voice input; see the module comment. */
export class VoiceComposer {
  readonly #host: VoiceComposerHost;
  #phase: VoicePhase = 'off';
  #handsFree = false;
  #input: VoiceInputApi | null = null;
  #unsubscribe: (() => void)[] = [];
  #partial = '';
  /** What the message box held when the utterance began. */
  #base = '';
  /** A microphone is being opened (its code loading, or permission asked). */
  #opening = false;
  /** Each microphone opened is a run, made stale when its utterance is abandoned: late callbacks of an old microphone are ignored. */
  readonly #runs: LatestRun;

  /**
   * `runs`: a new `LatestRun` for the microphones it opens, given by the chat (this module is loaded with the
   * microphone code, and so imports none of the chat's own code).
   */
  constructor(host: VoiceComposerHost, runs: LatestRun) {
    this.#host = host;
    this.#runs = runs;
  }

  get phase(): VoicePhase {
    return this.#phase;
  }

  get handsFree(): boolean {
    return this.#handsFree;
  }

  /** Whether a microphone is open for an utterance the user is saying now (not the barge-in watch). */
  get listening(): boolean {
    return this.#phase === 'listening';
  }

  /** Starts listening for one utterance (or, hands-free, for the next turn). */
  listen(): void {
    const was = this.#phase;
    this.#setPhase('listening');
    if (!this.#input) {
      if (!this.#opening) void this.#open();
    } else if (was !== 'listening') {
      this.#begin(); // the barge-in watch becomes the user's turn
    }
  }

  /** Ends the utterance now and uses what was heard. */
  async finish(): Promise<void> {
    const input = this.#input;
    if (!input || this.#phase !== 'listening') return;
    const run = this.#runs.now();
    try {
      const result = await input.stop();
      if (run.current()) this.#settle(result);
    } catch (error) {
      if (run.current()) this.#fail(asVoiceError(error));
    }
  }

  /**
   * Stops listening at once without using what was heard, and leaves hands-free. `restoreDraft`: the
   * message box gets back what it held before the utterance (Escape); otherwise it keeps what it shows.
   */
  cancel(restoreDraft = false): void {
    if (restoreDraft && this.#phase === 'listening') this.#host.setDraft(this.#base);
    this.#handsFree = false;
    this.#close(true);
    this.#setPhase('off');
  }

  /** Turns hands-free turns on (listening at once, unless a turn is under way) or off (as {@link cancel}). */
  setHandsFree(on: boolean): void {
    if (on === this.#handsFree) return;
    if (!on) {
      this.cancel();
      return;
    }
    this.#handsFree = true;
    if (this.#phase === 'off') this.listen();
  }

  /** The chat's voice started (true) or stopped (false) reading a reply. */
  replySpeaking(speaking: boolean): void {
    if (!this.#handsFree) return;
    if (speaking && this.#phase === 'thinking') {
      this.#setPhase('speaking');
      if (!this.#input && !this.#opening) void this.#open(); // the barge-in watch; its utterance is the next turn
    } else if (!speaking && this.#phase === 'speaking') {
      this.listen();
    }
  }

  /** The reply's turn ended (finished, stopped or failed); `speaking` says whether it is still being read aloud. */
  replyEnded(speaking: boolean): void {
    if (!this.#handsFree || this.#phase !== 'thinking') return;
    if (speaking) this.replySpeaking(true);
    else this.listen();
  }

  /** Releases the microphone. */
  dispose(): void {
    this.#handsFree = false;
    this.#close(true);
    this.#phase = 'off';
  }

  async #open(): Promise<void> {
    const { current } = this.#runs.next();
    this.#partial = '';
    let input: VoiceInputApi;
    this.#opening = true;
    try {
      input = await this.#host.openInput({ handsFree: this.#handsFree });
    } catch (error) {
      if (current()) this.#fail(asVoiceError(error));
      return;
    } finally {
      if (current()) this.#opening = false;
    }
    if (!current() || this.#phase === 'off') {
      input.dispose();
      return;
    }
    this.#input = input;
    this.#unsubscribe = [
      input.on('level', (value) => current() && this.#host.level(value)),
      input.on('partial', (text) => {
        if (!current()) return;
        this.#partial = text;
        if (this.#phase === 'listening') this.#host.setDraft(joinWords(this.#base, text));
      }),
      input.on('speechstart', () => {
        if (!current() || this.#phase !== 'speaking') return;
        this.#setPhase('listening');
        this.#host.bargeIn();
        this.#begin();
        if (this.#partial) this.#host.setDraft(joinWords(this.#base, this.#partial));
      }),
      input.on('final', (result) => current() && this.#settle(result)),
      input.on('error', (error) => current() && this.#fail(error)),
      input.on('state', (state) => {
        // Utterance mode gave up (no speech in time) without a final: nothing was said. A final that
        // comes with the end is delivered first.
        if (current() && state === 'idle') setTimeout(() => current() && this.#settle(null));
      }),
    ];
    if (this.#phase === 'listening') this.#begin();
    try {
      await input.start();
    } catch (error) {
      if (current()) this.#fail(asVoiceError(error));
    }
  }

  /** The utterance ended with `result` (null: nothing was said). */
  #settle(result: VoiceInputResult | null): void {
    const text = result?.text.trim() || this.#partial.trim();
    const bargedIn = this.#phase === 'speaking';
    this.#close(false);
    if (bargedIn) {
      // Only the barge-in watch ended (the reply is still being read): keep watching.
      void this.#open();
      return;
    }
    if (text && this.#host.said(joinWords(this.#base, text)) && this.#handsFree) {
      this.#setPhase('thinking');
    } else if (this.#handsFree) {
      this.listen();
    } else {
      this.#setPhase('off');
    }
  }

  #begin(): void {
    this.#base = this.#host.draft();
    this.#host.started();
  }

  #fail(error: VoiceInputError): void {
    this.#handsFree = false;
    this.#close(true);
    this.#setPhase('off');
    this.#host.failed(error);
  }

  #close(cancel: boolean): void {
    this.#runs.cancel();
    this.#opening = false;
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    const input = this.#input;
    this.#input = null;
    this.#partial = '';
    if (input) {
      if (cancel) input.cancel();
      input.dispose();
      this.#host.level(0);
    }
  }

  #setPhase(phase: VoicePhase): void {
    if (phase === this.#phase) return;
    this.#phase = phase;
    this.#host.changed();
  }
}

/** `base` and `more` as one text, a space between them when both have words. */
function joinWords(base: string, more: string): string {
  return base.trim() && more.trim() ? `${base.trimEnd()} ${more.trimStart()}` : base.trim() ? base : more;
}

/**
 * A thrown value as a {@link VoiceInputError}: the microphone controller already throws that shape
 * (it maps `getUserMedia` failures); anything else (its code failed to load) is the platform's.
 */
function asVoiceError(error: unknown): VoiceInputError {
  if (error && typeof error === 'object' && 'kind' in error && 'message' in error) return error as VoiceInputError;
  return { kind: 'platform', message: error instanceof Error ? error.message : String(error), cause: error };
}
