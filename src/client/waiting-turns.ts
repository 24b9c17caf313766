/**
 * Messages waiting for the connection (issue 16): a message sent while `navigator.onLine` is false, or
 * whose turn got no answer at all, stays in the transcript (`state.waiting`) and is sent when the browser
 * says it is online again (a browser that believes it is online is tried again every WAIT_RETRY_MS).
 *
 * Across reloads and tabs: the waiting turn is also kept in the history store (its user entries, under the
 * conversation id, or `new:agent:<id>` / `new:model:<name>` for a first message). The record goes when the
 * messages are cancelled, their conversation deleted, or just before they are sent: the sending tab takes
 * it (read and deleted in one IndexedDB transaction, which tabs cannot interleave) and only a tab whose
 * take found it sends; a tab whose take found nothing drops its copy (another tab sent it). A send that
 * then gets no answer keeps it again; a send that fails otherwise leaves it to `retry()` in this page only.
 * ChatSession owns the state and sends; this keeps the queue, through {@link WaitingHost}.
 */
import type { ChatSessionOptions, ChatState, WaitingTurn } from './contracts.js';
import type { RunToken } from './latest-run.js';
import { byCreatedAt, nowIso } from './chat-entries.js';
import { inputTurn, type Turn } from './conversation-transport.js';

/** How long a message waits before it is tried again when the browser thinks it is online (the relay was unreachable). */
export const WAIT_RETRY_MS = 10_000;

/** Whether this runs in a browser (a network failure there before any answer means offline; under Node it is an error). */
export function inBrowser(): boolean {
  return typeof (globalThis as { navigator?: { onLine?: unknown } }).navigator?.onLine === 'boolean';
}

/** Whether the browser says it is offline (never under Node). */
export function isOffline(): boolean {
  return (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine === false;
}

/** What the waiting turns need of the session. */
export interface WaitingHost {
  readonly state: ChatState;
  set(patch: Partial<ChatState>): void;
  /** Ids of page-made inputs whose turn never reached the server (waiting messages are such inputs). */
  unsent: string[];
  /** Whether a send may start now (the session is not disposed and no reply is in progress). */
  readonly idle: boolean;
  /** Starts a run: every earlier one goes stale. */
  next(): RunToken;
  /** Sends `turn` as the action of `run` (and the tool rounds after it). */
  perform(run: RunToken, turn: Turn): Promise<void>;
  /** Tells the visitor the messages could not be saved on this device. */
  notSaved(): void;
}

export class WaitingTurns {
  readonly #host: WaitingHost;
  readonly #options: Pick<ChatSessionOptions, 'store' | 'agentId' | 'model'>;
  /** The turn waiting for the connection. */
  #queued: Turn | null = null;
  /** The queued turn's messages are in the store (so a take that finds nothing means another tab took them). */
  #stored = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onOnline = () => void this.#send();

  constructor(host: WaitingHost, options: Pick<ChatSessionOptions, 'store' | 'agentId' | 'model'>) {
    this.#host = host;
    this.#options = options;
  }

  /** The turn waiting for the connection, if any. */
  get queued(): Turn | null {
    return this.#queued;
  }

  /** The store key of a first message's waiting turn (no conversation yet): this session's agent or model. */
  get newKey(): string {
    const { agentId, model } = this.#options;
    return agentId ? `new:agent:${agentId}` : `new:model:${model ?? ''}`;
  }

  /**
   * Keeps `turn` until the browser is online again, in the store too unless `stored` says whether it is
   * there already.
   */
  wait(turn: Turn, stored?: boolean): void {
    if (stored === undefined) this.#keep(turn);
    else this.#stored = stored;
    this.#queued = turn;
    this.#host.unsent = turn.inputIds;
    this.#host.set({ status: 'ready', error: null, streamingEntryId: null, waiting: [...turn.inputIds] });
    globalThis.removeEventListener?.('online', this.#onOnline);
    globalThis.addEventListener?.('online', this.#onOnline, { once: true });
    // A browser that believes it is online (the relay was unreachable) gets no `online` event: try again later.
    clearTimeout(this.#timer);
    if (!isOffline()) this.#timer = setTimeout(this.#onOnline, WAIT_RETRY_MS);
  }

  /** Forgets the waiting turn (another conversation is shown; its messages stay in the store). */
  drop(): void {
    this.#queued = null;
    this.#stored = false;
    clearTimeout(this.#timer);
    globalThis.removeEventListener?.('online', this.#onOnline);
  }

  /**
   * A send takes the waiting turn along (its messages go first): they stop waiting here and count as unsent
   * until the send reaches the server. `stored`: they are in the store, to {@link claim} before they go.
   */
  take(): { turn: Turn; stored: boolean } | null {
    const turn = this.#queued;
    if (!turn) return null;
    const stored = this.#stored;
    const unsent = this.#host.unsent;
    this.#host.unsent = [...unsent, ...turn.inputIds.filter((id) => !unsent.includes(id))];
    this.drop();
    return { turn, stored };
  }

  /** Drops the waiting messages (`state.waiting`) from the transcript and the store instead of sending them. */
  cancel(): void {
    const { state, unsent } = this.#host;
    const waiting = new Set(state.waiting ?? []);
    if (!waiting.size && !this.#queued) return;
    const key = this.#queued ? this.#key(this.#queued) : null;
    if (key) this.#options.store?.deleteWaiting?.(key, [...waiting]).catch(() => this.#host.notSaved());
    this.drop();
    this.#host.unsent = unsent.filter((id) => !waiting.has(id));
    this.#host.set({ entries: state.entries.filter((e) => !waiting.has(e.id)), waiting: [] });
  }

  /**
   * Takes the turn's waiting messages (`waitingIds`) out of the store before they are sent. Those another tab
   * took meanwhile leave this transcript (that tab sends them); those another tab kept under the same key
   * join the turn. Null when nothing is left to send (the state is ready again) or the session moved on.
   */
  async claim(run: RunToken, turn: Turn, waitingIds: readonly string[]): Promise<Turn | null> {
    const key = this.#key(turn);
    const store = this.#options.store;
    if (!key || !store?.takeWaiting) return turn;
    let record: WaitingTurn | undefined;
    try {
      record = await store.takeWaiting(key);
    } catch {
      return run.current() ? turn : null; // an unreadable store: send what this page has
    }
    if (!run.current()) {
      // Another conversation is shown (or the page is going): the messages go back to wait.
      if (record) store.putWaiting?.(record).catch(() => {});
      return null;
    }
    const { entries } = this.#host.state;
    const gone = new Set(record ? [] : waitingIds);
    const shown = new Set(entries.map((e) => e.id));
    const extra = (record?.entries ?? []).filter((e) => !shown.has(e.id));
    if (!gone.size && !extra.length) return turn;
    const ids = new Set([...turn.inputIds.filter((id) => !gone.has(id)), ...extra.map((e) => e.id)]);
    const rest = entries.filter((e) => !ids.has(e.id) && !gone.has(e.id));
    const mine = [...entries.filter((e) => ids.has(e.id)), ...extra].sort(byCreatedAt);
    this.#host.unsent = this.#host.unsent.filter((id) => !gone.has(id));
    this.#host.set({ entries: [...rest, ...mine] });
    if (!mine.length) {
      this.#host.set({ status: 'ready' });
      return null;
    }
    return inputTurn(turn.kind === 'append' ? turn.conversationId : null, mine);
  }

  /** Shows messages kept waiting in the store (an earlier page) after the transcript, and waits to send them again. */
  restore(record: WaitingTurn): boolean {
    if (!record.entries.length) return false;
    const { entries } = this.#host.state;
    const have = new Set(entries.map((e) => e.id));
    this.#host.set({ entries: [...entries, ...record.entries.filter((e) => !have.has(e.id))] });
    this.wait(inputTurn(record.conversationId, record.entries), true);
    if (!isOffline()) void this.#send();
    return true;
  }

  /** Online again: the waiting turn goes out (unless the visitor is doing something else). */
  async #send(): Promise<void> {
    const turn = this.#queued;
    if (!turn || !this.#host.idle) return;
    if (isOffline()) return this.wait(turn, this.#stored);
    const stored = this.#stored;
    this.drop();
    const run = this.#host.next();
    this.#host.set({ status: 'submitted', error: null, waiting: [] });
    const claimed = stored ? await this.claim(run, turn, turn.inputIds) : turn;
    if (claimed) await this.#host.perform(run, claimed);
  }

  /** The store key of a turn's waiting messages: its conversation, or {@link newKey} for a first message. */
  #key(turn: Turn): string | null {
    if (turn.kind === 'append') return turn.conversationId;
    return turn.kind === 'start' ? this.newKey : null;
  }

  /** Writes the waiting turn's entries to the store (merged with what is there under its key). */
  #keep(turn: Turn): void {
    const key = this.#key(turn);
    const store = this.#options.store;
    this.#stored = false;
    if (!key || !store?.putWaiting) return;
    const ids = new Set(turn.inputIds);
    const entries = this.#host.state.entries.filter((e) => ids.has(e.id));
    if (!entries.length) return;
    this.#stored = true;
    store.putWaiting({ key, conversationId: turn.kind === 'append' ? turn.conversationId : null, entries, savedAt: nowIso() }).catch(() => {
      if (this.#queued === turn) this.#stored = false;
      this.#host.notSaved();
    });
  }
}
