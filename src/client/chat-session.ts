/**
 * The state machine of one chat: what `<agent-chat>` renders. No DOM: an element subscribes and
 * renders `state`; all I/O goes through the client and the history store. The session holds the
 * states, the turns and the public API; it constructs four collaborators, each seeing only a narrow
 * host: the transport (conversation-transport.ts), history sync (history-sync.ts), the messages waiting
 * for the connection (waiting-turns.ts) and tab leadership (tab-leadership.ts). The client-tool round
 * limit is a policy of its own (tool-rounds.ts); the calls waiting for the visitor's consent are kept by
 * tool-approvals.ts. Both load with `import()` (client-tools.ts) once a session with `tools` needs them.
 */
import type {
  CachedConversation, CachedEntry, ChatSessionApi, ChatSessionOptions, ChatState, ConversationStream, HistoryStoreApi, InflightReply, WaitingTurn,
} from './contracts.js';
import type { ConversationEvent, ConversationInputs, InputContentChunk } from './types.js';
import { isBlankMessage, withText } from './message-content.js';
import {
  agentNameIn, applyEvent, completeEntries, isInputEntry, isLocalId, lastReply, markCutReply, markInterrupted, resumable, toInput, userEntry,
} from './chat-entries.js';
import { NETWORK_ERROR, PlatformError, isAbortError } from './errors.js';
import { ConversationTransport, inputTurn, type Turn } from './conversation-transport.js';
import { HistorySync } from './history-sync.js';
import { WaitingTurns, inBrowser, isOffline } from './waiting-turns.js';
import type { ApprovalsHost, ToolApprovals } from './tool-approvals.js';
import type { FunctionCallEntry } from './types.js';
import { STREAM_GONE } from './conversation-stream.js';
import { LatestRun, type RunToken } from './latest-run.js';
import { TabLeadership, type Lead } from './tab-leadership.js';

/** The client-tool code (rounds and approvals), loaded the first time a session with `tools` needs it. */
const clientTools = () => import('./client-tools.js');

/** A notice shown after old conversations were evicted for space. */
export const EVICTED_NOTICE = 'Older conversations were removed from this device to free space.';
/** A notice shown when the conversation could not be saved on this device. */
export const NOT_SAVED_NOTICE = 'This conversation could not be saved on this device.';

/** A turn that failed, kept for `retry()`. */
interface FailedTurn {
  turn: Turn;
  /** Whether the server stored the turn's inputs (`conversation.response.started` arrived). */
  reachedServer: boolean;
}

/** One user action in progress (send, retry, regenerate, edit): stop() aborts it. */
interface ActiveTurn extends Lead {
  /** Its run: stale once a newer action starts (see LatestRun). */
  run: RunToken;
  controller: AbortController;
  /** The turn's stream while it runs. */
  stream?: ConversationStream;
}

/**
 * Implements {@link ChatSessionApi}. Status: `ready → submitted → streaming → ready | error`.
 *
 * Decisions where the contract leaves room:
 * - `send` while a reply is in progress rejects (stop first); `send` resolves once the turn, any
 *   client-tool rounds and the reconciliation with the server are done, and does not reject for
 *   platform errors: they are in `state.error`.
 * - Restarts (`regenerate`, `edit`, and `retry` of a turn the server had stored) make a NEW
 *   conversation; the session switches to it. In the history store the new conversation replaces
 *   the old one (same title and creation date; the old id is removed from the store) so the list
 *   shows one conversation, not one per regeneration. The old conversation stays on the server.
 * - `retry()`: if the failed turn never reached the server (no `conversation.response.started`),
 *   the same request is sent again (start or append: the server has no copy of its inputs). If it
 *   did, the server stored its inputs (and maybe part of a reply), so the session restarts from the
 *   turn's last input entry (the user message, or the function results) without new inputs: no
 *   duplicated user message, and the partial reply is dropped.
 * - `edit` of the first message starts a new conversation (restart needs an entry before it).
 * - Client tools: calls whose name is in `options.tools` are run (in parallel), their results are
 *   appended and the continuation streamed, up to 8 rounds per `send` (tool-rounds.ts). Calls without a
 *   registered tool stay shown (pending) and the session returns to ready.
 * - Approvals: a tool with `requiresApproval` waits (status `submitted`, the call in `state.approvals`) for
 *   `decideToolCall`; stop() withdraws the question and answers nothing (the call stays pending). A reload
 *   while a call waited asks again: `load` of a conversation whose last turn has unanswered calls of the
 *   page's tools, one of them needing consent, asks again, then answers that turn's calls and goes on.
 * - Inputs that never reached the server (a turn stopped or failed before `conversation.response.started`)
 *   stay shown and are sent again with the next `send`, before its message, so nothing the user wrote is lost.
 * - `retry()` after a `load` that failed with nothing cached loads again.
 * - Loading a conversation does not make it "recently updated": only new turns move it up the list.
 * - Eviction notices stay in `state.notice` until the next `send`, `load` or `reset`.
 * - Resuming (issue 16): while a relayed reply streams, where it is (stream id, last event id) is kept in
 *   the store with its entries; `load` of a conversation with such a point resumes the reply from the relay
 *   instead of showing it cut. A reply the relay no longer has (410) is read from the server's history,
 *   without an error when it is complete there. A stop is never resumed.
 * - Tabs (with a store, BroadcastChannel and Web Locks): one tab streams a reply for all; tabs showing that
 *   conversation follow it (`state.following`) and take the stream over from the stored point when the
 *   streaming tab goes away (tab-leadership.ts). A stop in a following tab stops the reply in the streaming one.
 * - Offline: a message sent while `navigator.onLine` is false, or whose turn got no answer at all, stays in
 *   the transcript (`state.waiting`) and is sent when the browser says it is online again; `cancelWaiting()` drops it.
 * - Offline across reloads: a waiting turn is also kept in the store (see waiting-turns.ts: how tabs sharing
 *   the store send it once). `load` shows a conversation's waiting messages again after its history, waiting
 *   (sent on `online`, or at once when online); `restoreWaiting()` does the same for a first message on a new chat.
 */
export class ChatSession implements ChatSessionApi {
  readonly #options: ChatSessionOptions;
  readonly #transport: ConversationTransport;
  readonly #history: HistorySync;
  readonly #waiting: WaitingTurns;
  readonly #leadership: TabLeadership;
  readonly #approvalsHost: ApprovalsHost;
  /** The calls waiting for consent: made with the first call that asks. */
  #approvals: ToolApprovals | null = null;
  readonly #store: HistoryStoreApi | undefined;
  readonly #listeners = new Set<(state: ChatState) => void>();
  #state: ChatState;
  #active: ActiveTurn | null = null;
  /** Latest action wins: a load, reset or newer send makes the answers of older ones stale. */
  readonly #runs = new LatestRun();
  #failed: FailedTurn | null = null;
  /** Ids of page-made input entries whose turn never reached the server. */
  #unsent: string[] = [];
  #failedLoad: string | null = null;
  #defaultAgentName: string | null = null;
  #disposed = false;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.#transport = new ConversationTransport(options);
    this.#store = options.store;
    this.#state = initialState(null);
    const store = this.#store;
    if (store) {
      // Several sessions may share a store: chain, don't replace, the eviction callback.
      const previous = store.onEvicted;
      store.onEvicted = (ids) => {
        previous?.call(store, ids);
        if (!this.#disposed) this.#set({ notice: EVICTED_NOTICE });
      };
    }
    // What the collaborators see of the session (each takes the narrow part it needs: HistoryHost, …).
    const session = this;
    const host = {
      get state() { return session.#state; },
      set: (patch: Partial<ChatState>) => this.#set(patch),
      get unsent() { return session.#unsent; },
      set unsent(ids: string[]) { session.#unsent = ids; },
      get idle() { return !session.#disposed && !session.#isBusy(); },
      get active() { return session.#active; },
      notSaved: () => this.#notSaved(),
      next: () => this.#next(),
      perform: (run: RunToken, turn: Turn) => this.#perform(run, turn),
      get queued() { return !!session.#waiting.queued; },
      now: () => this.#runs.now(),
      stop: () => this.stop(),
      dedupe: (entries: readonly CachedEntry[]) => this.#history.dedupe(entries),
      catchUp: (run: RunToken) => this.#history.catchUp(run),
      resume: (run: RunToken, conversationId: string) => this.#resume(run, conversationId),
    };
    this.#leadership = new TabLeadership(host, store);
    this.#history = new HistorySync(host, options, this.#leadership.tabs);
    this.#waiting = new WaitingTurns(host, options);
    this.#approvalsHost = host;
  }

  get state(): ChatState {
    return this.#state;
  }

  subscribe(listener: (state: ChatState) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async send(message: string | readonly InputContentChunk[]): Promise<void> {
    this.#assertIdle('send');
    if (isBlankMessage(message)) return;
    const text = typeof message === 'string' ? message : [...message];
    const run = this.#next();
    this.#failed = null;
    this.#failedLoad = null;
    // Still waiting: the waiting messages go with this one (see below).
    const queued = this.#waiting.take();
    const user = userEntry(text);
    // Inputs that never reached the server go first, so the conversation has everything the user wrote.
    const unsent = this.#state.entries.filter((e) => this.#unsent.includes(e.id) && isInputEntry(e));
    const inputs: ConversationInputs = unsent.length || typeof text !== 'string' ? [...unsent, user].map(toInput) : text;
    const inputIds = [...unsent, user].map((e) => e.id);
    this.#set({ entries: [...this.#state.entries, user], status: 'submitted', error: null, notice: null, streamingEntryId: null, waiting: [] });
    void this.#resolveAgentName(run);
    const conversationId = this.#state.conversationId;
    let turn: Turn = conversationId ? { kind: 'append', conversationId, inputs, inputIds } : { kind: 'start', inputs, inputIds };
    if (isOffline()) return this.#waiting.wait(turn);
    if (queued?.stored) {
      // The waiting messages leave the store as they go out (another tab may have sent them already).
      const claimed = await this.#waiting.claim(run, turn, queued.turn.inputIds);
      if (!claimed) return;
      turn = claimed;
    }
    await this.#perform(run, turn);
  }

  cancelWaiting(): void {
    this.#waiting.cancel();
  }

  decideToolCall(toolCallId: string, allow: boolean): boolean {
    return this.#approvals?.decide(toolCallId, allow) ?? false;
  }

  stop(): void {
    const active = this.#active;
    // Another tab streams this reply: it stops it (and says so).
    if (!active && this.#leadership.stopLeader(this.#state.conversationId)) return;
    if (!active || active.controller.signal.aborted) return;
    active.controller.abort();
    this.#interrupt({ status: 'ready' });
  }

  async retry(): Promise<void> {
    if (this.#state.status !== 'error') return;
    if (this.#failedLoad) return this.load(this.#failedLoad);
    const failed = this.#failed;
    if (!failed) return;
    const run = this.#next();
    this.#failed = null;
    this.#set({ status: 'submitted', error: null, streamingEntryId: null });
    if (!failed.reachedServer) {
      await this.#perform(run, failed.turn);
      return;
    }
    const conversationId = this.#state.conversationId;
    const inflight = conversationId && this.#transport.canReconnect ? await this.#store?.getInflight?.(conversationId).catch(() => undefined) : undefined;
    if (!run.current()) return;
    // The connection was lost, the reply may still be on the relay: carry on from where it was.
    if (inflight) return this.#resumeFrom(run, inflight, this.#state.entries, false);
    const ok = conversationId && await this.#history.syncIds(run);
    if (!run.current()) return;
    const entries = this.#state.entries;
    let last = -1;
    for (let i = entries.length - 1; i >= 0; i--) {
      if (isInputEntry(entries[i]) && !isLocalId(entries[i].id)) {
        last = i;
        break;
      }
    }
    if (!ok || !conversationId || last < 0) {
      this.#failed = failed;
      this.#set({ status: 'error', error: this.#state.error ?? PlatformError.network() });
      return;
    }
    this.#set({ entries: entries.slice(0, last + 1) });
    await this.#perform(run, { kind: 'restart', conversationId, fromEntryId: entries[last].id, inputIds: [] });
  }

  async regenerate(entryId?: string): Promise<void> {
    this.#assertIdle('regenerate');
    const conversationId = this.#state.conversationId;
    if (!conversationId) return;
    const run = this.#next();
    this.#failed = null;
    const last = entryId ?? lastReply(this.#state.entries)?.id;
    if (!last) return;
    const target = await this.#serverId(run, last, isLocalId(last) || this.#state.entries.some((e) => isLocalId(e.id)));
    if (!target) return;
    const entries = this.#state.entries;
    const index = entries.findIndex((e) => e.id === target);
    let userIndex = -1;
    for (let i = index; i >= 0; i--) {
      const e = entries[i];
      if (e.type === 'message.input' && e.role === 'user') {
        userIndex = i;
        break;
      }
    }
    if (index < 0 || userIndex < 0 || isLocalId(entries[userIndex].id)) {
      throw new Error(index < 0 ? `No entry '${target}' in this conversation` : 'There is no user message before this reply to answer again');
    }
    this.#unsent = [];
    this.#set({ entries: entries.slice(0, userIndex + 1), status: 'submitted', error: null, notice: null, streamingEntryId: null });
    await this.#perform(run, { kind: 'restart', conversationId, fromEntryId: entries[userIndex].id, inputIds: [] });
  }

  async edit(entryId: string, text: string): Promise<void> {
    this.#assertIdle('edit');
    if (!text.trim()) return;
    const run = this.#next();
    this.#failed = null;
    const target = await this.#serverId(run, entryId, !!this.#state.conversationId && this.#state.entries.some((e) => isLocalId(e.id)));
    if (!target) return;
    const entries = this.#state.entries;
    const index = entries.findIndex((e) => e.id === target);
    const edited = entries[index];
    if (index < 0 || edited.type !== 'message.input' || edited.role !== 'user') {
      throw new Error(`No user message '${entryId}' in this conversation`);
    }
    // The edit changes the words: the message's attachments go with it again.
    const content = withText(edited.content, text);
    const user = userEntry(content);
    const inputs: ConversationInputs = typeof content === 'string' ? text : [toInput(user)];
    const conversationId = this.#state.conversationId;
    this.#unsent = [];
    this.#set({ entries: [...entries.slice(0, index), user], status: 'submitted', error: null, notice: null, streamingEntryId: null });
    if (index === 0 || !conversationId) {
      await this.#perform(run, { kind: 'start', inputs, inputIds: [user.id] });
      return;
    }
    const before = entries[index - 1];
    if (isLocalId(before.id)) {
      this.#set({ status: 'error', error: PlatformError.network() });
      return;
    }
    await this.#perform(run, { kind: 'restart', conversationId, fromEntryId: before.id, inputs, inputIds: [user.id] });
  }

  async load(conversationId: string): Promise<void> {
    this.#waiting.drop();
    this.#abortRun();
    const run = this.#next();
    this.#failed = null;
    this.#failedLoad = null;
    this.#unsent = [];
    this.#history.forget();
    this.#set({ ...initialState(this.#defaultAgentName), conversationId });
    let cached: CachedEntry[] = [];
    let inflight: InflightReply | undefined;
    let waiting: WaitingTurn | undefined;
    if (this.#store) {
      try {
        const [record, entries, point, queued] = await Promise.all([
          this.#store.getConversation(conversationId), this.#store.getEntries(conversationId),
          this.#transport.canReconnect ? this.#store.getInflight?.(conversationId) : undefined,
          this.#store.getWaiting?.(conversationId).catch(() => undefined),
        ]);
        this.#history.record = record ?? null;
        inflight = point;
        waiting = queued;
        // Two tabs write the store: a page-made copy of a message may sit beside the server's.
        const stored = this.#history.dedupe(entries);
        cached = inflight ? resumable(stored, inflight.entryId) : markCutReply(stored);
      } catch {
        cached = []; // an unreadable cache is no cache: the server answers below
      }
      if (!run.current()) return;
      if (cached.length) this.#set({ entries: cached, agentName: agentNameIn(cached) ?? this.#state.agentName });
    }
    void this.#resolveAgentName(run);
    if (inflight) {
      // A reply was streaming when this conversation was last seen: follow the tab streaming it, or resume it.
      this.#set({ status: 'streaming', streamingEntryId: inflight.entryId, following: true });
      await this.#leadership.takeOver(run, conversationId);
      return;
    }
    try {
      const history = await this.#options.client.conversations.history(conversationId);
      if (!run.current()) return;
      const { entries } = this.#history.adopt(conversationId, history.entries, (merged) => ({ agentName: agentNameIn(merged) ?? this.#state.agentName }));
      if (!this.#history.record) this.#history.save(entries, entries.at(-1)?.created_at);
    } catch (error) {
      if (!run.current()) return;
      // Offline (or gone from the server): the cached copy is still worth showing.
      if (!cached.length && !waiting) {
        this.#failedLoad = conversationId;
        this.#set({ status: 'error', error: PlatformError.from(error) });
      }
    }
    // Messages written offline in an earlier page: shown after the history, waiting again.
    if (waiting && run.current() && !this.#active) this.#waiting.restore(waiting);
    // A call was waiting for the visitor's consent when the page went away: asked again.
    const tools = this.#options.tools;
    if (!tools || !run.current() || this.#active || this.#isBusy()) return;
    const { callsAwaitingConsent } = await clientTools();
    const asked = run.current() && !this.#active && !this.#isBusy() ? callsAwaitingConsent(this.#state.entries, tools) : [];
    if (asked.length) await this.#perform(run, { calls: asked });
  }

  async restoreWaiting(): Promise<boolean> {
    const store = this.#store;
    const fresh = () => !this.#disposed && !this.#state.conversationId && !this.#state.entries.length && !this.#waiting.queued && !this.#isBusy();
    if (!store?.getWaiting || !fresh()) return false;
    const run = this.#runs.now();
    const record = await store.getWaiting(this.#waiting.newKey).catch(() => undefined);
    if (!record || !run.current() || !fresh()) return false;
    return this.#waiting.restore(record);
  }

  reset(): void {
    this.#waiting.drop();
    this.#abortRun();
    this.#runs.cancel();
    this.#failed = null;
    this.#failedLoad = null;
    this.#unsent = [];
    this.#history.forget();
    this.#set(initialState(this.#defaultAgentName));
  }

  async listConversations(): Promise<CachedConversation[]> {
    if (this.#store) return this.#store.listConversations();
    const list = await this.#options.client.conversations.list();
    return list.map((c) => ({
      id: c.id,
      title: c.name ?? '',
      agentId: 'agent_id' in c ? c.agent_id : null,
      model: 'model' in c ? c.model : null,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    }));
  }

  async deleteConversation(conversationId: string): Promise<void> {
    // A turn of this conversation in progress would keep it busy on the server (and write it back here).
    if (this.#state.conversationId === conversationId) this.reset();
    try {
      await this.#options.client.conversations.delete(conversationId);
    } catch (error) {
      if (!(error instanceof PlatformError && error.status === 404)) throw error;
    }
    await this.#store?.deleteConversation(conversationId);
  }

  dispose(): void {
    this.#waiting.drop();
    this.#abortRun();
    this.#disposed = true;
    this.#runs.cancel();
    this.#listeners.clear();
    this.#leadership.close();
  }

  // ------------------------------------------------------------ turns

  /**
   * Runs a turn and the client-tool rounds that follow it, then reconciles with the server. `{ calls }`:
   * starts by answering those calls (asked again after a reload) instead of streaming a turn.
   */
  async #perform(run: RunToken, first: Turn | { calls: FunctionCallEntry[] }): Promise<void> {
    const active: ActiveTurn = { run, controller: new AbortController() };
    this.#active = active;
    try {
      let next: Turn | null = 'calls' in first ? null : first;
      let calls = 'calls' in first ? first.calls : [];
      for (let round = 0; ; round++) {
        if (next) {
          const produced = await this.#stream(active, next);
          if (!produced || active.controller.signal.aborted || !run.current()) break;
          const tools = this.#options.tools;
          calls = tools ? (await clientTools()).callsToAnswer(this.#state.entries, produced, tools, round) : [];
          if (active.controller.signal.aborted || !run.current()) break;
        }
        const conversationId = this.#state.conversationId;
        if (!calls.length || !conversationId) break;
        this.#set({ status: 'submitted' });
        const { answerCalls, ToolApprovals } = await clientTools();
        const entries = await answerCalls(calls, this.#options.tools!, (call) => (this.#approvals ??= new ToolApprovals(this.#approvalsHost)).ask(call, active.controller.signal));
        if (!entries || active.controller.signal.aborted || !run.current()) break;
        this.#set({ entries: [...this.#state.entries, ...entries] });
        next = inputTurn(conversationId, entries);
      }
      if (run.current() && this.#state.status !== 'error') this.#set({ status: 'ready', streamingEntryId: null });
    } finally {
      if (this.#active === active) this.#active = null;
    }
    if (run.current()) await this.#history.syncIds(run);
  }

  /**
   * Streams one turn into the state. Returns the ids of the entries it produced when it finished
   * normally, null when it was stopped or failed (the failure is in the state).
   */
  async #stream(active: ActiveTurn, turn: Turn): Promise<Set<string> | null> {
    try {
      return await this.#streamTurn(active, turn);
    } finally {
      await this.#leadership.endLead(active);
    }
  }

  async #streamTurn(active: ActiveTurn, turn: Turn): Promise<Set<string> | null> {
    const produced = new Set<string>();
    let reachedServer = turn.kind === 'resume';
    let stream: ConversationStream;
    try {
      stream = this.#transport.open(turn, active.controller.signal);
      active.stream = stream;
      if (turn.kind === 'resume') this.#leadership.lead(active, turn.conversationId, turn.locked);
      for await (const event of stream) {
        if (!active.run.current() || active.controller.signal.aborted) break;
        if (event.type === 'conversation.response.started') {
          reachedServer = true;
          this.#unsent = [];
          // The server stored the inputs; a start or restart names a new conversation.
          const previous = this.#state.conversationId;
          this.#set({ conversationId: event.conversation_id, status: 'streaming' });
          this.#history.started(previous, turn.kind === 'start');
          this.#leadership.lead(active, event.conversation_id, false);
          this.#history.keepPoint(stream);
          continue;
        }
        this.#applyEvent(event, produced);
        this.#history.keepPoint(stream);
      }
    } catch (error) {
      if (!active.run.current()) return null;
      if (!reachedServer) this.#unsent = turn.inputIds;
      if (active.controller.signal.aborted || isAbortError(error)) return null;
      const failure = PlatformError.from(error);
      if (!reachedServer && failure.type === NETWORK_ERROR && inBrowser() && (turn.kind === 'start' || turn.kind === 'append')) {
        // No answer at all: most likely offline. The message waits for the connection.
        this.#waiting.wait(turn);
        return null;
      }
      if (failure.code === STREAM_GONE) {
        // The relay no longer has the reply: shown from the server's history, without an error when complete there.
        const { conversationId, streamingEntryId } = this.#state;
        const history = conversationId && await this.#transport.recoverGone(conversationId, streamingEntryId);
        if (history && active.run.current()) {
          this.#history.adopt(conversationId, history, () => ({ streamingEntryId: null }));
          return null;
        }
      }
      if (!active.run.current()) return null;
      if (failure.type === 'stream_error' && active.stream?.resumePoint) active.keepInflight = true;
      this.#failed = { turn, reachedServer };
      this.#interrupt({ status: 'error', error: failure });
      return null;
    }
    if (!active.run.current()) return null;
    if (active.controller.signal.aborted) {
      if (!reachedServer) this.#unsent = turn.inputIds;
      return null;
    }
    const entries = completeEntries(this.#state.entries, produced);
    this.#set({ entries, streamingEntryId: null });
    for (const e of entries) if (produced.has(e.id)) this.#history.persist(e);
    return produced;
  }

  /** Holding the conversation's stream lock: resumes its reply from the stored point, or shows the server's history when there is none. */
  async #resume(run: RunToken, conversationId: string): Promise<void> {
    const inflight = await this.#store?.getInflight?.(conversationId).catch(() => undefined);
    if (!run.current()) return;
    if (!inflight || !this.#transport.canReconnect) {
      this.#set({ status: 'ready', streamingEntryId: null, following: false });
      return this.#history.catchUp(run);
    }
    // The stored entries are those of the stored point (one batch): resume from there.
    const entries = await this.#store!.getEntries(conversationId).catch(() => this.#state.entries);
    if (run.current()) await this.#resumeFrom(run, inflight, this.#history.dedupe(entries), true);
  }

  /** Streams the reply at `from` again, over `entries` as they were there (`locked`: the stream lock is held). */
  #resumeFrom(run: RunToken, from: InflightReply, entries: CachedEntry[], locked: boolean): Promise<void> {
    this.#set({ entries: resumable(entries, from.entryId), status: 'streaming', streamingEntryId: from.entryId, following: false });
    return this.#perform(run, { kind: 'resume', conversationId: from.conversationId, from, locked, inputIds: [] });
  }

  /** `id` as the server names it, after reconciling the page's temporary ids when `sync`; null when the run went stale meanwhile. */
  async #serverId(run: RunToken, id: string, sync: boolean): Promise<string | null> {
    if (!sync) return id;
    const renamed = await this.#history.syncIds(run);
    return run.current() ? renamed?.get(id) ?? id : null;
  }

  #applyEvent(event: ConversationEvent, produced: Set<string>): void {
    const { entries, changed } = applyEvent(this.#state.entries, event);
    if (!changed) return;
    produced.add(changed.id);
    const patch: Partial<ChatState> = { entries, streamingEntryId: changed.id, status: 'streaming' };
    if (event.type === 'agent.handoff.done' && event.next_agent_name) patch.agentName = event.next_agent_name;
    this.#set(patch);
    this.#history.persist(changed);
  }

  #notSaved(): void {
    if (!this.#disposed && this.#state.notice !== EVICTED_NOTICE) this.#set({ notice: NOT_SAVED_NOTICE });
  }

  // ------------------------------------------------------------ helpers

  async #resolveAgentName(run: RunToken): Promise<void> {
    const agentId = this.#history.record?.agentId ?? this.#options.agentId;
    if (!agentId || this.#state.agentName) return;
    try {
      const agent = await this.#options.client.agents.get(agentId);
      if (agentId === (this.#history.record?.agentId ?? this.#options.agentId)) {
        if (agentId === this.#options.agentId) this.#defaultAgentName = agent.name;
        if (run.current() && !this.#state.agentName) this.#set({ agentName: agent.name });
      }
    } catch {
      // The name is decoration; the chat works without it.
    }
  }

  #abortRun(): void {
    this.#leadership.unfollow();
    const active = this.#active;
    if (active && !active.controller.signal.aborted) {
      // Not a stop: the reply carries on on the relay and can be resumed (its point stays in the store).
      active.detached = true;
      active.stream?.detach?.();
      active.controller.abort();
      this.#interrupt();
    }
    this.#active = null;
  }

  /** Marks the reply streaming now cut (kept, and stored so) with `patch`; without `patch`, only when there was one. */
  #interrupt(patch?: Partial<ChatState>): void {
    const { entries, changed } = markInterrupted(this.#state.entries, this.#state.streamingEntryId);
    if (changed || patch) this.#set({ entries, streamingEntryId: null, ...patch });
    if (changed) this.#history.persist(changed);
  }

  #isBusy(): boolean {
    return this.#state.status === 'submitted' || this.#state.status === 'streaming';
  }

  #assertIdle(action: string): void {
    if (this.#disposed) throw new Error(`Cannot ${action}: the chat session was disposed`);
    if (this.#isBusy()) throw new Error(`Cannot ${action} while a reply is in progress; stop it first`);
  }

  /** Starts a run (every earlier one goes stale); once the session is disposed, runs are stale from the start. */
  #next(): RunToken {
    const run = this.#runs.next();
    if (this.#disposed) this.#runs.cancel();
    return run;
  }

  #set(patch: Partial<ChatState>): void {
    this.#state = { ...this.#state, ...patch };
    const state = this.#state;
    for (const listener of [...this.#listeners]) {
      try {
        listener(state);
      } catch (error) {
        // A broken listener must not break the chat; report it where errors are reported.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

function initialState(agentName: string | null): ChatState {
  return { conversationId: null, entries: [], streamingEntryId: null, status: 'ready', error: null, agentName, notice: null, waiting: [], following: false, approvals: [] };
}
