/**
 * Web Locks for Node tests: a small exclusive lock manager that does what browsers do (requests granted in
 * order, aborted waits rejected with an AbortError, a lock released when its callback settles). Install it
 * as `navigator.locks` so tab-sync.ts sees locks.
 */
export class Locks {
  readonly #held = new Set<string>();
  readonly #queues = new Map<string, Array<() => void>>();
  async request(name: string, options: { signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown> {
    const abort = () => Object.assign(new Error('aborted'), { name: 'AbortError' });
    if (options.signal?.aborted) throw abort();
    if (this.#held.has(name)) {
      await new Promise<void>((resolve, reject) => {
        const queue = this.#queues.get(name) ?? [];
        this.#queues.set(name, queue);
        queue.push(resolve);
        options.signal?.addEventListener('abort', () => {
          const i = queue.indexOf(resolve);
          if (i >= 0) {
            queue.splice(i, 1);
            reject(abort());
          }
        });
      });
    }
    this.#held.add(name);
    try {
      return await callback({ name });
    } finally {
      const next = this.#queues.get(name)?.shift();
      if (next) next();
      else this.#held.delete(name);
    }
  }
}
