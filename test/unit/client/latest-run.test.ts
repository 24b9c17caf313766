import { describe, expect, it } from 'vitest';
import { LatestRun } from '../../../src/client/latest-run.js';

describe('LatestRun', () => {
  it('a new run makes the older one stale and aborts its signal', () => {
    const runs = new LatestRun();
    const first = runs.next();
    expect(first.current()).toBe(true);
    const second = runs.next();
    expect(first.current()).toBe(false);
    expect(first.signal.aborted).toBe(true);
    expect(second.current()).toBe(true);
    expect(second.signal.aborted).toBe(false);
  });

  it('now() joins the run in progress without starting one', () => {
    const runs = new LatestRun();
    const started = runs.next();
    const joined = runs.now();
    expect(started.current()).toBe(true);
    expect(joined.current()).toBe(true);
    expect(joined.signal).toBe(started.signal);
    runs.next();
    expect(joined.current()).toBe(false);
  });

  it('cancel() makes every run stale without starting one', () => {
    const runs = new LatestRun();
    const run = runs.next();
    runs.cancel();
    expect(run.current()).toBe(false);
    expect(run.signal.aborted).toBe(true);
    const after = runs.now();
    expect(after.current()).toBe(true);
    expect(after.signal.aborted).toBe(false);
  });

  it('a late answer of an older run is dropped, the newer one kept', async () => {
    const runs = new LatestRun();
    const shown: string[] = [];
    const request = async (text: string, delay: number) => {
      const run = runs.next();
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (run.current()) shown.push(text);
    };
    await Promise.all([request('old', 20), request('new', 0)]);
    expect(shown).toEqual(['new']);
  });
});
