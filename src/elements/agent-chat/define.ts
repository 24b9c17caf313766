/**
 * Registers `<agent-chat>`. Importing this module defines the tag once; a second copy of the kit on the
 * page (another bundle) finds it defined and leaves it alone instead of throwing. To use another tag
 * name, do not import this module: register a subclass, `customElements.define('my-chat', class extends AgentChat {})`.
 */
import { AgentChat } from './agent-chat.js';

export { AgentChat };

/** Registers `AgentChat` as `agent-chat` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineAgentChat(): void {
  if (typeof customElements === 'undefined') return; // server-side rendering: nothing to register
  const existing = customElements.get('agent-chat');
  if (!existing) customElements.define('agent-chat', AgentChat);
  else if (existing !== AgentChat) console.warn('[parley] <agent-chat> is already defined by another class (another copy of parley-kit?); keeping that one.');
}

defineAgentChat();

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat': AgentChat;
  }
}
