/**
 * What a chat session loads, with `import()`, once the page has client tools: the round policy
 * (tool-rounds.ts) and the calls waiting for the visitor's consent (tool-approvals.ts), in one module so a
 * bundle makes them one chunk. A chat without `tools` never loads it.
 */
export { answerCalls, callsAwaitingConsent, callsToAnswer } from './tool-rounds.js';
export { ToolApprovals } from './tool-approvals.js';
