/**
 * "Latest run wins" for every request lifecycle in the kit (chat turns, transcriptions, OCR readings,
 * speech): starting a run makes every earlier one stale, so the late answer of an older request is dropped
 * instead of overwriting a newer one. Isomorphic: no DOM, no Node built-ins.
 *
 * A run is a token, not a task (unlike Lit's `Task`): the owner keeps its own state and checks
 * `current()` after each `await`. The token's `signal` aborts when the run goes stale, for owners that
 * hand it to `fetch` or a stream; owners with their own AbortController may ignore it.
 */

/** One run of a lifecycle: see the module comment. */
export interface RunToken {
  /** Aborted when a newer run starts or the runs are cancelled. */
  readonly signal: AbortSignal;
  /** True while no newer run has started and nothing cancelled this one. */
  current(): boolean;
}

export class LatestRun {
  #id = 0;
  #controller = new AbortController();

  /** Starts a run: every earlier run stops being current and its signal aborts. */
  next(): RunToken {
    this.cancel();
    return this.now();
  }

  /** The run in progress, to check after an `await` that nothing newer came (starts nothing). */
  now(): RunToken {
    const id = this.#id;
    return { signal: this.#controller.signal, current: () => id === this.#id };
  }

  /** Makes every run stale (their signals abort) without starting one: a stop, a reset, a disconnect. */
  cancel(): void {
    this.#id++;
    this.#controller.abort();
    this.#controller = new AbortController();
  }
}
