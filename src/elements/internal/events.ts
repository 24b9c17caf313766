/**
 * The kit's events: one prefix (`parley-`), `bubbles` and `composed` so they cross shadow roots, and
 * typed through `GlobalEventHandlersEventMap` so `addEventListener('parley-…')` knows the detail.
 */
import type { PlatformErrorShape } from '../../client/contracts.js';

/** Detail of `parley-message-sent`: the user sent a message (typed, edited or retried). */
export interface ParleyMessageSentDetail {
  text: string;
  /** The conversation it was sent to; null when it starts a new one. */
  conversationId: string | null;
  /** `send` for a new message, `edit` for edit-and-resend. */
  kind: 'send' | 'edit';
  /** How many files were sent with it (`send` only; 0 or absent: none). */
  attachments?: number;
}

/** Detail of `parley-reply-finished`: a reply finished streaming (not fired when it was stopped or failed). */
export interface ParleyReplyFinishedDetail {
  conversationId: string | null;
  /** Id of the last `message.output` entry of the reply, if the reply had text. */
  entryId: string | null;
  /** Plain markdown text of that entry. */
  text: string;
}

/** Detail of `parley-error`: a turn or a request failed; the element shows it and offers retry. */
export interface ParleyErrorDetail {
  error: PlatformErrorShape;
}

/** Detail of `parley-conversation-changed`: the conversation shown changed (started, resumed, new, deleted). */
export interface ParleyConversationChangedDetail {
  conversationId: string | null;
}

/** Detail of `parley-open-changed`: the launcher panel opened or closed. */
export interface ParleyOpenChangedDetail {
  open: boolean;
}

/** Detail of `parley-speech-start`: a request to speak `text` was sent. */
export interface ParleySpeechStartDetail {
  text: string;
}

/** Detail of `parley-speech-first-audio`: the first audio of the text is scheduled to play. */
export interface ParleySpeechFirstAudioDetail {
  /** From the request to the first scheduled sample, in ms. */
  latencyMs: number;
}

/** Detail of `parley-speech-end`: everything was played (`stopped` false) or the user stopped it. */
export interface ParleySpeechEndDetail {
  stopped: boolean;
  /** Seconds of speech played and received. */
  played: number;
  received: number;
  underruns: number;
}

/**
 * Detail of `parley-speech-error`: the speech request or its stream failed, or no sound can be played on this device
 * (`error.code` `audio_not_started`, type `audio_error`: the AudioContext did not start within a short time after the press).
 */
export interface ParleySpeechErrorDetail {
  error: PlatformErrorShape;
}

/** Detail of `parley-speech-underrun`: audio arrived after it should have played (a gap was heard). */
export interface ParleySpeechUnderrunDetail {
  /** Underruns so far for this player. */
  underruns: number;
}

/** Every event of the kit, by name, with its detail type. */
export interface ParleyEventDetails {
  'parley-message-sent': ParleyMessageSentDetail;
  'parley-reply-finished': ParleyReplyFinishedDetail;
  'parley-error': ParleyErrorDetail;
  'parley-conversation-changed': ParleyConversationChangedDetail;
  'parley-open-changed': ParleyOpenChangedDetail;
  'parley-speech-start': ParleySpeechStartDetail;
  'parley-speech-first-audio': ParleySpeechFirstAudioDetail;
  'parley-speech-end': ParleySpeechEndDetail;
  'parley-speech-error': ParleySpeechErrorDetail;
  'parley-speech-underrun': ParleySpeechUnderrunDetail;
}

export type ParleyEventName = keyof ParleyEventDetails;
export type ParleyEvent<K extends ParleyEventName> = CustomEvent<ParleyEventDetails[K]>;

declare global {
  interface GlobalEventHandlersEventMap {
    'parley-message-sent': CustomEvent<ParleyMessageSentDetail>;
    'parley-reply-finished': CustomEvent<ParleyReplyFinishedDetail>;
    'parley-error': CustomEvent<ParleyErrorDetail>;
    'parley-conversation-changed': CustomEvent<ParleyConversationChangedDetail>;
    'parley-open-changed': CustomEvent<ParleyOpenChangedDetail>;
    'parley-speech-start': CustomEvent<ParleySpeechStartDetail>;
    'parley-speech-first-audio': CustomEvent<ParleySpeechFirstAudioDetail>;
    'parley-speech-end': CustomEvent<ParleySpeechEndDetail>;
    'parley-speech-error': CustomEvent<ParleySpeechErrorDetail>;
    'parley-speech-underrun': CustomEvent<ParleySpeechUnderrunDetail>;
  }
}
