/**
 * Waiting for something with a deadline, shared by the relay's drain and the platform's graceful stop. No `node:`
 * imports: the relay's edge build uses it too.
 */

/** Whether `promise` settled within `ms` (and before `signal` aborted). */
export function within(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(() => done(true), () => done(true));
  });
}
