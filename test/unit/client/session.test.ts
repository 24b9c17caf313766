import { describe, expect, test, vi } from 'vitest';
import { RelaySession, type ResumeTokenStore } from '../../../src/client/session.js';
import { PlatformError } from '../../../src/client/errors.js';
import { json, scriptedFetch } from './helpers.js';

const T0 = Date.parse('2026-05-01T10:00:00Z');

function memoryStore(initial: Record<string, string> = {}): ResumeTokenStore & { data: Record<string, string> } {
  const data = { ...initial };
  return {
    data,
    getResumeToken: async (url) => data[url],
    setResumeToken: async (url, token) => { data[url] = token; },
  };
}

function session(body: { token: string; ttlSeconds?: number; resume?: string; id?: string }, now: number) {
  return json({
    token: body.token,
    expires_at: new Date(now + (body.ttlSeconds ?? 600) * 1000).toISOString(),
    session_id: body.id ?? 'ses_1',
    resume_token: body.resume ?? `rs_${body.token}`,
  });
}

describe('RelaySession', () => {
  test('first token from POST {relay}/session with {}; kept in memory until the refresh margin', async () => {
    let now = T0;
    const script = scriptedFetch([session({ token: 't1' }, T0)]);
    const s = new RelaySession({ relayUrl: 'https://site.test/relay/', fetch: script.fetch, now: () => now });
    expect(await s.getToken()).toBe('t1');
    now += 500_000; // 100 s before expiry: outside the 60 s margin
    expect(await s.getToken()).toBe('t1');
    expect(script.calls).toHaveLength(1);
    expect(script.calls[0]).toMatchObject({ method: 'POST', url: 'https://site.test/relay/session', body: {} });
    expect(s.sessionId).toBe('ses_1');
  });

  test('refreshes before expiry by posting the current token (margin: 60 s, or 10 % of a short TTL)', async () => {
    let now = T0;
    const script = scriptedFetch([session({ token: 't1' }, T0), (req) => session({ token: 't2' }, now)]);
    const s = new RelaySession({ relayUrl: 'https://site.test/relay', fetch: script.fetch, now: () => now });
    await s.getToken();
    now = T0 + 545_000; // 55 s before expiry
    expect(await s.getToken()).toBe('t2');
    expect(script.calls[1].body).toEqual({ token: 't1' });

    // A 30 s token is refreshed 3 s before it expires.
    let later = T0;
    const short = scriptedFetch([session({ token: 's1', ttlSeconds: 30 }, T0), session({ token: 's2', ttlSeconds: 30 }, T0 + 28_000)]);
    const s2 = new RelaySession({ relayUrl: 'https://x.test', fetch: short.fetch, now: () => later });
    await s2.getToken();
    later = T0 + 26_000;
    expect(await s2.getToken()).toBe('s1');
    later = T0 + 28_000;
    expect(await s2.getToken()).toBe('s2');
  });

  test('single flight: concurrent callers share one request', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const script = scriptedFetch([async () => { await gate; return session({ token: 't1' }, T0); }]);
    const s = new RelaySession({ relayUrl: 'https://site.test', fetch: script.fetch, now: () => T0 });
    const all = Promise.all([s.getToken(), s.getToken(), s.getToken()]);
    release();
    expect(await all).toEqual(['t1', 't1', 't1']);
    expect(script.calls).toHaveLength(1);
  });

  test('the resume token is saved and used after a reload; the bearer token is never stored', async () => {
    const store = memoryStore();
    const first = scriptedFetch([session({ token: 't1', resume: 'rs_A' }, T0)]);
    await new RelaySession({ relayUrl: 'https://site.test/relay', fetch: first.fetch, store, now: () => T0 }).getToken();
    expect(store.data).toEqual({ 'https://site.test/relay': 'rs_A' });

    const second = scriptedFetch([session({ token: 't2', resume: 'rs_B' }, T0)]);
    const reloaded = new RelaySession({ relayUrl: 'https://site.test/relay', fetch: second.fetch, store, now: () => T0 });
    expect(await reloaded.getToken()).toBe('t2');
    expect(second.calls[0].body).toEqual({ resume_token: 'rs_A' });
    expect(store.data['https://site.test/relay']).toBe('rs_B');
    expect(JSON.stringify(store.data)).not.toContain('t2');
  });

  test('a refused resume token (401/403) falls back to a fresh session', async () => {
    const store = memoryStore({ 'https://site.test': 'rs_old' });
    const script = scriptedFetch([
      json({ object: 'error', message: 'resume token expired', type: 'authentication_error', code: null }, 401),
      session({ token: 'fresh', resume: 'rs_new' }, T0),
    ]);
    const s = new RelaySession({ relayUrl: 'https://site.test', fetch: script.fetch, store, now: () => T0 });
    expect(await s.getToken()).toBe('fresh');
    expect(script.calls.map((c) => c.body)).toEqual([{ resume_token: 'rs_old' }, {}]);
    expect(store.data['https://site.test']).toBe('rs_new');
  });

  test('a refused refresh falls back to the resume token', async () => {
    let now = T0;
    const store = memoryStore();
    const script = scriptedFetch([
      session({ token: 't1', resume: 'rs_1' }, T0),
      json({ object: 'error', message: 'revoked', type: 'authentication_error', code: null }, 403),
      (req) => session({ token: 't2', resume: 'rs_2' }, now),
    ]);
    const s = new RelaySession({ relayUrl: 'https://site.test', fetch: script.fetch, store, now: () => now });
    await s.getToken();
    now = T0 + 590_000;
    expect(await s.getToken()).toBe('t2');
    expect(script.calls.map((c) => c.body)).toEqual([{}, { token: 't1' }, { resume_token: 'rs_1' }]);
  });

  test('invalidate() drops the token; other relay errors are PlatformErrors', async () => {
    const script = scriptedFetch([
      session({ token: 't1' }, T0),
      session({ token: 't2' }, T0),
      json({ object: 'error', message: 'origin not allowed', type: 'invalid_request_error', code: 'origin' }, 403),
    ]);
    const s = new RelaySession({ relayUrl: 'https://site.test', fetch: script.fetch, now: () => T0 });
    await s.getToken();
    s.invalidate();
    expect(await s.getToken()).toBe('t2');
    s.invalidate();
    const error = await s.getToken().catch((e) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 403, message: 'origin not allowed' });
  });

  test('a refused page origin ends at once: code origin_not_allowed, one console error for the site owner with the fix', async () => {
    const refusal = () => json({ object: 'error', message: 'This origin may not open sessions', type: 'invalid_request_error', param: null, code: 'origin_not_allowed' }, 403);
    const script = scriptedFetch([refusal(), refusal(), refusal()]);
    const store = memoryStore({ 'https://relay.test': 'rs_old' });
    const logged: unknown[][] = [];
    const consoleError = vi.spyOn(console, 'error').mockImplementation((...args) => { logged.push(args); });
    vi.stubGlobal('location', { origin: 'https://page.example' });
    try {
      const s = new RelaySession({ relayUrl: 'https://relay.test', fetch: script.fetch, store, now: () => T0 });
      const error = await s.getToken().catch((e) => e);
      expect(error).toBeInstanceOf(PlatformError);
      expect(error).toMatchObject({ status: 403, code: 'origin_not_allowed' });
      // The resume token was refused for the origin: no second try without it, it would be refused the same way.
      expect(script.calls).toHaveLength(1);
      expect(error.message).toContain('https://page.example');
      expect(error.message).toContain('--allow-origin https://page.example');
      expect(logged).toHaveLength(1);
      expect(String(logged[0]![0])).toMatch(/^parley: .*does not allow pages from https:\/\/page\.example.*allowedOrigins/);
      // Reported once per page and relay, however often it is met.
      await s.getToken().catch(() => {});
      expect(logged).toHaveLength(1);
    } finally {
      consoleError.mockRestore();
      vi.unstubAllGlobals();
    }
  });
});
