/**
 * Voice out of `<agent-chat>`: reads replies aloud as they stream (`speak-replies`, hands-free) and
 * finished replies on request ("Read aloud"), through a `ReplySpeaker`. The speaker and its audio code
 * (and the microphone's) are separate chunks, loaded on first use — the first press of
 * "Read aloud", the microphone or "Hands-free", or `speak-replies` — never on focus: this module imports
 * their types only. So that a reply can still be heard on iOS, which lets audio start only inside a
 * gesture, a press that needs the voice before it is loaded makes the browser's own AudioContext there and
 * then (`unlock`), and the speaker plays into that context once it is loaded.
 */
import type { ReactiveController } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import type { ReplySpeaker } from '../../../audio/reply-speaker.js';
import { sharedClient } from '../../internal/shared-client.js';
import { unlockedContext } from '../../../audio/gesture-context.js';
import { AUDIO_NOT_STARTED } from '../../../client/errors.js';
import type { PlatformErrorShape } from '../../../client/contracts.js';

/** What the controller reads of `<agent-chat>`. */
export interface VoiceOutHost extends ParleyElement {
  relayUrl: string;
  voice: string;
  speakReplies: boolean;
  handsFree: boolean;
}

/** What the element tells the controller and is told by it. */
export interface VoiceOutHooks {
  /** The markdown of the reply `entryId` (what `parley-speech-start` carries). */
  replyText(entryId: string): string;
  /** A reply started (true) or stopped (false) being read aloud. */
  speakingChanged(speaking: boolean): void;
  /** No sound can be played (the context did not start, code `audio_not_started`): to be shown in words. */
  noSound(error: PlatformErrorShape): void;
}

/** See the module comment. */
export class VoiceOutController implements ReactiveController {
  readonly #host: VoiceOutHost;
  readonly #hooks: VoiceOutHooks;
  #speaker: ReplySpeaker | null = null;
  #load: Promise<ReplySpeaker | null> | null = null;
  #speakingId: string | null = null;
  /** The AudioContext made and started inside a press before the speaker was loaded (see the module comment). */
  #gestureContext: AudioContext | null = null;

  constructor(host: VoiceOutHost, hooks: VoiceOutHooks) {
    this.#host = host;
    this.#hooks = hooks;
    host.addController(this);
  }

  /** The reply speaker, once loaded. */
  get speaker(): ReplySpeaker | null {
    return this.#speaker;
  }

  /** Id of the reply being read aloud. */
  get speakingId(): string | null {
    return this.#speakingId;
  }

  /** Replies are read aloud as they stream: asked for, or hands-free. */
  get speaksReplies(): boolean {
    return this.#host.speakReplies || this.#host.handsFree;
  }

  /** Loads the reply speaker once; null when there is no relay to speak through. */
  load(): Promise<ReplySpeaker | null> {
    const host = this.#host;
    if (!host.relayUrl) return Promise.resolve(null);
    this.#load ??= Promise.all([import('../../../audio/audio-out.js'), sharedClient(host.relayUrl)]).then(([{ ReplySpeaker }, client]) => {
      if (this.#speaker || !host.isConnected) return this.#speaker;
      let text = '';
      const context = this.#gestureContext;
      this.#speaker = new ReplySpeaker({
        client,
        voice: host.voice,
        ...(context && context.state !== 'closed' ? { context } : {}),
        onSpeaking: (id) => {
          const was = this.#speakingId;
          this.#speakingId = id;
          host.requestUpdate();
          this.#hooks.speakingChanged(!!id);
          const p = this.#speaker!.playback;
          if (id) {
            text = this.#hooks.replyText(id);
            host.emit('parley-speech-start', { text });
          } else if (was) host.emit('parley-speech-end', { stopped: false, played: p.played, received: p.received, underruns: p.underruns });
        },
        onFirstAudio: (_id, latencyMs) => host.emit('parley-speech-first-audio', { latencyMs }),
        onError: (error) => {
          host.emit('parley-speech-error', { error });
          if (error.code === AUDIO_NOT_STARTED) this.#hooks.noSound(error);
        },
      });
      return this.#speaker;
    }, () => {
      this.#load = null;
      return null;
    });
    return this.#load;
  }

  /**
   * Call inside the user's gesture (send, a click) so a reply can be spoken later (iOS). Before the speaker
   * is loaded, an AudioContext is made and started here when replies are spoken (`speak-replies`,
   * hands-free) or `needed` (the press asks for the voice: "Read aloud", turning hands-free on); a chat
   * that never speaks makes none.
   */
  unlock(needed = false): void {
    if (this.#speaker) {
      this.#speaker.unlock();
      return;
    }
    if (!(needed || this.speaksReplies) || !this.#host.relayUrl) return;
    // Without one (no AudioContext, or refused), the speaker makes its own once loaded.
    this.#gestureContext = unlockedContext(this.#gestureContext);
  }

  /** Reads the reply `entryId` as it grows (`done`: `text` is all of it); nothing when `text` is empty. */
  follow(entryId: string, text: string, done: boolean): void {
    if (text) void this.#withSpeaker((speaker) => speaker.follow(entryId, text, done));
  }

  /** Barge-in: the user types or sends, the voice stops at once. */
  silence(): void {
    this.#speaker?.stop();
  }

  /** The "Read aloud" button: reads the finished reply, or stops it when it is the one being read. */
  toggleReadAloud(entryId: string, text: string): void {
    if (this.#speakingId === entryId) {
      this.silence();
      return;
    }
    this.unlock(true); // inside the click
    void this.#withSpeaker((speaker) => {
      speaker.unlock();
      speaker.speak(entryId, text);
    });
  }

  hostUpdated(): void {
    if (this.#speaker) this.#speaker.voice = this.#host.voice;
  }

  hostDisconnected(): void {
    // The speaker closes its context (the gesture's, when it plays into that one).
    if (this.#speaker) void this.#speaker.dispose();
    else void this.#gestureContext?.close().catch(() => {});
    this.#gestureContext = null;
    this.#speaker = null;
    this.#load = null;
  }

  /** Runs `action` with the speaker now if it is loaded (inside a gesture), else once it is. */
  async #withSpeaker(action: (speaker: ReplySpeaker) => void): Promise<void> {
    if (this.#speaker) return action(this.#speaker);
    const speaker = await this.load();
    if (speaker) action(speaker);
  }
}
