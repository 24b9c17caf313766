/**
 * An abort controller whose `AbortSignal` is made only when something asks for it. Node's signal is an
 * `EventTarget`: making one and adding and removing a listener costs more per relayed request than most of
 * the relay's checks, and on the Node path nothing needs it (the host client listens through
 * {@link AbortHandle.onAbort}); the Web path (`fetch`, upload streams) still gets a real signal.
 */

/** What an upstream client needs of an abort: whether it happened, why, and a listener. */
export interface AbortHandle {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `listener` once on abort (never when already aborted: check `aborted` first); returns the unlink. */
  onAbort(listener: () => void): () => void;
}

/** An `AbortController` look-alike whose signal is made on first use. */
export class LazyAbortController implements AbortHandle {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: Array<() => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A real signal, aborted with the same reason whether made before or after the abort. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    this.#controller?.abort(this.#reason);
    if (listeners) for (const listener of listeners) listener();
  }

  onAbort(listener: () => void): () => void {
    if (this.#aborted) return () => {};
    (this.#listeners ??= []).push(listener);
    return () => {
      const list = this.#listeners;
      const i = list ? list.indexOf(listener) : -1;
      if (i >= 0) list!.splice(i, 1);
    };
  }
}

/** The {@link AbortHandle} of a controller: itself when lazy, else read through its signal. */
export function abortHandleOf(controller: { readonly signal: AbortSignal } | LazyAbortController): AbortHandle {
  return controller instanceof LazyAbortController ? controller : signalHandle(controller.signal);
}

/** An {@link AbortHandle} over a real `AbortSignal`. */
export function signalHandle(signal: AbortSignal): AbortHandle {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason;
    },
    onAbort(listener) {
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}
