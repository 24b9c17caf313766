/**
 * Tabs of one site showing the same conversation, in step (issue 16, item 3): a BroadcastChannel
 * (named after the history store) carries the streaming tab's entry changes to the others, and a Web
 * Lock per conversation (`parley:stream:<id>`) makes exactly one tab stream it from the relay; the
 * others wait on the lock and take over when the streaming tab goes away (the browser releases a
 * closed tab's locks). Where either API is missing (Node, old browsers) it does nothing: each tab
 * streams for itself, as before.
 */
import type { CachedEntry } from './contracts.js';

/** What tabs tell each other about a conversation. */
export type TabMessage =
  /** An entry of the conversation changed (a delta, a new user message, an interruption mark). */
  | { kind: 'entry'; conversationId: string; entry: CachedEntry }
  /** This tab streams a reply of the conversation now (it holds the lock). */
  | { kind: 'streaming'; conversationId: string; entryId: string | null }
  /** The reply ended (finished, stopped, failed): the store has its last state. */
  | { kind: 'ended'; conversationId: string }
  /** A following tab's visitor pressed stop: the streaming tab stops the reply. */
  | { kind: 'stop'; conversationId: string };

interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal; ifAvailable?: boolean }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/** The lock that the tab streaming a conversation's reply holds. */
export function streamLockName(conversationId: string): string {
  return `parley:stream:${conversationId}`;
}

function locks(): LockManagerLike | null {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks && typeof nav.locks.request === 'function' ? nav.locks : null;
}

/** Whether Web Locks exist here (else every tab streams for itself). */
export function hasLocks(): boolean {
  return !!locks();
}

/** How often entry changes go out at most: a long reply is a few messages a second, not one per delta. */
const ENTRY_INTERVAL_MS = 50;

/** One page's end of the channel; see the module comment. */
export class TabSync {
  readonly #channel: BroadcastChannel | null;
  /** Entry changes not sent yet, latest state per entry (sent in the order first changed). */
  #entries = new Map<string, TabMessage & { kind: 'entry' }>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Opens the channel of the store named `storeName`; `onMessage` hears the other tabs. */
  constructor(storeName: string, onMessage: (message: TabMessage) => void) {
    const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
    this.#channel = Channel ? new Channel(`parley:${storeName}`) : null;
    // Under Node an open channel keeps the process alive: it must not, for a session nobody disposed.
    (this.#channel as { unref?: () => void } | null)?.unref?.();
    if (this.#channel) {
      this.#channel.onmessage = (event: MessageEvent) => {
        const message = event.data as TabMessage;
        if (message && typeof message === 'object' && typeof message.conversationId === 'string') onMessage(message);
      };
    }
  }

  /** Sends a message; entry changes are coalesced (see ENTRY_INTERVAL_MS), the others flush them first. */
  post(message: TabMessage): void {
    if (!this.#channel) return;
    if (message.kind === 'entry') {
      const key = `${message.conversationId}\u0000${message.entry.id}`;
      this.#entries.set(key, message); // an entry already pending keeps its place
      this.#timer ??= setTimeout(() => this.#flush(), ENTRY_INTERVAL_MS);
      return;
    }
    this.#flush();
    this.#send(message);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = [...this.#entries.values()];
    this.#entries = new Map();
    for (const message of pending) this.#send(message);
  }

  #send(message: TabMessage): void {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // A closed channel (the page is leaving): the other tabs catch up from the store.
    }
  }

  /** Sends what is pending and closes the channel: nothing is heard after. */
  close(): void {
    this.#flush();
    this.#channel?.close();
  }
}

/**
 * Takes the conversation's stream lock and holds it until `release()` (or the page goes away). Does not
 * wait: the request is queued at once, so a tab that asks later waits behind it.
 */
export function holdStreamLock(conversationId: string): () => void {
  const manager = locks();
  if (!manager) return () => {};
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  manager.request(streamLockName(conversationId), {}, () => held).catch(() => {});
  return release;
}

/**
 * Waits for the conversation's stream lock (the streaming tab ended or went away) and runs `work`
 * holding it; resolves false without running it when `signal` aborts first. Without Web Locks, runs it at once.
 */
export async function withStreamLock(conversationId: string, signal: AbortSignal, work: () => Promise<void>): Promise<boolean> {
  const manager = locks();
  if (!manager) {
    if (signal.aborted) return false;
    await work();
    return true;
  }
  try {
    await manager.request(streamLockName(conversationId), { signal }, async () => {
      if (!signal.aborted) await work();
    });
    return !signal.aborted;
  } catch {
    return false; // aborted while waiting
  }
}
