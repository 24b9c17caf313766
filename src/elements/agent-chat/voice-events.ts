/**
 * The voice-input events of `<agent-chat>`, added to the kit's typed event map (`ParleyEventDetails`,
 * `GlobalEventHandlersEventMap`) so `emit()` and `addEventListener('parley-voice-…')` know their detail.
 */
import type {} from '../internal/events.js';

/** Detail of `parley-voice-start`: the chat began listening for an utterance. */
export interface ParleyVoiceStartDetail {
  /** Whether it listens as part of hands-free turns. */
  handsFree: boolean;
}

/** Detail of `parley-voice-final`: the final text of an utterance (then sent, or left in the composer). */
export interface ParleyVoiceFinalDetail {
  text: string;
}

/** Detail of `parley-hands-free-changed`: hands-free turns were turned on or off (by the user, an error or the host). */
export interface ParleyHandsFreeChangedDetail {
  on: boolean;
}

declare module '../internal/events.js' {
  interface ParleyEventDetails {
    'parley-voice-start': ParleyVoiceStartDetail;
    'parley-voice-final': ParleyVoiceFinalDetail;
    'parley-hands-free-changed': ParleyHandsFreeChangedDetail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'parley-voice-start': CustomEvent<ParleyVoiceStartDetail>;
    'parley-voice-final': CustomEvent<ParleyVoiceFinalDetail>;
    'parley-hands-free-changed': CustomEvent<ParleyHandsFreeChangedDetail>;
  }
}
