// A ChatSessionApi the tests drive by hand (`set`), for view-only behaviour: rendering cost, every
// entry kind, dialogs. Tests of the real flow use the relay and the real ChatSession instead.
import type { CachedConversation, CachedEntry, ChatSessionApi, ChatState } from '../../../src/client/contracts.js';

export class FakeSession implements ChatSessionApi {
  state: ChatState = {
    conversationId: null, entries: [], streamingEntryId: null, status: 'ready', error: null, agentName: null, notice: null,
  };
  conversations: CachedConversation[] = [];
  readonly calls: Array<[string, ...unknown[]]> = [];
  private readonly listeners = new Set<(state: ChatState) => void>();

  subscribe(listener: (state: ChatState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }

  async send(text: string) { this.calls.push(['send', text]); }
  stop() { this.calls.push(['stop']); this.set({ status: 'ready', streamingEntryId: null }); }
  async retry() { this.calls.push(['retry']); }
  async regenerate(entryId?: string) { this.calls.push(['regenerate', entryId]); }
  async edit(entryId: string, text: string) { this.calls.push(['edit', entryId, text]); }
  async load(conversationId: string) { this.calls.push(['load', conversationId]); }
  reset() { this.calls.push(['reset']); }
  async listConversations() { return this.conversations; }
  async deleteConversation(conversationId: string) { this.calls.push(['delete', conversationId]); }
  dispose() { this.calls.push(['dispose']); }
}

const now = '2025-01-01T00:00:00.000Z';

export function userMessage(id: string, text: string): CachedEntry {
  return { object: 'entry', type: 'message.input', id, role: 'user', content: text, created_at: now, completed_at: now };
}

export function reply(id: string, text: string, extra: Partial<CachedEntry> = {}): CachedEntry {
  return { object: 'entry', type: 'message.output', id, role: 'assistant', content: text, agent_id: null, model: 'parley-local', created_at: now, completed_at: now, ...extra } as CachedEntry;
}
