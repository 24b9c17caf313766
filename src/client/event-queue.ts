/**
 * A single-consumer push queue behind an async iterator: the producer pushes as events arrive
 * (buffering without limit: a reply is small), then ends it quietly or with an error that the
 * consumer gets after everything that was pushed before.
 */
export class EventQueue<T> {
  #items: T[] = [];
  #waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null = null;
  #closed = false;
  #failure: { error: unknown } | null = null;

  /** Whether `end()` or `fail()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Adds an item (handed straight to a waiting `next()` if there is one); ignored once closed. */
  push(item: T): void {
    if (this.#closed) return;
    if (this.#waiting) {
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting.resolve({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  /** Ends the iteration after the buffered items. */
  end(): void {
    this.#close(null);
  }

  /** Ends the iteration with `error`, thrown after the buffered items. */
  fail(error: unknown): void {
    this.#close({ error });
  }

  /** Drops the buffered items and ends quietly (the consumer went away). */
  discard(): void {
    this.#items = [];
    this.#failure = null;
    this.#close(null);
  }

  /** The next item, waiting for one; then the failure (once), then done. */
  next(): Promise<IteratorResult<T>> {
    if (this.#items.length) return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#failure) {
      const { error } = this.#failure;
      this.#failure = null;
      return Promise.reject(error);
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  #close(failure: { error: unknown } | null): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failure = failure;
    const waiting = this.#waiting;
    if (!waiting) return;
    this.#waiting = null;
    if (failure) {
      this.#failure = null;
      waiting.reject(failure.error);
    } else {
      waiting.resolve({ value: undefined, done: true });
    }
  }
}
