/**
 * parley-kit public browser entry. Side-effect free: importing it defines no element and touches no
 * global. Register `<agent-chat>` with `import 'parley-kit/agent-chat'` (or subclass `AgentChat`).
 */
export type * from './client/types.js';
export type * from './client/contracts.js';
export { ParleyClient, getClient, forgetClient, RelaySession, PlatformError, ChatSession } from './client/index.js';
export { HistoryStore } from './store/index.js';
export { AgentChat } from './elements/agent-chat/agent-chat.js';
