/**
 * A chat's history kept in step, the seam the AI SDK calls `ChatState`: the page's entries reconciled
 * with the server's history (temporary ids become server ids, remembered as aliases so a late copy is
 * dropped), and written where they are kept: the history store (the conversation's record, each entry
 * as it changes, where a streaming reply is) and the other tabs of the site. ChatSession owns the state;
 * this reads and patches it through {@link HistoryHost}.
 */
import type { CachedConversation, CachedEntry, ChatSessionOptions, ChatState, ConversationStream, HistoryStoreApi, ParleyClientApi } from './contracts.js';
import type { ConversationEntry } from './types.js';
import type { RunToken } from './latest-run.js';
import type { TabSync } from './tab-sync.js';
import { dropLocalTwins, isLocalId, markCutReply, nowIso, reconcileEntries, titleOf, type Reconciled } from './chat-entries.js';

/** What history sync needs of the session. */
export interface HistoryHost {
  readonly state: ChatState;
  set(patch: Partial<ChatState>): void;
  /** Ids of page-made inputs whose turn never reached the server: a reconciliation keeps them. */
  readonly unsent: readonly string[];
  /** The turn in progress, if any: it owns the entries (its own reconciliation comes later). */
  readonly active: object | null;
  /** Tells the visitor the conversation could not be saved on this device. */
  notSaved(): void;
}

/** What history sync needs of the session's options: the server's history, the store, and a new record's agent or model. */
export interface HistoryOptions extends Pick<ChatSessionOptions, 'store' | 'agentId' | 'model'> {
  client: { readonly conversations: Pick<ParleyClientApi['conversations'], 'history'> };
}

export class HistorySync {
  /** The shown conversation's record as stored (null until known). */
  record: CachedConversation | null = null;
  readonly #host: HistoryHost;
  readonly #options: HistoryOptions;
  readonly #store: HistoryStoreApi | undefined;
  readonly #tabs: Pick<TabSync, 'post'> | null;
  /** Temporary ids of this conversation that reconciliations matched to server ids (a tab's copy arriving late is dropped). */
  #aliases = new Map<string, string>();

  constructor(host: HistoryHost, options: HistoryOptions, tabs: Pick<TabSync, 'post'> | null) {
    this.#host = host;
    this.#options = options;
    this.#store = options.store;
    this.#tabs = tabs;
  }

  /** Forgets the conversation shown so far (another one is shown, or a new chat). */
  forget(): void {
    this.record = null;
    this.#aliases = new Map();
  }

  /**
   * Replaces the page's view of the conversation with the server's history (ids included), keeping what
   * the server lacks; returns the temporary → server id map, or null when the server could not be asked.
   */
  async syncIds(run: RunToken): Promise<Map<string, string> | null> {
    const conversationId = this.#host.state.conversationId;
    if (!conversationId) return null;
    let history: ConversationEntry[];
    try {
      history = (await this.#options.client.conversations.history(conversationId)).entries;
    } catch {
      return null; // offline: the page keeps its temporary ids until the next reconciliation
    }
    // A turn started meanwhile owns the entries now; its own reconciliation comes later.
    if (!run.current() || this.#host.state.conversationId !== conversationId || this.#host.active) return null;
    const { entries, renamed } = this.adopt(conversationId, history);
    this.save(entries);
    return renamed;
  }

  /** Shows the server's history of the conversation (the reply another tab or the relay finished). */
  async catchUp(run: RunToken): Promise<void> {
    const conversationId = this.#host.state.conversationId;
    if (!conversationId) return;
    try {
      const history = await this.#options.client.conversations.history(conversationId);
      if (!run.current() || this.#host.active || this.#host.state.conversationId !== conversationId) return;
      this.adopt(conversationId, history.entries);
    } catch {
      // Offline: what the store had stays shown.
      if (run.current()) this.#host.set({ entries: markCutReply(this.#host.state.entries) });
    }
  }

  /**
   * Shows the server's history merged into the state (see reconcileEntries; with `patch` of the merged
   * entries), remembers the ids it learnt, and stores it.
   */
  adopt(conversationId: string, history: readonly ConversationEntry[], patch?: (entries: CachedEntry[]) => Partial<ChatState>): Reconciled {
    const reconciled = this.#learn(reconcileEntries(this.#host.state.entries, history, this.#twins()));
    const { entries } = reconciled;
    this.#host.set({ entries, ...patch?.(entries) });
    this.#store?.replaceEntries(conversationId, entries).catch(() => this.#host.notSaved());
    return reconciled;
  }

  /** `entries` without the page-made copies of entries they also hold under server ids (see dropLocalTwins). */
  dedupe(entries: readonly CachedEntry[]): CachedEntry[] {
    return this.#learn(dropLocalTwins(entries, this.#twins())).entries;
  }

  /** Writes the conversation's record, updated at `updatedAt` (default: now). */
  save(entries: readonly ConversationEntry[], updatedAt?: string): void {
    const store = this.#store;
    const conversationId = this.#host.state.conversationId;
    if (!store || !conversationId) return;
    const now = updatedAt ?? nowIso();
    const record = this.record = this.record && this.record.id === conversationId
      ? { ...this.record, title: this.record.title || titleOf(entries), updatedAt: now }
      : this.#recordOf(entries, now, null, entries[0]?.created_at);
    store.putConversation(record).catch(() => this.#host.notSaved());
  }

  /** Writes an entry that changed to the store and tells the other tabs. */
  persist(entry: CachedEntry): void {
    const conversationId = this.#host.state.conversationId;
    if (!this.#store || !conversationId) return;
    this.#store.putEntry(conversationId, entry).catch(() => this.#host.notSaved());
    this.#tabs?.post({ kind: 'entry', conversationId, entry });
  }

  /** Keeps where the stream is, beside the entries it produced (one store batch: they agree). */
  keepPoint(stream: ConversationStream): void {
    const point = stream.resumePoint;
    const { conversationId, streamingEntryId: entryId } = this.#host.state;
    if (point && conversationId) this.#store?.putInflight?.({ conversationId, streamId: point.streamId, lastEventId: point.lastEventId, entryId }).catch(() => this.#host.notSaved());
  }

  /**
   * `conversation.response.started`: the state names its conversation now (`previous` before). The record
   * and the turn's entries are stored: all of them for a `start`; for an append, its inputs (the page-made
   * entries); a restart's new conversation replaces `previous` in the store (same title and creation date,
   * see ChatSession's comment), so the list shows one conversation, not one per regeneration.
   */
  started(previous: string | null, start: boolean): void {
    const { conversationId, entries } = this.#host.state;
    const replaced = !!previous && conversationId !== previous;
    if (conversationId !== previous || !this.record) this.record = this.#recordOf(entries, nowIso(), replaced ? this.record : null);
    const store = this.#store;
    if (!store) return;
    this.save(entries);
    if (replaced) store.deleteConversation(previous).catch(() => {});
    for (const e of entries) if (replaced || start || isLocalId(e.id)) this.persist(e);
  }

  /**
   * A new record of the shown conversation, updated `now`: its agent or model from the options, else from
   * `base` (the conversation it replaces), created when `base` was (else at `createdAt`, else now).
   */
  #recordOf(entries: readonly ConversationEntry[], now: string, base: CachedConversation | null, createdAt?: string): CachedConversation {
    const { agentId, model } = this.#options;
    return {
      id: this.#host.state.conversationId!, title: titleOf(entries), agentId: agentId ?? base?.agentId ?? null,
      model: agentId ? null : model ?? base?.model ?? null, createdAt: base?.createdAt ?? createdAt ?? now, updatedAt: now,
    };
  }

  #twins() {
    return { aliases: this.#aliases, keep: new Set(this.#host.unsent) };
  }

  #learn(reconciled: Reconciled): Reconciled {
    for (const [from, to] of reconciled.renamed) this.#aliases.set(from, to);
    return reconciled;
  }
}
