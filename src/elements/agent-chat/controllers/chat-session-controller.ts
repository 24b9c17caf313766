/**
 * The chat session of `<agent-chat>`: creates a `ChatSession` from the element's attributes (or attaches
 * the one the host gives), with the page's history store and shared client; follows its state; lists,
 * opens and deletes conversations; runs the turns and shows what failed outside them.
 */
import type { ReactiveController } from 'lit';
import { ChatSession } from '../../../client/index.js';
import { contentText } from '../../../client/message-content.js';
import { LatestRun } from '../../../client/latest-run.js';
import type {
  CachedConversation, ChatSessionApi, ChatState, ClientTool, PlatformErrorShape,
} from '../../../client/contracts.js';
import type { InputContentChunk, Tool } from '../../../client/types.js';
import type { ParleyElement } from '../../internal/parley-element.js';
import { openSharedStore, sharedClient } from '../../internal/shared-client.js';
import { lastReply, transcriptItems } from '../transcript.js';
import type { TranscriptItem } from '../transcript.js';

/** What the controller reads of `<agent-chat>`. */
export interface ChatSessionHost extends ParleyElement {
  relayUrl: string;
  agentId: string;
  model: string;
  agentVersion: string;
  handoffExecution: 'server' | 'client' | '';
  instructions: string;
  resume: 'latest' | 'none';
  tools: Record<string, ClientTool> | null;
  toolDefinitions: Tool[] | null;
  session: ChatSessionApi | null;
}

/** What the element does when the session moves on (called in this order within one state change). */
export interface ChatSessionHooks {
  /** Whether the conversation list is shown (it is listed again when the session or conversation changes). */
  listShown(): boolean;
  /** Another conversation is shown (a new, empty one too); before `parley-conversation-changed`. */
  conversationChanged(): void;
  /** A reply finished streaming (not stopped by the user): the turn's last reply, null when it had none. */
  replyFinished(reply: (TranscriptItem & { kind: 'assistant' }) | null): void;
  /** A reply is streaming and grew (see `streamingReply`). */
  replyGrew(): void;
  /** The turn ended (finished, stopped or failed). */
  turnEnded(): void;
  /** A message went out (`sending`), its reply's first words arrived (`writing`), or a turn or request failed. */
  progress(step: 'sending' | 'writing' | 'failed', error?: PlatformErrorShape): void;
}

const EMPTY_STATE: ChatState = {
  conversationId: null, entries: [], streamingEntryId: null, status: 'ready', error: null, agentName: null, notice: null,
};

function isBusy(state: ChatState): boolean {
  return state.status === 'submitted' || state.status === 'streaming';
}

function asErrorShape(error: unknown): PlatformErrorShape {
  if (error && typeof error === 'object' && 'status' in error && 'message' in error) {
    const e = error as Partial<PlatformErrorShape>;
    return { status: e.status ?? 0, type: e.type ?? null, code: e.code ?? null, message: String(e.message), retryAfter: e.retryAfter ?? null };
  }
  return { status: 0, type: 'client_error', code: null, message: error instanceof Error ? error.message : String(error), retryAfter: null };
}

/** The session behind `<agent-chat>` and the state it renders; see the module comment. */
export class ChatSessionController implements ReactiveController {
  /** The session's state: conversation, entries, status, error, agent speaking, notice. */
  state: ChatState = EMPTY_STATE;
  /** The saved conversations, once listed. */
  conversations: CachedConversation[] | null = null;
  /** Replies the user stopped (their text stays, marked as interrupted). */
  stoppedIds: ReadonlySet<string> = new Set();

  readonly #host: ChatSessionHost;
  readonly #hooks: ChatSessionHooks;
  #active: ChatSessionApi | null = null;
  #owned: ChatSessionApi | null = null;
  #unsubscribe: (() => void) | null = null;
  /** Creating a session is a run: a newer one, a session given by the host or a disconnect makes it stale. */
  readonly #creating = new LatestRun();
  #configChanged = true;
  #stopRequested = false;
  /** The conversation shown when the element was disconnected: shown again if it is reconnected (moved in the page). */
  #resumeConversationId: string | null = null;
  #localError: PlatformErrorShape | null = null;
  /** The transcript items of the last entries seen: a render that is not a new delta (typing, focus) does not rebuild them. */
  #items: { entries: ChatState['entries']; items: TranscriptItem[] } | null = null;

  // The session sees the page's tools through this view, so `tools` may change after it was created.
  readonly #toolView: Record<string, ClientTool> = new Proxy({} as Record<string, ClientTool>, {
    get: (_target, name) => (typeof name === 'string' ? this.#host.tools?.[name] : undefined),
    has: (_target, name) => typeof name === 'string' && !!this.#host.tools && Object.hasOwn(this.#host.tools, name),
    ownKeys: () => Object.keys(this.#host.tools ?? {}),
    getOwnPropertyDescriptor: (_target, name) => {
      const tools = this.#host.tools;
      return typeof name === 'string' && tools && Object.hasOwn(tools, name)
        ? { value: tools[name], enumerable: true, configurable: true, writable: false }
        : undefined;
    },
  });

  constructor(host: ChatSessionHost, hooks: ChatSessionHooks) {
    this.#host = host;
    this.#hooks = hooks;
    host.addController(this);
  }

  /** The session the element talks through (the host's or its own), or null while there is none. */
  get session(): ChatSessionApi | null {
    return this.#active;
  }

  /** A reply is awaited or streaming. */
  get busy(): boolean {
    return isBusy(this.state);
  }

  /** What failed outside a turn (creating the session, listing, loading, deleting); a turn's error is in `state`. */
  get localError(): PlatformErrorShape | null {
    return this.#localError;
  }

  /** The reply being streamed (its id and markdown so far), or null. */
  get streamingReply(): { id: string; text: string } | null {
    const { entries, streamingEntryId } = this.state;
    const entry = streamingEntryId ? entries.find((e) => e.id === streamingEntryId) : undefined;
    return entry?.type === 'message.output' ? { id: entry.id, text: contentText(entry.content) } : null;
  }

  /** The transcript rows of the current entries (rebuilt only when the entries change). */
  get items(): TranscriptItem[] {
    const entries = this.state.entries;
    if (this.#items?.entries !== entries) this.#items = { entries, items: transcriptItems(entries) };
    return this.#items.items;
  }

  hostConnected(): void {
    if (this.#host.session) this.#attach(this.#host.session);
    else this.#configChanged = true;
    if (this.#host.hasUpdated) this.#host.requestUpdate();
  }

  hostUpdated(): void {
    if (this.#configChanged && !this.#host.session && this.#host.isConnected) {
      this.#configChanged = false;
      void this.#create();
    }
  }

  hostDisconnected(): void {
    if (this.#owned) this.#resumeConversationId = this.state.conversationId;
    this.#creating.cancel();
    this.#detach();
    this.#disposeOwned();
  }

  /** The element's `session` property changed (`hadOne`: it held a session before). */
  sessionPropertyChanged(hadOne: boolean): void {
    if (this.#host.session) {
      this.#creating.cancel();
      this.#disposeOwned();
      this.#attach(this.#host.session);
    } else if (hadOne) {
      this.#detach();
      this.#configChanged = true;
    }
  }

  /** Another relay, agent, model or session option: a new session is created after the update. */
  optionsChanged(): void {
    this.#configChanged = true;
    this.#resumeConversationId = null; // the old conversation is not theirs
  }

  /** Sends a user message (the caller checked it is not blank and nothing streams). */
  async send(message: string | readonly InputContentChunk[]): Promise<void> {
    const session = this.#active;
    if (!session) return;
    this.#setLocalError(null);
    await this.#run(() => session.send(message));
  }

  /** Replaces the user message `entryId` with `text` and sends it again (what came after it is dropped). */
  async edit(entryId: string, text: string): Promise<void> {
    const session = this.#active;
    if (session) await this.#run(() => session.edit(entryId, text));
  }

  /** Asks again for the reply `entryId`. */
  async regenerate(entryId: string): Promise<void> {
    const session = this.#active;
    if (session) await this.#run(() => session.regenerate(entryId));
  }

  /** Stops the reply being streamed; what arrived stays, marked as interrupted. */
  stop(): void {
    const session = this.#active;
    if (!session || !this.busy) return;
    this.#stopRequested = true;
    const id = this.state.streamingEntryId;
    if (id) {
      this.stoppedIds = new Set([...this.stoppedIds, id]);
      this.#host.requestUpdate();
    }
    session.stop();
  }

  /** Drops the messages waiting for the connection instead of sending them. */
  cancelWaiting(): void {
    this.#active?.cancelWaiting?.();
  }

  /**
   * The error box's retry: creates the session again when it could not be, dismisses a failure outside
   * a turn (the user repeats the action), or sends the failed turn again.
   */
  async retry(): Promise<void> {
    const session = this.#active;
    if (!session) {
      this.#setLocalError(null);
      this.#configChanged = !this.#host.session;
      this.#host.requestUpdate();
      return;
    }
    if (this.#localError && !this.state.error) {
      this.#setLocalError(null);
      return;
    }
    this.#setLocalError(null);
    await this.#run(() => session.retry());
  }

  /** Lists the saved conversations into `conversations`. */
  async refreshConversations(): Promise<void> {
    const session = this.#active;
    if (!session) return;
    try {
      this.conversations = await session.listConversations();
      this.#host.requestUpdate();
    } catch (error) {
      this.#setLocalError(asErrorShape(error));
    }
  }

  /** Shows the saved conversation `id`. */
  async open(id: string): Promise<void> {
    const session = this.#active;
    if (session) await this.#run(() => session.load(id));
  }

  /** Deletes the saved conversation `id` and lists the others. */
  async delete(id: string): Promise<void> {
    const session = this.#active;
    if (!session) return;
    await this.#run(() => session.deleteConversation(id));
    await this.refreshConversations();
  }

  /** Starts a new, empty conversation. */
  reset(): void {
    this.#active?.reset();
    this.#setLocalError(null);
  }

  async #create(): Promise<void> {
    const host = this.#host;
    const run = this.#creating.next();
    this.#detach();
    this.#disposeOwned();
    if (!host.relayUrl || (!host.agentId && !host.model)) return;
    const relayUrl = new URL(host.relayUrl, document.baseURI).href.replace(/\/+$/, '');
    const store = await openSharedStore();
    const client = await sharedClient(relayUrl);
    if (!run.current() || !host.isConnected || host.session) return;
    try {
      const version = host.agentVersion.trim();
      const session = new ChatSession({
        client,
        store,
        ...(host.agentId ? { agentId: host.agentId } : { model: host.model }),
        ...(host.agentId && version ? { agentVersion: /^\d+$/.test(version) ? Number(version) : version } : {}),
        ...(!host.agentId && host.instructions ? { instructions: host.instructions } : {}),
        ...(!host.agentId && host.toolDefinitions?.length ? { toolDefinitions: host.toolDefinitions } : {}),
        ...(host.handoffExecution ? { handoffExecution: host.handoffExecution } : {}),
        tools: this.#toolView,
      });
      this.#owned = session;
      this.#attach(session);
      const kept = this.#resumeConversationId;
      this.#resumeConversationId = null;
      // A first message written offline for this agent/model (kept in the store across reloads) is what the
      // visitor did last: it is shown waiting, and sent when online, instead of resuming an older conversation.
      if (!kept && await session.restoreWaiting().catch(() => false)) return;
      const resume = kept ?? (host.resume === 'none' ? null : await this.#latestConversationId(session));
      if (resume && run.current() && !session.state.conversationId) await this.#run(() => session.load(resume));
    } catch (error) {
      this.#setLocalError(asErrorShape(error));
      host.emit('parley-error', { error: this.#localError! });
    }
  }

  /** The most recent cached conversation with this element's agent (or model), if any. */
  async #latestConversationId(session: ChatSessionApi): Promise<string | null> {
    const conversations = await session.listConversations().catch(() => []);
    const { agentId, model } = this.#host;
    const mine = conversations.find((c) => (agentId ? c.agentId === agentId : c.model === model));
    return mine?.id ?? null;
  }

  #attach(session: ChatSessionApi): void {
    if (this.#active === session && this.#unsubscribe) return;
    this.#detach();
    this.#active = session;
    this.#setState(session.state);
    this.#unsubscribe = session.subscribe((next) => this.#onState(next));
    if (this.#hooks.listShown()) void this.refreshConversations();
  }

  #detach(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#active = null;
  }

  #disposeOwned(): void {
    const owned = this.#owned;
    this.#owned = null;
    if (owned) {
      if (this.#active === owned) this.#detach();
      owned.dispose();
    }
  }

  #onState(next: ChatState): void {
    const previous = this.state;
    this.#setState(next);
    if (next.conversationId !== previous.conversationId) {
      this.#hooks.conversationChanged();
      this.#host.emit('parley-conversation-changed', { conversationId: next.conversationId });
      if (this.#hooks.listShown()) void this.refreshConversations();
    }
    if (next.status === 'submitted' && previous.status !== 'submitted') this.#hooks.progress('sending');
    if (next.status === 'streaming' && previous.status === 'submitted') this.#hooks.progress('writing');
    const wasBusy = isBusy(previous);
    if (wasBusy && next.status === 'ready') {
      if (this.#stopRequested) this.#stopRequested = false;
      else this.#hooks.replyFinished(lastReply(this.items));
    }
    if (next.streamingEntryId && next.status === 'streaming') this.#hooks.replyGrew();
    if (next.error && next.error !== previous.error) {
      this.#stopRequested = false;
      this.#hooks.progress('failed', next.error);
      this.#host.emit('parley-error', { error: next.error });
    }
    if (wasBusy && !this.busy) this.#hooks.turnEnded();
  }

  /** A failure outside a turn (a reply read aloud that cannot be heard): shown in the error box until dismissed or the next turn. */
  showError(error: PlatformErrorShape): void {
    this.#setLocalError(error);
  }

  async #run(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      // The session reports turn failures in its state; anything else thrown is shown here.
      if (!this.state.error) {
        this.#setLocalError(asErrorShape(error));
        this.#host.emit('parley-error', { error: this.#localError! });
      }
    }
  }

  #setState(state: ChatState): void {
    this.state = state;
    this.#host.requestUpdate();
  }

  #setLocalError(error: PlatformErrorShape | null): void {
    if (error === this.#localError) return;
    this.#localError = error;
    if (error) this.#hooks.progress('failed', error);
    this.#host.requestUpdate();
  }
}
