/**
 * What the platform really served, recorded per request so the admin usage report is computed
 * from it: who called, which model, how many tokens.
 */
import type { Db } from '../store/db.js';

export interface UsageEvent {
  userId: string;
  workspaceId: string;
  /** The model id that served the request (after alias resolution). */
  model: string;
  /** e.g. `conversations`, `audio.speech`, `ocr`. */
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  /** ISO time. */
  at: string;
}

export interface UsageLedger {
  record(event: UsageEvent): Promise<void>;
}

export function createUsageLedger(_db: Db): UsageLedger {
  const events: UsageEvent[] = [];
  return {
    async record(event) {
      events.push(event);
    },
  };
}
