/**
 * Registers `<agent-chat>`. Importing this module defines the tag once; a second copy of the kit on the
 * page (another bundle) finds it defined and leaves it alone instead of throwing. To use another tag
 * name, do not import this module: register a subclass, `customElements.define('my-chat', class extends AgentChat {})`.
 */
import { AgentChat } from './agent-chat.js';
import { defineOnce } from '../internal/define-once.js';

export { AgentChat };
/** For pages loading the CDN build: `import { registerLocale, loadLocale } from '…/agent-chat.js'` adds a language, or fetches a shipped one ahead of time. */
export { registerLocale, loadLocale } from '../internal/locale.js';

/** Registers `AgentChat` as `agent-chat` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineAgentChat(): void {
  defineOnce('agent-chat', AgentChat);
}

defineAgentChat();

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat': AgentChat;
  }
}
