// Test harness for <agent-chat>, after Material Web's harness classes (`menu/internal/menuitem/harness.ts`):
// one object that wraps an element and gives the tests the state no part of its shadow DOM shows (the
// chat session, the reply speaker; the tests read parts by their names). It reaches that state through
// public API only: Lit's `addController`, by which the element adds its controllers (recorded here for
// every <agent-chat> made after this module is imported), and the controllers' documented getters. The
// element keeps no name for its tests.
import type { ReactiveController } from 'lit';
import { AgentChat } from '../../../src/elements/agent-chat/agent-chat.js';
import type { ChatSessionApi } from '../../../src/client/contracts.js';
import { ChatSessionController } from '../../../src/elements/agent-chat/controllers/chat-session-controller.js';
import { VoiceOutController } from '../../../src/elements/agent-chat/controllers/voice-out-controller.js';

/** The controllers each <agent-chat> added, in order. */
const added = new WeakMap<AgentChat, ReactiveController[]>();
const addController = AgentChat.prototype.addController;
AgentChat.prototype.addController = function (this: AgentChat, controller: ReactiveController): void {
  let list = added.get(this);
  if (!list) added.set(this, (list = []));
  list.push(controller);
  addController.call(this, controller);
};

export class AgentChatHarness {
  constructor(readonly element: AgentChat) {}

  /** The element's controller of class `type`. */
  #controller<T extends ReactiveController>(type: abstract new (...args: never[]) => T): T {
    const found = added.get(this.element)?.find((c): c is T => c instanceof type);
    if (!found) throw new Error(`<agent-chat> added no ${type.name} (was the harness imported before the element was made?)`);
    return found;
  }

  /** The session the chat talks through (the host's `session`, or the one it created from its attributes), or null while there is none. */
  get session(): ChatSessionApi | null {
    return this.#controller(ChatSessionController).session;
  }

  /** A reply is awaited or streaming. */
  get busy(): boolean {
    return ['submitted', 'streaming'].includes(this.session?.state.status ?? '');
  }

  /** The reply speaker, once loaded (on the first press or setting that needs a voice). */
  get speaker(): VoiceOutController['speaker'] {
    return this.#controller(VoiceOutController).speaker;
  }

  /** Id of the reply being read aloud, or null. */
  get speakingId(): string | null {
    return this.#controller(VoiceOutController).speakingId;
  }
}

/** The harness of `el`. */
export const harness = (el: AgentChat) => new AgentChatHarness(el);
