/**
 * A stream whose implementation is still loading (its code is a separate chunk, fetched on first
 * use): iteration and `abort()` are forwarded once it is there, and an abort before that aborts
 * it as soon as it arrives.
 */

/** What a deferred stream forwards to. */
export interface AbortableStream<T> extends AsyncIterable<T> {
  abort(): void;
  readonly aborted?: boolean;
}

export class DeferredStream<T, S extends AbortableStream<T>> implements AbortableStream<T> {
  /** The loaded stream (for subclasses forwarding more, e.g. a result promise). */
  protected readonly loading: Promise<S>;
  #loaded: S | null = null;
  #aborted = false;

  constructor(stream: Promise<S>) {
    this.loading = stream.then((s) => {
      this.#loaded = s;
      if (this.#aborted) s.abort();
      return s;
    });
  }

  /** Whether `abort()` was called (or the stream aborted itself: signal, leaving the loop). */
  get aborted(): boolean {
    return this.#aborted || !!this.#loaded?.aborted;
  }

  abort(): void {
    this.#aborted = true;
    this.#loaded?.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    let inner: AsyncIterator<T> | null = null;
    const get = async () => (inner ??= (await this.loading)[Symbol.asyncIterator]());
    return {
      next: async () => (this.#aborted ? { value: undefined, done: true } : (await get()).next()),
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }
}
