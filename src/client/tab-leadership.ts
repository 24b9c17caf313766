/**
 * Which tab streams a conversation's reply, over tab-sync.ts (issue 16, item 3). The tab that streams it
 * leads: it holds the lock `parley:stream:<conversation>` and tells the others each entry change. Tabs
 * showing that conversation follow (`state.following`): they show what the leader tells them, wait on the
 * lock and take the stream over from the stored point when the leading tab goes away. A stop in a
 * following tab stops the reply in the leading one. ChatSession owns the state and the runs; this keeps
 * the channel's side of them, through {@link LeadershipHost}.
 */
import type { CachedEntry, ChatState, ConversationStream, HistoryStoreApi } from './contracts.js';
import type { RunToken } from './latest-run.js';
import { isInputEntry, isLocalId } from './chat-entries.js';
import { TabSync, hasLocks, holdStreamLock, withStreamLock, type TabMessage } from './tab-sync.js';

/** What leadership keeps on a run of the session (its ActiveTurn). */
export interface Lead {
  /** The conversation whose stream lock this run holds (it streams for every tab), and how to let go. */
  leading?: { conversationId: string; release: () => void };
  /** Left to be resumed (another conversation shown, disposed): the relay keeps the reply, the store its point. */
  detached?: boolean;
  /** The connection was lost for good: the point stays in the store, so a reload or `retry()` resumes. */
  keepInflight?: boolean;
  /** The run's stream, once open. */
  stream?: Pick<ConversationStream, 'resumePoint'>;
}

/** What tab leadership needs of the session. */
export interface LeadershipHost {
  readonly state: ChatState;
  set(patch: Partial<ChatState>): void;
  /** The run this tab streams now, if any. */
  readonly active: Lead | null;
  /** Whether messages wait for the connection here (such a tab does not follow another). */
  readonly queued: boolean;
  /** The current run, joined (starts none). */
  now(): RunToken;
  /** Stops the reply this tab streams. */
  stop(): void;
  /** `entries` without page-made copies of entries they hold under server ids (see HistorySync.dedupe). */
  dedupe(entries: readonly CachedEntry[]): CachedEntry[];
  /** Shows the server's history of the conversation (the reply another tab finished). */
  catchUp(run: RunToken): Promise<void>;
  /** Holding the stream lock: resumes the conversation's reply from the stored point, or shows the server's history. */
  resume(run: RunToken, conversationId: string): Promise<void>;
}

export class TabLeadership {
  /** The channel to this site's other tabs (null without a store or BroadcastChannel: each tab streams for itself). */
  readonly tabs: TabSync | null;
  readonly #host: LeadershipHost;
  readonly #store: Pick<HistoryStoreApi, 'name' | 'deleteInflight'> | undefined;
  /** Following another tab's stream of this conversation (aborted when this page shows another one). */
  #follow: AbortController | null = null;

  /** Opens the channel named after `store` (tabs showing the same store talk on it). */
  constructor(host: LeadershipHost, store: Pick<HistoryStoreApi, 'name' | 'deleteInflight'> | undefined) {
    this.#host = host;
    this.#store = store;
    this.tabs = store?.name && typeof (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel === 'function'
      ? new TabSync(store.name, (message) => this.#onTab(message))
      : null;
  }

  /** `run` streams `conversationId` for every tab: it holds the lock (unless `locked`) and says so. */
  lead(run: Lead, conversationId: string, locked: boolean): void {
    if (run.leading?.conversationId === conversationId) return;
    run.leading?.release();
    run.leading = { conversationId, release: this.tabs && !locked ? holdStreamLock(conversationId) : () => {} };
    this.tabs?.post({ kind: 'streaming', conversationId, entryId: this.#host.state.streamingEntryId });
  }

  /** The run's stream ended: unless left to be resumed, nothing is to resume; the lock goes (after the store has that). */
  async endLead(run: Lead): Promise<void> {
    const leading = run.leading;
    run.leading = undefined;
    const conversationId = leading?.conversationId ?? (run.stream?.resumePoint ? this.#host.state.conversationId : null);
    if (!conversationId) return;
    if (!run.detached && !run.keepInflight) await this.#store?.deleteInflight?.(conversationId).catch(() => {});
    if (!run.detached) this.tabs?.post({ kind: 'ended', conversationId });
    leading?.release();
  }

  /**
   * Waits until no tab streams `conversationId` (`following` the one that does), then has the session resume
   * its reply from the stored point (see {@link LeadershipHost.resume}).
   */
  async takeOver(run: RunToken, conversationId: string, following = false): Promise<void> {
    this.#follow?.abort();
    const follow = new AbortController();
    this.#follow = follow;
    // Without Web Locks a following tab cannot tell when the streaming one is gone: it waits for 'ended'.
    if (following && !hasLocks()) return;
    await withStreamLock(conversationId, follow.signal, async () => {
      if (this.#follow !== follow || !run.current()) return;
      this.#follow = null;
      await this.#host.resume(run, conversationId);
    });
    if (this.#follow === follow) this.#follow = null;
  }

  /** Stops following (another conversation is shown, or none). */
  unfollow(): void {
    this.#follow?.abort();
    this.#follow = null;
  }

  /** A stop pressed while following: the leading tab stops the reply (and says so). False when this tab follows none. */
  stopLeader(conversationId: string | null): boolean {
    if (!this.#follow || !conversationId) return false;
    this.tabs?.post({ kind: 'stop', conversationId });
    return true;
  }

  close(): void {
    this.tabs?.close();
  }

  /** A message from another tab of this site. */
  #onTab(message: TabMessage): void {
    const host = this.#host;
    const { state } = host;
    if (message.conversationId !== state.conversationId) return;
    const ours = !!host.active;
    switch (message.kind) {
      case 'entry': {
        if (ours) return;
        const entry = message.entry;
        const index = state.entries.findIndex((e) => e.id === entry.id);
        let entries = index < 0 ? [...state.entries, entry] : state.entries.map((e, i) => (i === index ? entry : e));
        // The streaming tab's copy of a message this tab already has under its server id (read from the history first).
        if (index < 0 && isLocalId(entry.id)) entries = host.dedupe(entries);
        const streaming = !isInputEntry(entry) && !entry.completed_at && !entry.interrupted;
        host.set(streaming && this.#follow
          ? { entries, streamingEntryId: entry.id, status: 'streaming' }
          : { entries });
        return;
      }
      case 'streaming':
        if (ours || this.#follow || host.queued) return;
        host.set({ status: 'streaming', streamingEntryId: message.entryId, error: null, following: true });
        void this.takeOver(host.now(), message.conversationId, true);
        return;
      case 'ended':
        if (ours) return;
        this.unfollow();
        host.set({ status: 'ready', streamingEntryId: null, following: false });
        void host.catchUp(host.now());
        return;
      case 'stop':
        if (ours && host.active?.leading?.conversationId === message.conversationId) host.stop();
        return;
    }
  }
}
