/**
 * The feedback event of `<agent-chat>`, added to the kit's typed event map (`ParleyEventDetails`,
 * `GlobalEventHandlersEventMap`) so `emit()` and `addEventListener('parley-feedback')` know its detail.
 */
import type {} from '../internal/events.js';

/** Detail of `parley-feedback`: the visitor rated a reply (thumbs up or down), or took the rating back (`rating: null`). */
export interface ParleyFeedbackDetail {
  conversationId: string;
  /** The id of the rated reply (its `message.output` entry). */
  messageId: string;
  rating: 'up' | 'down' | null;
  /** What the visitor wrote with a thumbs-down, if anything. */
  comment?: string;
}

declare module '../internal/events.js' {
  interface ParleyEventDetails {
    'parley-feedback': ParleyFeedbackDetail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'parley-feedback': CustomEvent<ParleyFeedbackDetail>;
  }
}
