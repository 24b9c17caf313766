// Test harness for <agent-chat>, after Material Web's harness classes (`menu/internal/menuitem/harness.ts`):
// one object that wraps an element and gives the tests the state no part of its shadow DOM shows (the
// chat session, the reply speaker; the tests read parts by their names). It reads them through the
// element's controllers, by the field names agent-chat.ts gives them (`chat`: ChatSessionController,
// `voiceOut`: VoiceOutController) and their documented getters: the element keeps no name for its tests.
import type { AgentChat } from '../../../src/elements/agent-chat/agent-chat.js';
import type { ChatSessionApi } from '../../../src/client/contracts.js';
import type { ChatSessionController } from '../../../src/elements/agent-chat/controllers/chat-session-controller.js';
import type { VoiceOutController } from '../../../src/elements/agent-chat/controllers/voice-out-controller.js';

/** The controllers of agent-chat.ts the harness reads (private fields there). */
interface Controllers {
  chat: ChatSessionController;
  voiceOut: VoiceOutController;
}

export class AgentChatHarness {
  constructor(readonly element: AgentChat) {}

  get #controllers(): Controllers {
    return this.element as unknown as Controllers;
  }

  /** The session the chat talks through (the host's `session`, or the one it created from its attributes), or null while there is none. */
  get session(): ChatSessionApi | null {
    return this.#controllers.chat.session;
  }

  /** A reply is awaited or streaming. */
  get busy(): boolean {
    return ['submitted', 'streaming'].includes(this.session?.state.status ?? '');
  }

  /** The reply speaker, once loaded (on the first press or setting that needs a voice). */
  get speaker(): VoiceOutController['speaker'] {
    return this.#controllers.voiceOut.speaker;
  }

  /** Id of the reply being read aloud, or null. */
  get speakingId(): string | null {
    return this.#controllers.voiceOut.speakingId;
  }
}

/** The harness of `el`. */
export const harness = (el: AgentChat) => new AgentChatHarness(el);
