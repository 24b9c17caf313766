/**
 * The client-tool calls waiting for the visitor's consent (tool-rounds.ts decides which ask). Each asked
 * call is in the session's `state.approvals` until the visitor answers it (`decide`) or the turn is
 * stopped (its signal aborts: the question is withdrawn, nothing is answered). No DOM.
 */
import type { ChatState, ToolApprovalRequest } from './contracts.js';
import type { FunctionCallEntry } from './types.js';

/** What the approvals see of the session. */
export interface ApprovalsHost {
  readonly state: ChatState;
  set(patch: Partial<ChatState>): void;
}

export class ToolApprovals {
  readonly #host: ApprovalsHost;
  /** The answer of each waiting call, by tool_call_id. */
  readonly #waiting = new Map<string, (allowed: boolean | null) => void>();

  constructor(host: ApprovalsHost) {
    this.#host = host;
  }

  /** Asks about `call` (shown in `state.approvals`): true allowed, false declined, null stopped first. */
  ask(call: FunctionCallEntry, signal: AbortSignal): Promise<boolean | null> {
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const id = call.tool_call_id;
      const onAbort = () => this.#answer(id, null);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.get(id)?.(null);
      this.#waiting.set(id, (allowed) => {
        signal.removeEventListener('abort', onAbort);
        resolve(allowed);
      });
      const request: ToolApprovalRequest = { toolCallId: id, name: call.name, arguments: call.arguments };
      this.#host.set({ approvals: [...(this.#host.state.approvals ?? []).filter((r) => r.toolCallId !== id), request] });
    });
  }

  /** The visitor's answer about the call `toolCallId`; false when no such call waits. */
  decide(toolCallId: string, allow: boolean): boolean {
    if (!this.#waiting.has(toolCallId)) return false;
    this.#answer(toolCallId, allow);
    return true;
  }

  /** Withdraws every question (load, reset, dispose): their turns see null. */
  clear(): void {
    for (const id of [...this.#waiting.keys()]) this.#answer(id, null);
  }

  #answer(toolCallId: string, allowed: boolean | null): void {
    const resolve = this.#waiting.get(toolCallId);
    if (!resolve) return;
    this.#waiting.delete(toolCallId);
    const approvals = this.#host.state.approvals ?? [];
    if (approvals.some((r) => r.toolCallId === toolCallId)) this.#host.set({ approvals: approvals.filter((r) => r.toolCallId !== toolCallId) });
    resolve(allowed);
  }
}
