/**
 * What a relay session may do: its scopes, agents, models and limits. A policy is decided when a
 * session is minted (defaults from `createRelay` options, narrowed or widened by the `authorize`
 * hook) and is then carried inside the signed token, so every relay instance enforces it without
 * shared state.
 */

/** Operations a session token can be scoped to. */
export type RelayScope = 'conversations' | 'speech' | 'transcription' | 'ocr' | 'agents:read' | 'models:read';

/** Every scope, in a stable order. */
export const ALL_SCOPES: readonly RelayScope[] = ['conversations', 'speech', 'transcription', 'ocr', 'agents:read', 'models:read'];

/** Matches any agent id or model name in {@link RelayPolicy.agents} / {@link RelayPolicy.models}. */
export const ANY = '*';

/** Per-session limits, enforced by the relay for every request made with the session's token. */
export interface SessionLimits {
  /** Refill rate of the session's token bucket (default 30 per minute). */
  requestsPerMinute: number;
  /** Bucket size: how many requests may arrive at once (default 10). */
  burst: number;
  /** Streams (SSE answers) the session may have open at once (default 2). */
  concurrentStreams: number;
}

/** What a session is allowed to do. */
export interface RelayPolicy {
  /** Operations allowed (default: `['conversations']` only). */
  scopes: RelayScope[];
  /**
   * Agent ids the session may talk to or read; `['*']` allows any (default none). `ag_…@3` pins an agent
   * to a version or alias: conversations with it must ask for that `agent_version`.
   */
  agents: string[];
  /** Model names a session may use for conversations, speech, OCR and transcription; `['*']` allows any (default none). */
  models: string[];
  limits: SessionLimits;
}

/** Default per-session limits: 30 requests/min, burst 10, 2 open streams. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { requestsPerMinute: 30, burst: 10, concurrentStreams: 2 };

/**
 * Policy of new sessions when neither options nor the authorize hook say otherwise: locked down.
 * Conversations only, and with no agent and no model, so a session reaches nothing until the site
 * names what it may use (`policy: { agents: ['ag_…'] }`); speech, transcription, OCR and agent or
 * model reads need their scope. Default limits.
 */
export const DEFAULT_POLICY: RelayPolicy = {
  scopes: ['conversations'],
  agents: [],
  models: [],
  limits: DEFAULT_SESSION_LIMITS,
};

/** Fills a partial policy from a base policy (limits are merged field by field). */
export function completePolicy(partial: Partial<RelayPolicy> | undefined, base: RelayPolicy = DEFAULT_POLICY): RelayPolicy {
  return {
    scopes: [...(partial?.scopes ?? base.scopes)],
    agents: [...(partial?.agents ?? base.agents)],
    models: [...(partial?.models ?? base.models)],
    limits: { ...base.limits, ...partial?.limits },
  };
}

/** Whether `value` is in an allow list (`'*'` allows everything). */
export function isAllowed(list: readonly string[], value: string): boolean {
  return list.includes(ANY) || list.includes(value);
}

/** Separates an agent id from its pinned version in {@link RelayPolicy.agents}: `ag_123@3`. */
const VERSION_PIN = '@';

/** Whether an agent is on the list at all: `*`, its id, or its id pinned to a version. */
export function isAgentAllowed(list: readonly string[], agentId: string): boolean {
  return isAllowed(list, agentId) || list.some((entry) => entry.startsWith(agentId + VERSION_PIN));
}

/**
 * Whether a body may ask for `version` (`agent_version`, absent: the current one) of `agentId`.
 * `*` or the plain id allows any version; pins allow exactly theirs. Without `agentId` (a restart: the
 * conversation's agent is not in the body) a version may be asked for only when no agent is pinned.
 */
export function isAgentVersionAllowed(list: readonly string[], agentId: string | undefined, version: string | undefined): boolean {
  if (agentId === undefined) return version === undefined || !list.some((entry) => entry.includes(VERSION_PIN));
  if (isAllowed(list, agentId)) return true;
  return version !== undefined && list.includes(agentId + VERSION_PIN + version);
}
