// The Redis state store against a real redis-server (started here on a free port, no persistence),
// and the revocation feed of both stores. Every store here is its own client, as separate relay
// instances would be.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RelayError, createMemoryStateStore, createRedisStateStore, type RedisStateStore, type RedisStateStoreOptions, type Revocation } from '../../../src/relay/index.js';
import { createOpenStreams } from '../../../src/relay/sessions/revocation.js';
import { startRedis, waitFor, type RedisServer } from './redis-helpers.js';

let redis: RedisServer;
const stores: RedisStateStore[] = [];
let prefixCount = 0;
let prefix = '';

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await redis?.dispose();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A store on the test server; each test gets its own key prefix (shared by the stores it opens). */
async function store(options: Partial<RedisStateStoreOptions> = {}): Promise<RedisStateStore> {
  const s = await createRedisStateStore({ url: redis.url, keyPrefix: prefix, onError: () => {}, ...options });
  stores.push(s);
  return s;
}
function freshPrefix() {
  prefix = `t${++prefixCount}:`;
}

describe('createRedisStateStore', () => {
  it('token buckets are shared between instances and refuse when empty, with a retry time', async () => {
    freshPrefix();
    const [a, b] = [await store(), await store()];
    const spec = { capacity: 3, refillPerSecond: 0.01 };
    const answers = [await a.takeToken('ip:x', spec), await b.takeToken('ip:x', spec), await a.takeToken('ip:x', spec), await b.takeToken('ip:x', spec)];
    expect(answers.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(answers[3]!.retryAfterSeconds).toBeGreaterThan(50);
    expect((await a.takeToken('ip:other', spec)).allowed).toBe(true);
  });

  it('a bucket refills at its rate', async () => {
    freshPrefix();
    const a = await store();
    const spec = { capacity: 1, refillPerSecond: 20 };
    expect((await a.takeToken('k', spec)).allowed).toBe(true);
    await waitFor(async () => (await a.takeToken('k', spec)).allowed, 10_000, 'a refilled token');
  });

  it('stream slots are shared, freed by id, and a crashed holder frees them when its lease runs out', async () => {
    freshPrefix();
    const [a, b] = [await store(), await store({ streamLeaseSeconds: 1 })];
    const first = await a.openStream('streams:s', 2);
    const second = await b.openStream('streams:s', 2);
    expect(first).toEqual(expect.any(String));
    expect(second).toEqual(expect.any(String));
    expect(await a.openStream('streams:s', 2)).toBeNull();
    await a.closeStream('streams:s', 'not-a-slot');
    expect(await a.openStream('streams:s', 2)).toBeNull();
    await a.closeStream('streams:s', first!);
    const third = await a.openStream('streams:s', 2);
    expect(third).toEqual(expect.any(String));
    // b "crashes": its renewal stops without closing its slot; the 1 s lease frees it.
    await b.close();
    await waitFor(async () => {
      const slot = await a.openStream('streams:s', 2);
      return slot !== null;
    }, 15_000, 'the crashed instance\'s slot to expire');
  });

  it('an open slot stays held while its holder renews the lease', async () => {
    freshPrefix();
    const a = await store({ streamLeaseSeconds: 1 });
    expect(await a.openStream('streams:r', 1)).not.toBeNull();
    // Three lease lengths later the slot is still held: renewal (every third of a lease) kept it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await a.openStream('streams:r', 1)).toBeNull();
  });

  it('conversation ownership: shared, re-owned, forgotten, capped per session', async () => {
    freshPrefix();
    const [a, b] = [await store({ maxConversationsPerSession: 2 }), await store({ maxConversationsPerSession: 2 })];
    await a.setConversationOwner('c1', 's1', 100);
    expect(await b.getConversationOwner('c1')).toBe('s1');
    expect(await b.getConversationOwner('nope')).toBeNull();
    await b.setConversationOwner('c2', 's1', 100);
    await a.setConversationOwner('c3', 's1', 100);
    expect(await b.listConversations('s1')).toEqual(['c3', 'c2']);
    expect(await a.getConversationOwner('c1')).toBeNull();
    await a.setConversationOwner('c2', 's2', 100);
    expect(await b.listConversations('s1')).toEqual(['c3']);
    expect(await b.listConversations('s2')).toEqual(['c2']);
    await b.forgetConversation('c3');
    expect(await a.getConversationOwner('c3')).toBeNull();
    expect(await a.listConversations('s1')).toEqual([]);
    await a.setConversationOwner('short', 's3', 1);
    await waitFor(async () => (await b.getConversationOwner('short')) === null, 10_000, 'ownership to expire');
    expect(await b.listConversations('s3')).toEqual([]);
  });

  it('one-time ids are used once across instances', async () => {
    freshPrefix();
    const [a, b] = [await store(), await store()];
    expect(await a.useOnce('ticket:1', 60)).toBe(true);
    expect(await b.useOnce('ticket:1', 60)).toBe(false);
    expect(await a.useOnce('ticket:1', 60)).toBe(false);
    expect(await b.useOnce('ticket:2', 60)).toBe(true);
  });

  it('revocations: by id, by subject up to a time, and announced to every instance', async () => {
    freshPrefix();
    const [a, b] = [await store(), await store()];
    const heard: Revocation[] = [];
    const stop = b.onRevoked((r) => heard.push(r));
    await a.revoke('ses_1', 60);
    expect(await b.isRevoked(['x', 'ses_1'])).toBe(true);
    expect(await b.isRevoked(['x'])).toBe(false);
    expect(await b.isRevoked([])).toBe(false);

    const at = 1_900_000_000_500;
    await a.revokeSubject('user-1', at, 60);
    await a.revokeSubject('user-1', at - 10_000, 60); // never moves back
    expect(await b.isRevoked(['x'], { subject: 'user-1', issuedAt: 1_900_000_000 })).toBe(true); // same second: revoked
    expect(await b.isRevoked(['x'], { subject: 'user-1', issuedAt: 1_899_999_000 })).toBe(true);
    expect(await b.isRevoked(['x'], { subject: 'user-1', issuedAt: 1_900_000_001 })).toBe(false);
    expect(await b.isRevoked(['x'], { subject: 'user-2', issuedAt: 1 })).toBe(false);

    await waitFor(() => heard.length >= 3, 10_000, 'the announcements');
    expect(heard).toEqual([
      { kind: 'session', id: 'ses_1' },
      { kind: 'subject', subject: 'user-1', at },
      { kind: 'subject', subject: 'user-1', at },
    ]);
    stop();
    await a.revoke('ses_2', 60);
    await a.revoke('ses_3', 60);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toHaveLength(3);
  });

  it('keys are namespaced by prefix', async () => {
    freshPrefix();
    const a = await store();
    const b = await store({ keyPrefix: `${prefix}other:` });
    await a.revoke('ses_p', 60);
    expect(await a.isRevoked(['ses_p'])).toBe(true);
    expect(await b.isRevoked(['ses_p'])).toBe(false);
  });

  it('throws a clear error when no Redis answers at start', async () => {
    const attempt = createRedisStateStore({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500, onError: () => {} });
    await expect(attempt).rejects.toThrow(/cannot reach Redis/);
  });

  it('Redis down → every call fails with the 503 state_store_unavailable (no hang, no allow); back → it works again', async () => {
    freshPrefix();
    const a = await store();
    const spec = { capacity: 100, refillPerSecond: 1 };
    expect((await a.takeToken('k', spec)).allowed).toBe(true);
    await redis.stop();
    try {
      const calls: Array<Promise<unknown>> = [
        a.takeToken('k', spec), a.openStream('streams:k', 2), a.isRevoked(['ses']), a.useOnce('t', 5),
        a.getConversationOwner('c'), a.setConversationOwner('c', 's', 5), a.revoke('ses', 5),
      ];
      for (const call of calls) {
        const error = await call.then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(RelayError);
        expect((error as RelayError).status).toBe(503);
        expect((error as RelayError).code).toBe('state_store_unavailable');
      }
    } finally {
      await redis.start();
    }
    await waitFor(async () => a.takeToken('k', spec).then((r) => r.allowed, () => false), 20_000, 'the store to recover');
    expect(await a.useOnce('after', 5)).toBe(true);
  }, 60_000);

  it('Redis frozen (connected, never answering) → 503 after the command timeout, not a hang', async () => {
    freshPrefix();
    const a = await store({ commandTimeoutMs: 300 });
    expect(await a.useOnce('before', 5)).toBe(true);
    redis.pause();
    try {
      const error = await a.useOnce('frozen', 5).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(RelayError);
      expect((error as RelayError).code).toBe('state_store_unavailable');
    } finally {
      redis.resume();
    }
    await waitFor(async () => a.useOnce(`after-${Math.random()}`, 5).then(() => true, () => false), 20_000, 'answers again');
  }, 60_000);
});

describe('the memory store\'s revocation feed', () => {
  it('announces revocations of sessions and subjects to every listener until removed', async () => {
    const store = createMemoryStateStore();
    const one: Revocation[] = [];
    const two: Revocation[] = [];
    const stopOne = store.onRevoked((r) => one.push(r));
    store.onRevoked((r) => two.push(r));
    await store.revoke('ses_1', 60);
    await store.revokeSubject('user', 5_000, 60);
    await waitFor(() => one.length === 2 && two.length === 2, 5_000, 'announcements');
    expect(one).toEqual([{ kind: 'session', id: 'ses_1' }, { kind: 'subject', subject: 'user', at: 5_000 }]);
    stopOne();
    await store.revoke('ses_2', 60);
    await waitFor(() => two.length === 3, 5_000, 'the third announcement');
    expect(one).toHaveLength(2);
  });

  it('reaches open streams through a relay\'s registry: by session, by subject up to its time, and by polling when missed', async () => {
    const store = createMemoryStateStore();
    const registry = createOpenStreams(store, 50, (e) => { throw e; });
    const ended: string[] = [];
    const add = (name: string, sessionId: string, subject: string, issuedAt: number) =>
      registry.add({ sessionId, subject, issuedAt, end: () => ended.push(name) });
    add('s1-a', 's1', 'user', 100);
    add('s1-b', 's1', 'user', 100);
    add('s2-old', 's2', 'user', 100);
    add('s3-new', 's3', 'user', 200);
    const gone = add('s4-closed', 's4', 'other', 100);
    gone(); // a stream that ended by itself is never ended again
    await store.revoke('s1', 60);
    await waitFor(() => ended.length === 2, 5_000, 'session revocation');
    expect(ended.sort()).toEqual(['s1-a', 's1-b']);
    await store.revokeSubject('user', 150_000, 60);
    await waitFor(() => ended.length === 3, 5_000, 'subject revocation');
    expect(ended[2]).toBe('s2-old');
    await store.revoke('s4', 60);
    // A revocation the registry was not told of (another store's announcement lost) is found by its poll.
    const deaf = createOpenStreams({ ...store, onRevoked: () => () => {} }, 50, (e) => { throw e; });
    deaf.add({ sessionId: 's5', subject: 'x', issuedAt: 1, end: () => ended.push('s5') });
    await store.revoke('s5', 60);
    await waitFor(() => ended.includes('s5'), 5_000, 'the poll');
    expect(ended).not.toContain('s3-new');
    expect(ended).not.toContain('s4-closed');
    expect(registry.size).toBe(1);
    expect(deaf.size).toBe(0);
  });

  it('a stream registered after its session was revoked (announcement already gone) ends at once, not at the next poll', async () => {
    const store = createMemoryStateStore();
    await store.revoke('s9', 60);
    await store.revokeSubject('gone-user', 50_000, 60);
    // A poll far away: only the check made on registration can end these.
    const registry = createOpenStreams(store, 3_600_000, (e) => { throw e; });
    const ended: string[] = [];
    registry.add({ sessionId: 's9', subject: 'x', issuedAt: 1, end: () => ended.push('by session') });
    registry.add({ sessionId: 's10', subject: 'gone-user', issuedAt: 40, end: () => ended.push('by subject') });
    registry.add({ sessionId: 's11', subject: 'gone-user', issuedAt: 60, end: () => ended.push('later token') });
    await waitFor(() => ended.length === 2, 5_000, 'the registration check');
    expect(ended.sort()).toEqual(['by session', 'by subject']);
    expect(registry.size).toBe(1);
  });

  it('subject revocation covers tokens issued up to it, not later ones', async () => {
    let now = 10_000_000;
    const store = createMemoryStateStore({ now: () => now });
    await store.revokeSubject('u', 10_000_500, 60);
    expect(await store.isRevoked([], { subject: 'u', issuedAt: 9_999 })).toBe(true);
    expect(await store.isRevoked([], { subject: 'u', issuedAt: 10_000 })).toBe(true);
    expect(await store.isRevoked([], { subject: 'u', issuedAt: 10_001 })).toBe(false);
    expect(await store.isRevoked([], { subject: 'v', issuedAt: 1 })).toBe(false);
    now += 61_000;
    expect(await store.isRevoked([], { subject: 'u', issuedAt: 9_999 })).toBe(false);
  });
});
