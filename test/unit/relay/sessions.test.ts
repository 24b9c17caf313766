import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../src/relay/index.js';
import { ORIGIN, SECRET, api, fakeUpstream, json, makeRelay, openSession, sessionCall } from './helpers.js';

const enc = new TextEncoder();
const MODELS = '/v1/models';

function relayWithUpstream(options: Parameters<typeof makeRelay>[1] = {}) {
  const upstream = fakeUpstream(() => json({ object: 'list', data: [] }));
  return { upstream, relay: makeRelay(upstream.fetch, options) };
}

/** Signs arbitrary claims/header with the relay's secret (to build near-valid tokens). */
async function sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}, secret = SECRET) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'parley-session+jwt', kid: 'main', ...header }).sign(enc.encode(secret));
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('POST {base}/session', () => {
  it('answers a SessionResponse with a signed, scoped, short-lived token', async () => {
    const { relay } = relayWithUpstream();
    const res = await sessionCall(relay);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const session = await res.json();
    expect(Object.keys(session).sort()).toEqual(['expires_at', 'resume_token', 'session_id', 'token']);
    expect(session.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const header = decodeProtectedHeader(session.token);
    expect(header).toMatchObject({ alg: 'HS256', kid: 'main', typ: 'parley-session+jwt' });
    const claims = decodeJwt(session.token);
    expect(claims).toMatchObject({ iss: 'parley-relay', aud: 'parley-relay', sid: session.session_id, origin: ORIGIN, scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'] });
    for (const c of ['sub', 'iat', 'nbf', 'exp', 'jti', 'limits']) expect(claims).toHaveProperty(c);
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(Date.parse(session.expires_at)).toBe(claims.exp! * 1000);
  });

  it('accepts an empty body, {} and an empty body with application/json', async () => {
    const { relay } = relayWithUpstream();
    await openSession(relay);
    await openSession(relay, {});
    const res = await relay.fetch(new Request('http://relay.test/api/session', { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' } }));
    expect(res.status).toBe(200);
  });

  it('refuses other methods with 405 and unknown origins with 403', async () => {
    const { relay } = relayWithUpstream();
    const get = await relay.fetch(new Request('http://relay.test/api/session', { headers: { origin: ORIGIN } }));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    for (const origin of ['https://evil.example', 'null', 'https://shop.example.evil.example', 'https://shop.example/']) {
      const res = await sessionCall(relay, undefined, { origin });
      expect(res.status, origin).toBe(403);
      expect((await res.json()).code, origin).toBe('origin_not_allowed');
      // The refusal is readable by a well-formed origin (cors.ts says why); null and malformed ones get no echo.
      expect(res.headers.get('access-control-allow-origin')).toBe(origin.startsWith('https://') && !origin.endsWith('/') ? origin : null);
      expect(res.headers.has('access-control-expose-headers')).toBe(false);
    }
  });

  it('refuses a caller without Origin unless an authorize hook vouches for it', async () => {
    const { relay } = relayWithUpstream();
    expect((await sessionCall(relay, undefined, {})).status).toBe(403);
    const withHook = relayWithUpstream({ authorize: (req) => req.headers.get('x-site-secret') === 'site' }).relay;
    expect((await sessionCall(withHook, undefined, { 'x-site-secret': 'wrong' })).status).toBe(403);
    const ok = await sessionCall(withHook, undefined, { 'x-site-secret': 'site' });
    expect(ok.status).toBe(200);
    expect(decodeJwt((await ok.json()).token).origin).toBeNull();
  });

  it('lets the authorize hook narrow the policy and name the subject', async () => {
    const { relay, upstream } = relayWithUpstream({
      authorize: (_req, ctx) => ({ subject: `shop:visitor-${ctx.kind}`, policy: { scopes: ['conversations'], agents: ['ag_1'], models: [] } }),
    });
    const session = await openSession(relay);
    const claims = decodeJwt(session.token);
    expect(claims).toMatchObject({ sub: 'shop:visitor-new', scopes: ['conversations'], agents: ['ag_1'], models: [] });
    expect((await api(relay, MODELS, { token: session.token })).status).toBe(403);
    expect(upstream.calls).toHaveLength(0);
  });

  it('refuses text/plain and malformed bodies', async () => {
    const { relay } = relayWithUpstream();
    const plain = await relay.fetch(new Request('http://relay.test/api/session', { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'text/plain' }, body: '{}' }));
    expect(plain.status).toBe(415);
    expect((await sessionCall(relay, { token: 5 })).status).toBe(400);
    expect((await sessionCall(relay, { token: 'a', resume_token: 'b' })).status).toBe(400);
    const broken = await relay.fetch(new Request('http://relay.test/api/session', { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' }, body: '{"token":' }));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', param: null });
  });
});

describe('refresh and resume', () => {
  it('refresh with a valid token keeps the session; the old token keeps working until its exp', async () => {
    const { relay } = relayWithUpstream();
    const first = await openSession(relay);
    const refreshed = await openSession(relay, { token: first.token });
    expect(refreshed.session_id).toBe(first.session_id);
    expect(refreshed.token).not.toBe(first.token);
    expect((await api(relay, MODELS, { token: first.token })).status).toBe(200);
    expect((await api(relay, MODELS, { token: refreshed.token })).status).toBe(200);
  });

  it('refresh keeps the session policy (not the default) unless the hook changes it', async () => {
    let calls = 0;
    const { relay } = relayWithUpstream({
      authorize: (_req, ctx) => (ctx.kind === 'new' ? { policy: { scopes: ['models:read'] } } : (calls++, true)),
    });
    const first = await openSession(relay);
    const refreshed = await openSession(relay, { token: first.token });
    expect(calls).toBe(1);
    expect(decodeJwt(refreshed.token).scopes).toEqual(['models:read']);
  });

  it('refuses to refresh an expired token', async () => {
    const past = makeRelay(fakeUpstream().fetch, { now: () => Date.now() - 3600_000 });
    const old = await openSession(past);
    const { relay } = relayWithUpstream();
    expect((await sessionCall(relay, { token: old.token })).status).toBe(401);
  });

  it('resume gives the same session id with a new token, and the resume token is never a bearer token', async () => {
    const { relay, upstream } = relayWithUpstream();
    const first = await openSession(relay);
    const resumed = await openSession(relay, { resume_token: first.resume_token });
    expect(resumed.session_id).toBe(first.session_id);
    expect(decodeJwt(first.resume_token).aud).toBe('parley-relay/resume');
    expect((await api(relay, MODELS, { token: first.resume_token })).status).toBe(401);
    expect(upstream.calls).toHaveLength(0);
    // …and an access token is not a resume token.
    expect((await sessionCall(relay, { resume_token: first.token })).status).toBe(401);
  });

  it('resume only from the origin the session was opened for', async () => {
    const relay = makeRelay(fakeUpstream().fetch, { allowedOrigins: [ORIGIN, 'https://other.example'] });
    const first = await openSession(relay);
    expect((await sessionCall(relay, { resume_token: first.resume_token }, { origin: 'https://other.example' })).status).toBe(403);
    expect((await api(relay, MODELS, { token: first.token, headers: { origin: 'https://other.example' } })).status).toBe(403);
  });

  it('a revoked session can neither call, refresh nor resume', async () => {
    const { relay } = relayWithUpstream();
    const s = await openSession(relay);
    await relay.revokeSession(s.session_id);
    expect((await api(relay, MODELS, { token: s.token })).status).toBe(401);
    expect((await sessionCall(relay, { token: s.token })).status).toBe(401);
    expect((await sessionCall(relay, { resume_token: s.resume_token })).status).toBe(401);
  });
});

describe('token verification (401 on every defect, upstream never called)', () => {
  async function expect401(relay: ReturnType<typeof makeRelay>, token: string, calls: unknown[]) {
    const res = await api(relay, MODELS, { token });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'authentication_error', param: null, code: 'unauthorized' });
    expect(calls).toHaveLength(0);
  }

  it('expired (beyond the 30 s skew) → 401; within the skew → accepted', async () => {
    const { relay, upstream } = relayWithUpstream();
    const tenMinutesAgo = makeRelay(fakeUpstream().fetch, { now: () => Date.now() - 600_000 - 31_000 });
    await expect401(relay, (await openSession(tenMinutesAgo)).token, upstream.calls);
    const justExpired = makeRelay(fakeUpstream().fetch, { now: () => Date.now() - 600_000 - 20_000 });
    expect((await api(relay, MODELS, { token: (await openSession(justExpired)).token })).status).toBe(200);
  });

  it('not yet valid (nbf beyond the skew) → 401', async () => {
    const { relay, upstream } = relayWithUpstream();
    const future = makeRelay(fakeUpstream().fetch, { now: () => Date.now() + 120_000 });
    await expect401(relay, (await openSession(future)).token, upstream.calls);
  });

  it('tampered payload → 401', async () => {
    const { relay, upstream } = relayWithUpstream();
    const { token } = await openSession(relay);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    await expect401(relay, [h, b64url({ ...claims, scopes: [...claims.scopes, 'admin'] }), s].join('.'), upstream.calls);
    await expect401(relay, [h, b64url({ ...claims, agents: ['*'], sid: 'ses_other' }), s].join('.'), upstream.calls);
    // A flipped bit in the signature.
    const sig = Buffer.from(s!, 'base64url');
    sig[0]! ^= 1;
    await expect401(relay, [h, p, sig.toString('base64url')].join('.'), upstream.calls);
  });

  it('alg:none, other algorithms, unknown kid, missing kid → 401', async () => {
    const { relay, upstream } = relayWithUpstream();
    const { token } = await openSession(relay);
    const [, p] = token.split('.');
    await expect401(relay, `${b64url({ alg: 'none', typ: 'parley-session+jwt', kid: 'main' })}.${p}.`, upstream.calls);
    await expect401(relay, `${b64url({ alg: 'none', typ: 'parley-session+jwt', kid: 'main' })}.${p}.x`, upstream.calls);
    const claims = decodeJwt(token);
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512', typ: 'parley-session+jwt', kid: 'main' }).sign(enc.encode(SECRET));
    await expect401(relay, hs512, upstream.calls);
    await expect401(relay, await sign(claims, { kid: 'other' }), upstream.calls);
    await expect401(relay, await sign(claims, { kid: undefined }), upstream.calls);
    await expect401(relay, await sign(claims, {}, 'a-different-secret-of-enough-length-000'), upstream.calls);
  });

  it('wrong aud, wrong iss, wrong typ, missing claims → 401', async () => {
    const { relay, upstream } = relayWithUpstream();
    const claims = decodeJwt((await openSession(relay)).token);
    await expect401(relay, await sign({ ...claims, aud: 'someone-else' }), upstream.calls);
    await expect401(relay, await sign({ ...claims, iss: 'evil' }), upstream.calls);
    await expect401(relay, await sign(claims, { typ: 'JWT' }), upstream.calls);
    const { jti: _j, ...noJti } = claims;
    await expect401(relay, await sign(noJti), upstream.calls);
    const { scopes: _s, ...noScopes } = claims;
    await expect401(relay, await sign(noScopes), upstream.calls);
    // Sanity: the same claims re-signed properly are accepted.
    expect((await api(relay, MODELS, { token: await sign(claims) })).status).toBe(200);
  });

  it('key rotation: tokens of an older key verify while it is listed; the first key signs', async () => {
    const oldKey = { kid: 'k1', secret: 'k1-secret-k1-secret-k1-secret-k1-secret' };
    const newKey = { kid: 'k2', secret: 'k2-secret-k2-secret-k2-secret-k2-secret' };
    const before = makeRelay(fakeUpstream().fetch, { keys: [oldKey] });
    const old = await openSession(before);
    const { relay, upstream } = relayWithUpstream({ keys: [newKey, oldKey] });
    expect((await api(relay, MODELS, { token: old.token })).status).toBe(200);
    const fresh = await openSession(relay);
    expect(decodeProtectedHeader(fresh.token).kid).toBe('k2');
    const after = makeRelay(upstream.fetch, { keys: [newKey] });
    expect((await api(after, MODELS, { token: old.token })).status).toBe(401);
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => makeRelay(fakeUpstream().fetch, { secret: 'short' })).toThrow(/32 bytes/);
  });
});

describe('the token is only accepted in the Authorization header', () => {
  it('x-api-key, ?access_token= or a cookie → 401, alone or with a valid Authorization', async () => {
    const { relay, upstream } = relayWithUpstream();
    const { token } = await openSession(relay);
    const cases: Array<[string, Parameters<typeof api>[2]]> = [
      ['x-api-key alone', { headers: { 'x-api-key': token } }],
      ['x-api-key too', { token, headers: { 'x-api-key': token } }],
      ['query alone', { token: null }],
      ['cookie alone', { headers: { cookie: `parley_token=${token}` } }],
      ['cookie too', { token, headers: { cookie: `sid=1; parley_token=${token}` } }],
    ];
    for (const [name, options] of cases) {
      const path = name.startsWith('query') ? `${MODELS}?access_token=${token}` : MODELS;
      expect((await api(relay, path, options)).status, name).toBe(401);
    }
    expect((await api(relay, `${MODELS}?access_token=${token}`, { token })).status).toBe(401);
    expect((await api(relay, MODELS, { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
    expect((await api(relay, MODELS, { headers: { authorization: `Bearer ${token}, Bearer ${token}` } })).status).toBe(401);
    expect(upstream.calls).toHaveLength(0);
  });

  it('an ordinary cookie is dropped, not refused', async () => {
    const { relay, upstream } = relayWithUpstream();
    const { token } = await openSession(relay);
    expect((await api(relay, MODELS, { token, headers: { cookie: 'theme=dark' } })).status).toBe(200);
    expect(upstream.calls[0]!.headers.get('cookie')).toBeNull();
  });
});
