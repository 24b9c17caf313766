/**
 * Voice in of `<agent-chat>`: the microphone button, hands-free turns and barge-in, through a
 * `VoiceComposer`. The composer and the microphone code it opens are separate chunks, loaded on first
 * use (the first press of the microphone or "Hands-free", never on focus): this module imports their
 * types only.
 */
import type { ReactiveController } from 'lit';
import type { VoiceInputApi, VoiceInputError, VoiceInputOptions } from '../../../client/contracts.js';
import { LatestRun } from '../../../client/latest-run.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import { sharedClient } from '../../internal/shared-client.js';
import { emitOriginRefusal } from '../../internal/origin-refusal.js';
import type { VoiceComposer, VoiceComposerHost, VoicePhase } from '../voice-composer.js';

/** What the controller reads of `<agent-chat>` (and `handsFree`, which it turns off on an error). */
export interface VoiceInHost extends ParleyElement {
  relayUrl: string;
  voiceInput: boolean;
  handsFree: boolean;
  voiceOptions: Pick<
    VoiceInputOptions, 'deviceId' | 'echoCancellation' | 'noiseSuppression' | 'autoGainControl' | 'endOfUtteranceMs' | 'model'
  > | null;
}

/** What the element does for voice in. */
export interface VoiceInHooks {
  /** The message box: the words heard are shown live in it. */
  draft(): string;
  setDraft(text: string): void;
  /** An utterance ended with `text` (after `parley-voice-final`): send it (true) or leave it in the message box (false). */
  said(text: string): boolean;
  /** The user started to talk over the reply: silence it, and stop it if it still streams. */
  bargeIn(): void;
}

/** See the module comment. */
export class VoiceInController implements ReactiveController {
  readonly #host: VoiceInHost;
  readonly #hooks: VoiceInHooks;
  #composer: VoiceComposer | null = null;
  #load: Promise<VoiceComposer> | null = null;
  /** Each voice action is a run, made stale by a newer one and by stopping: an action waiting for the code to load is then dropped. */
  readonly #actions = new LatestRun();
  #phase: VoicePhase = 'off';
  #error: VoiceInputError | null = null;

  constructor(host: VoiceInHost, hooks: VoiceInHooks) {
    this.#host = host;
    this.#hooks = hooks;
    host.addController(this);
  }

  /** Whether the voice controls are shown (they need a relay to transcribe and speak through). */
  get enabled(): boolean {
    return (this.#host.voiceInput || this.#host.handsFree) && !!this.#host.relayUrl;
  }

  /** What the voice composer is doing. */
  get phase(): VoicePhase {
    return this.#phase;
  }

  /** The microphone or the transcription failed (shown in the error box until the next utterance). */
  get error(): VoiceInputError | null {
    return this.#error;
  }

  /** Starts listening for one utterance (or, hands-free, for the next turn). */
  listen(): void {
    this.#withComposer((voice) => voice.listen());
  }

  /** Ends the utterance now and uses what was heard. */
  finish(): void {
    this.#withComposer((voice) => void voice.finish());
  }

  /** The error box's retry after a microphone error: listens again. */
  retry(): void {
    this.#setError(null);
    this.listen();
  }

  /** Typing, Stop or Escape: no more listening, hands-free off; the message box keeps what it holds (Escape: `restoreDraft`). */
  stop(restoreDraft = false): void {
    this.#actions.cancel();
    this.#composer?.cancel(restoreDraft);
    this.#host.handsFree = false;
  }

  /** The element's `hands-free` changed (`on`: hands-free with a relay). */
  handsFreeChanged(on: boolean): void {
    if (on || this.#composer) this.#withComposer((voice) => voice.setHandsFree(on));
  }

  /** The chat's voice started (true) or stopped (false) reading a reply. */
  replySpeaking(speaking: boolean): void {
    this.#composer?.replySpeaking(speaking);
  }

  /** The reply's turn ended; `speaking` says whether it is still being read aloud. */
  replyEnded(speaking: boolean): void {
    this.#composer?.replyEnded(speaking);
  }

  hostDisconnected(): void {
    this.#actions.cancel();
    this.#composer?.dispose();
    this.#composer = null;
    this.#load = null;
    this.#setPhase('off');
    this.#host.handsFree = false;
  }

  /** Loads the voice composer once, with the microphone code. */
  #loadComposer(): Promise<VoiceComposer> {
    this.#load ??= import('../voice-in.js').then(({ VoiceComposer, createVoiceInput }) => {
      this.#composer ??= new VoiceComposer(this.#composerHost(createVoiceInput), new LatestRun());
      return this.#composer;
    });
    return this.#load;
  }

  /** Runs `action` with the voice composer now if it is loaded, else once it is (unless a newer action or a stop came first). */
  #withComposer(action: (voice: VoiceComposer) => void): void {
    const run = this.#actions.next();
    if (this.#composer) return action(this.#composer);
    this.#loadComposer().then((voice) => {
      if (run.current() && this.#host.isConnected) action(voice);
    }, (error: unknown) => {
      this.#load = null;
      this.#setError({ kind: 'platform', message: String(error), cause: error });
      this.#host.handsFree = false;
    });
  }

  #composerHost(createVoiceInput: (options: VoiceInputOptions) => VoiceInputApi): VoiceComposerHost {
    const host = this.#host;
    return {
      // Hands-free waits for the user as long as it takes; a single press gives up after the default silence.
      openInput: async ({ handsFree }) =>
        createVoiceInput({ ...host.voiceOptions, client: await sharedClient(host.relayUrl), mode: 'utterance', ...(handsFree ? { noSpeechTimeoutMs: 0 } : {}) }),
      started: () => {
        this.#setError(null);
        host.emit('parley-voice-start', { handsFree: host.handsFree });
      },
      draft: () => this.#hooks.draft(),
      setDraft: (text) => this.#hooks.setDraft(text),
      said: (text) => {
        host.emit('parley-voice-final', { text });
        return this.#hooks.said(text);
      },
      bargeIn: () => this.#hooks.bargeIn(),
      failed: (error) => {
        this.#setError(error);
        host.handsFree = false;
        emitOriginRefusal(host, error); // the relay refuses this page: parley-error, as for a typed message
      },
      // A ring around the microphone button that grows with the input level: straight to the style, about
      // 20 times a second, without rendering the chat.
      level: (value) => host.renderRoot.querySelector<HTMLElement>('.mic')?.style.setProperty('box-shadow', `0 0 0 ${value * 6}px var(--_accent)`),
      changed: () => this.#setPhase(this.#composer?.phase ?? 'off'),
    };
  }

  #setPhase(phase: VoicePhase): void {
    if (phase === this.#phase) return;
    this.#phase = phase;
    this.#host.requestUpdate();
  }

  #setError(error: VoiceInputError | null): void {
    if (error === this.#error) return;
    this.#error = error;
    this.#host.requestUpdate();
  }
}
