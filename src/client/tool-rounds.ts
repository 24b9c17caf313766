/**
 * Client tools in one `send`: which of a turn's function calls the page answers, and its answers as
 * entries. The round limit is a policy here, apart from the session's loop (like the AI SDK's
 * `lastAssistantMessageIsCompleteWithToolCalls`): a model that calls tools forever stops after
 * MAX_TOOL_ROUNDS rounds, its last calls left shown (pending). A tool marked `requiresApproval` runs
 * only once the visitor allows it (the asking is the caller's: see tool-approvals.ts); declined, the
 * model gets DECLINED_TOOL_RESULT. Pure but for running the tools and asking.
 */
import type { CachedEntry, ClientTool } from './contracts.js';
import type { FunctionCallEntry } from './types.js';
import { localId, nowIso } from './local-ids.js';

/** Function-call rounds the page answers in one `send` before it stops (a model calling tools forever). */
export const MAX_TOOL_ROUNDS = 8;

/** The `function.result` (JSON) a call the visitor declined sends the model: the tool did not run. */
export const DECLINED_TOOL_RESULT = JSON.stringify({ declined: true, message: 'The visitor declined this tool call, so the tool did not run.' });

/**
 * Asks the visitor about one call: true (allowed), false (declined), or null when the turn was stopped
 * before they answered.
 */
export type AskConsent = (call: FunctionCallEntry) => Promise<boolean | null>;

/**
 * The calls the page answers after round `round` (0 for the send's own turn) produced the entries `produced`:
 * those with a tool registered in `tools` and no result in `entries` yet; none after MAX_TOOL_ROUNDS rounds.
 */
export function callsToAnswer(
  entries: readonly CachedEntry[], produced: ReadonlySet<string>, tools: Record<string, ClientTool> | undefined, round: number,
): FunctionCallEntry[] {
  if (round >= MAX_TOOL_ROUNDS) return [];
  return unanswered(entries, tools).filter((e) => produced.has(e.id));
}

/**
 * After a reload: the calls of the conversation's last turn (after its last user message) that wait for
 * a registered tool, when one of them needs the visitor's consent (they are asked again); else none (a
 * turn left unanswered otherwise stays shown, pending, as before).
 */
export function callsAwaitingConsent(entries: readonly CachedEntry[], tools: Record<string, ClientTool> | undefined): FunctionCallEntry[] {
  let from = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.type === 'message.input' && e.role === 'user') {
      from = i + 1;
      break;
    }
  }
  const calls = unanswered(entries, tools).filter((e) => entries.indexOf(e) >= from);
  return calls.some((call) => needsConsent(tools![call.name], parseArguments(call))) ? calls : [];
}

function unanswered(entries: readonly CachedEntry[], tools: Record<string, ClientTool> | undefined): FunctionCallEntry[] {
  return entries.filter((e): e is FunctionCallEntry => e.type === 'function.call' && !!tools?.[e.name]
    && !entries.some((r) => r.type === 'function.result' && r.tool_call_id === e.tool_call_id));
}

/** Whether `tool` asks before running with `args` (a predicate that throws asks: consent is the safe side). */
export function needsConsent(tool: ClientTool, args: unknown): boolean {
  const rule = tool.requiresApproval;
  if (typeof rule !== 'function') return rule === true;
  try {
    return !!rule(args);
  } catch {
    return true;
  }
}

/** The call's arguments parsed (`{}` when empty); undefined when they are not JSON. */
function parseArguments(call: FunctionCallEntry): unknown {
  try {
    return call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch {
    return undefined;
  }
}

/**
 * Runs the calls' tools in parallel, each tool that needs consent once `ask` allowed it; their results as
 * page-made `function.result` entries, in the calls' order. A tool that throws (or arguments that are not
 * JSON: the tool neither asks nor runs) answers `{ "error": message }`; a declined one DECLINED_TOOL_RESULT.
 * Null when the turn was stopped while a call waited for consent (nothing is answered then).
 */
export async function answerCalls(calls: readonly FunctionCallEntry[], tools: Record<string, ClientTool>, ask?: AskConsent): Promise<CachedEntry[] | null> {
  let stopped = false;
  const results = await Promise.all(calls.map(async (call) => {
    try {
      const tool = tools[call.name];
      const args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
      if (needsConsent(tool, args)) {
        const allowed = ask ? await ask(call) : false;
        if (allowed === null) {
          stopped = true;
          return '';
        }
        if (!allowed) return DECLINED_TOOL_RESULT;
      }
      const value = await tool(args);
      return typeof value === 'string' ? value : JSON.stringify(value ?? null);
    } catch (error) {
      return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
  }));
  if (stopped) return null;
  return results.map((result, i): CachedEntry => ({
    object: 'entry', type: 'function.result', id: localId(), tool_call_id: calls[i].tool_call_id, result, created_at: nowIso(), completed_at: nowIso(),
  }));
}
