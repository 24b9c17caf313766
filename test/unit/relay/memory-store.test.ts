import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStateStore } from '../../../src/relay/index.js';

/** Node timers that keep the process alive (unref'd ones are not listed). */
const refTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memory state store: stream slots are leases', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a slot whose renewal stops no longer counts once its lease (60 s by default) is over', async () => {
    let now = 1_000_000;
    // The clock moves, the renewal timers (every 20 s) never get to run: the requests died silently.
    const store = createMemoryStateStore({ now: () => now });
    const first = await store.openStream('streams:s', 2);
    const second = await store.openStream('streams:s', 2);
    expect([first, second]).toEqual([expect.any(String), expect.any(String)]);
    expect(await store.openStream('streams:s', 2)).toBeNull();
    expect(store.renewalTimers).toBe(2);

    now += 59_999;
    expect(await store.openStream('streams:s', 2)).toBeNull();
    now += 1;
    const third = await store.openStream('streams:s', 2);
    expect(third).toEqual(expect.any(String));
    expect(store.renewalTimers).toBe(1); // the expired slots' timers were cleared with them
    expect(await store.openStream('streams:s', 2)).toEqual(expect.any(String));
    expect(await store.openStream('streams:s', 2)).toBeNull();

    // Closing an expired slot late is harmless and does not free a live one.
    await store.closeStream('streams:s', first!);
    expect(await store.openStream('streams:s', 2)).toBeNull();
  });

  it('honours streamLeaseSeconds and refuses a lease that is not a positive number', async () => {
    let now = 0;
    const store = createMemoryStateStore({ now: () => now, streamLeaseSeconds: 5 });
    expect(await store.openStream('k', 1)).toEqual(expect.any(String));
    now = 4_999;
    expect(await store.openStream('k', 1)).toBeNull();
    now = 5_000;
    expect(await store.openStream('k', 1)).toEqual(expect.any(String));
    for (const streamLeaseSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createMemoryStateStore({ streamLeaseSeconds })).toThrow(/streamLeaseSeconds must be a positive number/);
    }
  });

  it('a slot renewed by its timer stays counted past its lease (real timers, small lease)', async () => {
    const store = createMemoryStateStore({ streamLeaseSeconds: 1 });
    const slot = await store.openStream('k', 1);
    expect(slot).toEqual(expect.any(String));
    await sleep(2_500); // two and a half leases; renewed every third of one
    expect(await store.openStream('k', 1)).toBeNull();
    await store.closeStream('k', slot!);
    expect(store.renewalTimers).toBe(0);
  });

  it('renewal extends the lease from the time of the renewal (fake clock, real timer)', async () => {
    let t = 0;
    let reads = 0;
    const store = createMemoryStateStore({ now: () => { reads++; return t; }, streamLeaseSeconds: 0.3 });
    const slot = await store.openStream('k', 1); // lease to 300, renewed every 100 ms of real time
    t = 250;
    reads = 0;
    await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 }); // the timer ran at t = 250
    t = 500; // past the first lease, within the renewed one (to 550)
    expect(await store.openStream('k', 1)).toBeNull();
    await store.closeStream('k', slot!);
    expect(await store.openStream('k', 1)).toEqual(expect.any(String));
  });

  it('close frees the slot at once and clears its timer; the timers never hold the process', async () => {
    const store = createMemoryStateStore();
    const before = refTimers();
    const a = await store.openStream('k', 2);
    const b = await store.openStream('k', 2);
    expect(store.renewalTimers).toBe(2);
    expect(refTimers()).toBe(before); // unref'd
    expect(await store.openStream('k', 2)).toBeNull();
    await store.closeStream('k', a!);
    expect(store.renewalTimers).toBe(1);
    const c = await store.openStream('k', 2);
    expect(c).toEqual(expect.any(String));
    await store.closeStream('k', b!);
    await store.closeStream('k', c!);
    await store.closeStream('k', c!); // twice is harmless
    expect(store.renewalTimers).toBe(0);
  });

  it('no timer is left behind: pending timers counted by the fake timer clock', async () => {
    vi.useFakeTimers();
    const store = createMemoryStateStore({ now: () => Date.now() });
    const baseline = vi.getTimerCount();
    const slots = await Promise.all([1, 2, 3].map(() => store.openStream('k', 3)));
    expect(vi.getTimerCount()).toBe(baseline + 3);
    // Ten minutes of a live stream: renewed all along, still counted.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(await store.openStream('k', 3)).toBeNull();
    for (const slot of slots) await store.closeStream('k', slot!);
    expect(vi.getTimerCount()).toBe(baseline);
    expect(store.renewalTimers).toBe(0);

    // A slot left to expire (its timer stopped firing, as in a dead workerd request) takes its timer with it.
    const orphan = await store.openStream('k', 1);
    expect(orphan).toEqual(expect.any(String));
    vi.setSystemTime(Date.now() + 61_000); // the clock jumps; no timer ran
    expect(await store.openStream('k', 1)).toEqual(expect.any(String));
    expect(vi.getTimerCount()).toBe(baseline + 1);
  });
});
