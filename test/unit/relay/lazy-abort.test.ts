// The upstream call's abort controller (lazy-abort.ts): its AbortSignal is made only on demand, and
// behaves like a real one whether it is made before or after the abort.
import { describe, expect, it } from 'vitest';
import { LazyAbortController, abortHandleOf } from '../../../src/relay/proxy/lazy-abort.js';

describe('LazyAbortController', () => {
  it('aborts a signal made before the abort, with the reason, and calls listeners once', () => {
    const c = new LazyAbortController();
    const signal = c.signal;
    const heard: string[] = [];
    signal.addEventListener('abort', () => heard.push('signal'));
    c.onAbort(() => heard.push('handle'));
    const reason = new Error('client gone');
    c.abort(reason);
    c.abort(new Error('second'));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(c.aborted).toBe(true);
    expect(c.reason).toBe(reason);
    expect(heard.sort()).toEqual(['handle', 'signal']);
  });

  it('gives an already aborted signal when it is first asked for after the abort', () => {
    const c = new LazyAbortController();
    c.abort();
    expect(c.signal.aborted).toBe(true);
    expect((c.signal.reason as DOMException).name).toBe('AbortError');
    expect(c.signal.reason).toBe(c.reason);
  });

  it('does not call an unlinked listener, nor one added after the abort', () => {
    const c = new LazyAbortController();
    let calls = 0;
    const unlink = c.onAbort(() => calls++);
    unlink();
    c.abort();
    c.onAbort(() => calls++);
    expect(calls).toBe(0);
  });

  it('reads a real AbortController through the same handle', () => {
    const real = new AbortController();
    const handle = abortHandleOf(real);
    let calls = 0;
    handle.onAbort(() => calls++);
    expect(handle.aborted).toBe(false);
    real.abort('why');
    expect(handle.aborted).toBe(true);
    expect(handle.reason).toBe('why');
    expect(calls).toBe(1);
  });
});
