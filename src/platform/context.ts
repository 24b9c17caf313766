import type { Db } from './store/db.js';
import type { AgentStore } from './store/agents.js';
import type { ConversationStore } from './store/conversations.js';
import type { ChatModelRegistry } from './engines/chat/registry.js';

/** What every route module is given. */
export interface PlatformContext {
  db: Db;
  conversations: ConversationStore;
  agents: AgentStore;
  chat: ChatModelRegistry;
  limits: { maxJsonBytes: number };
}
