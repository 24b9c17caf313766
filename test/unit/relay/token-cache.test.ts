import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/relay/index.js';
import { createSessionTokens, type SessionTokens } from '../../../src/relay/sessions/session-tokens.js';
import { SECRET, api, fakeUpstream, json, makeRelay, openSession } from './helpers.js';

const SKEW = 30;
const TTL = 600;

function tokens(clock: { t: number }, cacheSize?: number): SessionTokens {
  return createSessionTokens({
    keys: [{ kid: 'main', secret: SECRET }], issuer: 'parley-relay', audience: 'parley-relay',
    ttlSeconds: TTL, resumeTtlSeconds: 3600, clockSkewSeconds: SKEW, now: () => clock.t, cacheSize,
  });
}

const mint = (t: SessionTokens, sessionId = 'ses_1') => t.mintAccess({ sessionId, subject: `session:${sessionId}`, origin: null, policy: DEFAULT_POLICY });

/** Counts signature checks (jose verifies HS256 with Web Crypto). */
function countSignatureChecks() {
  return vi.spyOn(crypto.subtle, 'verify');
}

/** The token with one character of its signature (or payload) changed. */
function tamper(token: string, part: 1 | 2): string {
  const parts = token.split('.');
  const s = parts[part]!;
  const i = Math.floor(s.length / 2);
  parts[part] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  return parts.join('.');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('verified-token cache', () => {
  it('checks a token signature once, then answers the same claims from the cache', async () => {
    const clock = { t: Date.UTC(2026, 0, 1) };
    const t = tokens(clock);
    const { token } = await mint(t);
    const checks = countSignatureChecks();
    const first = await t.verifyAccess(token);
    const second = await t.verifyAccess(token);
    expect(first?.sid).toBe('ses_1');
    expect(second).toBe(first);
    expect(checks).toHaveBeenCalledTimes(1);
  });

  it('refuses a cached token once it expires (with the same clock skew as a fresh verification)', async () => {
    const clock = { t: Date.UTC(2026, 0, 1) };
    const t = tokens(clock);
    const { token, claims } = await mint(t);
    expect(await t.verifyAccess(token)).not.toBeNull();
    clock.t = (claims.exp + SKEW - 1) * 1000;
    expect(await t.verifyAccess(token), 'still inside the skew').not.toBeNull();
    clock.t = (claims.exp + SKEW) * 1000;
    expect(await t.verifyAccess(token)).toBeNull();
    expect(await t.verifyAccess(token), 'and stays refused').toBeNull();
    // A fresh verifier (no cache) agrees at both instants.
    const fresh = tokens(clock, 0);
    expect(await fresh.verifyAccess(token)).toBeNull();
    clock.t = (claims.exp + SKEW - 1) * 1000;
    expect(await fresh.verifyAccess(token)).not.toBeNull();
  });

  it('never caches a tampered token: each use is verified and refused', async () => {
    const clock = { t: Date.now() };
    const t = tokens(clock);
    const { token } = await mint(t);
    expect(await t.verifyAccess(token)).not.toBeNull();
    const checks = countSignatureChecks();
    for (const bad of [tamper(token, 2), tamper(token, 1), `${token}x`]) {
      expect(await t.verifyAccess(bad), bad).toBeNull();
      expect(await t.verifyAccess(bad), bad).toBeNull();
    }
    // Every refused attempt reached the signature check (the payload tamper may fail before it, at parsing).
    expect(checks.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(await t.verifyAccess(token), 'the genuine token is unaffected').not.toBeNull();
  });

  it('shares frozen claims, so no request can change them for the next', async () => {
    const clock = { t: Date.now() };
    const t = tokens(clock);
    const { token } = await mint(t);
    const claims = (await t.verifyAccess(token))!;
    expect(() => (claims.scopes as string[]).push('ocr')).toThrow();
    expect(() => { (claims as { sid: string }).sid = 'ses_other'; }).toThrow();
    expect(() => { (claims.limits as { burst: number }).burst = 1e9; }).toThrow();
  });

  it('is bounded: the least recently used token is dropped and verified again when next seen', async () => {
    const clock = { t: Date.now() };
    const t = tokens(clock, 2);
    const [a, b, c] = await Promise.all(['ses_a', 'ses_b', 'ses_c'].map((s) => mint(t, s)));
    const checks = countSignatureChecks();
    await t.verifyAccess(a!.token);
    await t.verifyAccess(b!.token);
    await t.verifyAccess(a!.token); // a is now the most recent
    await t.verifyAccess(c!.token); // drops b
    expect(checks).toHaveBeenCalledTimes(3);
    await t.verifyAccess(a!.token);
    expect(checks).toHaveBeenCalledTimes(3);
    expect((await t.verifyAccess(b!.token))?.sid).toBe('ses_b');
    expect(checks).toHaveBeenCalledTimes(4);
  });

  it('does not cache resume tokens as access tokens (their audience and type differ)', async () => {
    const clock = { t: Date.now() };
    const t = tokens(clock);
    const resume = await t.mintResume({ sessionId: 'ses_r', subject: 'session:ses_r', origin: null, policy: DEFAULT_POLICY });
    expect(await t.verifyResume(resume.token)).not.toBeNull();
    expect(await t.verifyAccess(resume.token)).toBeNull();
  });
});

describe('the relay with cached tokens', () => {
  it('refuses a revoked session whose token is in the cache', async () => {
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const relay = makeRelay(upstream.fetch);
    const session = await openSession(relay);
    expect((await api(relay, '/v1/models', { token: session.token })).status).toBe(200);
    expect((await api(relay, '/v1/models', { token: session.token })).status).toBe(200);
    await relay.revokeSession(session.session_id);
    const res = await api(relay, '/v1/models', { token: session.token });
    expect(res.status).toBe(401);
    expect((await res.json()).message).toMatch(/revoked/);
  });

  it('refuses an expired cached token on every route, as an uncached one', async () => {
    const clock = { t: Date.now() };
    const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
    const relay = makeRelay(upstream.fetch, { now: () => clock.t, tokenTtlSeconds: 60, clockSkewSeconds: 0 });
    const session = await openSession(relay);
    expect((await api(relay, '/v1/models', { token: session.token })).status).toBe(200);
    clock.t += 61_000;
    expect((await api(relay, '/v1/models', { token: session.token })).status).toBe(401);
    expect((await api(relay, '/v1/conversations', { token: session.token, body: { inputs: 'hi' } })).status).toBe(401);
  });
});
