/**
 * Client tools in one `send`: which of a turn's function calls the page answers, and its answers as
 * entries. The round limit is a policy here, apart from the session's loop (like the AI SDK's
 * `lastAssistantMessageIsCompleteWithToolCalls`): a model that calls tools forever stops after
 * MAX_TOOL_ROUNDS rounds, its last calls left shown (pending). Pure but for running the tools.
 */
import type { CachedEntry, ClientTool } from './contracts.js';
import type { FunctionCallEntry } from './types.js';
import { localId, nowIso } from './chat-entries.js';

/** Function-call rounds the page answers in one `send` before it stops (a model calling tools forever). */
export const MAX_TOOL_ROUNDS = 8;

/**
 * The calls the page answers after round `round` (0 for the send's own turn) produced the entries `produced`:
 * those with a tool registered in `tools` and no result in `entries` yet; none after MAX_TOOL_ROUNDS rounds.
 */
export function callsToAnswer(
  entries: readonly CachedEntry[], produced: ReadonlySet<string>, tools: Record<string, ClientTool> | undefined, round: number,
): FunctionCallEntry[] {
  if (round >= MAX_TOOL_ROUNDS) return [];
  return entries.filter((e): e is FunctionCallEntry => e.type === 'function.call' && produced.has(e.id) && !!tools?.[e.name]
    && !entries.some((r) => r.type === 'function.result' && r.tool_call_id === e.tool_call_id));
}

/**
 * Runs the calls' tools in parallel; their results as page-made `function.result` entries, in the calls'
 * order. A tool that throws (or arguments that are not JSON) answers `{ "error": message }`.
 */
export async function answerCalls(calls: readonly FunctionCallEntry[], tools: Record<string, ClientTool>): Promise<CachedEntry[]> {
  const results = await Promise.all(calls.map(async (call) => {
    try {
      const value = await tools[call.name](call.arguments.trim() ? JSON.parse(call.arguments) : {});
      return typeof value === 'string' ? value : JSON.stringify(value ?? null);
    } catch (error) {
      return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
  }));
  return results.map((result, i): CachedEntry => ({
    object: 'entry', type: 'function.result', id: localId(), tool_call_id: calls[i].tool_call_id, result, created_at: nowIso(), completed_at: nowIso(),
  }));
}
