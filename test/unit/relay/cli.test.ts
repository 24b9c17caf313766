// The built `parley-relay` command (bin/parley-relay.js → dist/relay/cli.js; run `npx tsc -p .` or
// `npm run build` first), spawned as a site would run it, in front of a stand-in platform over real HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, waitFor } from './redis-helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/parley-relay.js');
const KEY = 'sk-platform-cli-test-SECRET';
const ORIGIN = 'https://shop.example';
/** Environment variables the relay reads: removed from the inherited environment so the host's settings do not leak in. */
const RELAY_ENV = /^(PORT|REDIS_URL|PLATFORM_API_KEY|PLATFORM_BASE_URL|PARLEY_.*)$/;

let platform: Server;
let platformUrl = '';
let dir = '';
const seen: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/relay/config.js'))) throw new Error('dist/ is missing or stale: run `npx tsc -p .` (or `npm run build`) before this test');
  dir = mkdtempSync(join(tmpdir(), 'parley-relay-cli-'));
  // A stand-in platform: answers conversations and speech with fixed JSON, and records what reached it.
  platform = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/conversations') res.end(JSON.stringify({ object: 'conversation.response', conversation_id: `conv_${seen.length}`, outputs: [], usage: {} }));
      else res.end(JSON.stringify({ audio_data: '' }));
    });
  });
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
  platformUrl = `http://127.0.0.1:${(platform.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => platform.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!RELAY_ENV.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Runs the command to its end (refusals, --help): exit code and output. */
function runToEnd(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => { stdout += c; });
    child.stderr!.on('data', (c) => { stderr += c; });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Starts the relay and waits for its start-up banner (safety timeout 30 s); its URL and banner. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; banner: string; stdout: () => string; stderr: () => string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, '--port', '0', ...args], { env: baseEnv({ PLATFORM_API_KEY: KEY, PLATFORM_BASE_URL: platformUrl, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no start-up banner within 30 s:\n${out}\n${err}`)), 30_000);
    child.stderr!.on('data', (c) => { err += c; });
    child.stdout!.on('data', (c) => {
      out += c;
      const url = /Parley relay: (http:\/\/\S+)/.exec(out)?.[1];
      if (url && /\n {2}store /.test(out) && out.endsWith('\n')) {
        clearTimeout(timer);
        resolvePromise({ url, banner: out, stdout: () => out, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`parley-relay exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
}

async function openSession(url: string): Promise<string> {
  const res = await fetch(`${url}/session`, { method: 'POST', headers: { origin: ORIGIN } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

function call(url: string, token: string, path: string, body: unknown) {
  return fetch(`${url}${path}`, { method: 'POST', headers: { origin: ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('parley-relay: locked down by default', () => {
  it('with no policy, starts, says what it allows (nothing reachable), and refuses agents, models and other scopes', async () => {
    const { url, banner } = await start(['--allow-origin', ORIGIN]);
    expect(banner).toMatch(/origins\s+https:\/\/shop\.example/);
    expect(banner).toMatch(/public origin\s+\(not set: same-origin only for pages on localhost or an IP address/);
    expect(banner).toMatch(/agents\s+\(none\)/);
    expect(banner).toMatch(/models\s+\(none\)/);
    expect(banner).toMatch(/scopes\s+conversations\n/);
    expect(banner).toMatch(/session limits 30\/min, burst 10, 2 open streams/);
    expect(banner).toMatch(/address limits 120\/min, burst 40; sessions 20\/min, burst 10/);
    expect(banner).toMatch(/trusted hops\s+0 \(X-Forwarded-For ignored/);
    expect(banner).toMatch(/store\s+in memory/);
    expect(banner).toMatch(/pages can open sessions but reach nothing/);
    expect(banner).toMatch(/not allowed\s+speech transcription ocr agents:read models:read/);
    expect(banner).not.toContain(KEY);

    const token = await openSession(url);
    const before = seen.length;
    const agent = await call(url, token, '/v1/conversations', { agent_id: 'ag_any', inputs: 'hi' });
    expect(agent.status).toBe(403);
    expect((await agent.json()).code).toBe('agent_not_allowed');
    expect((await call(url, token, '/v1/conversations', { model: 'mistral-large-latest', inputs: 'hi' })).status).toBe(403);
    const speech = await call(url, token, '/v1/audio/speech', { input: 'hi' });
    expect(speech.status).toBe(403);
    expect((await speech.json()).code).toBe('scope_not_allowed');
    expect((await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
    expect(seen.length).toBe(before);
  });
});

describe('parley-relay: config file, environment and flags', () => {
  it('grants what the file says, the environment and flags override it, and the banner shows the result', async () => {
    const file = join(dir, 'relay.json');
    writeFileSync(file, JSON.stringify({
      allowedOrigins: [ORIGIN], agents: ['ag_file'], models: ['tts-file'], scopes: ['conversations', 'speech'],
      sessionLimits: { requestsPerMinute: 45, burst: 15 }, addressLimits: { sessionsPerMinute: 50 }, trustProxy: 1, tokenTtlSeconds: 300,
      publicOrigin: 'https://chat.shop.example',
    }));
    const { url, banner } = await start(['--config', file, '--agent', 'ag_flag', '--session-streams', '3'], { PARLEY_AGENTS: 'ag_env', PARLEY_SESSION_RPM: '60' });
    expect(banner).toMatch(/agents\s+ag_flag\n/);
    expect(banner).toMatch(/models\s+tts-file\n/);
    expect(banner).toMatch(/scopes\s+conversations speech\n/);
    expect(banner).toMatch(/token\s+300 s/);
    expect(banner).toMatch(/session limits 60\/min, burst 15, 3 open streams/);
    expect(banner).toMatch(/sessions 50\/min/);
    expect(banner).toMatch(/trusted hops\s+1 proxy hop \(/);
    expect(banner).toMatch(/public origin\s+https:\/\/chat\.shop\.example/);
    expect(banner).not.toMatch(/reach nothing/);

    const token = await openSession(url);
    expect((await call(url, token, '/v1/conversations', { agent_id: 'ag_file', inputs: 'hi' })).status).toBe(403);
    expect((await call(url, token, '/v1/conversations', { agent_id: 'ag_env', inputs: 'hi' })).status).toBe(403);
    const before = seen.length;
    expect((await call(url, token, '/v1/conversations', { agent_id: 'ag_flag', inputs: 'hi' })).status).toBe(200);
    expect((await call(url, token, '/v1/audio/speech', { model: 'tts-file', input: 'hi' })).status).toBe(200);
    expect((await call(url, token, '/v1/audio/speech', { model: 'tts-other', input: 'hi' })).status).toBe(403);
    // The platform saw the relay's key, never the page's token.
    expect(seen.slice(before)).toEqual([`POST /v1/conversations Bearer ${KEY}`, `POST /v1/audio/speech Bearer ${KEY}`]);
  });

  it('secrets come from the file too (platform key, signing secret), and are never printed', async () => {
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ platformApiKey: KEY, relaySecret: 'relay-signing-secret-0123456789-abcdef', allowedOrigins: [ORIGIN], models: ['m1'] }));
    const { url, banner } = await start(['--config', file], { PLATFORM_API_KEY: '' });
    expect(banner).not.toContain(KEY);
    expect(banner).not.toContain('relay-signing-secret');
    expect(banner).not.toMatch(/secret\s+random/);
    expect((await call(url, await openSession(url), '/v1/conversations', { model: 'm1', inputs: 'hi' })).status).toBe(200);
  });
});

describe('parley-relay: refusals exit with code 2 and say why', () => {
  it.each([
    [['--trust-proxy', 'yes'], {}, /--trust-proxy must be a whole number of proxy hops from 0 to 10, got "yes"/],
    [['--scope', 'admin'], {}, /--scope must be scopes among/],
    [['--public-origin', 'https://chat.example/app'], {}, /--public-origin must be an origin/],
    [[], { PARLEY_SESSION_BURST: '0' }, /PARLEY_SESSION_BURST must be a whole number from 1/],
    [['--redis', 'localhost:6379'], {}, /--redis must be a redis:\/\/ or rediss:\/\/ URL/],
    [['--platform-api-key', KEY], {}, /Unknown option '--platform-api-key'/],
    [['--config', '/nonexistent/relay.json'], {}, /cannot read the config file \/nonexistent\/relay\.json/],
    [[], { PARLEY_RELAY_SECRET: 'too-short-secret' }, /PARLEY_RELAY_SECRET must be a string of 32 or more bytes, got something else \(not shown\)/],
    [['--metrics-port', '70000'], {}, /--metrics-port must be a whole number from 0 to 65535/],
  ] as Array<[string[], Record<string, string>, RegExp]>)('%o %o → %s', async (args, env, message) => {
    const { code, stderr, stdout } = await runToEnd(args, { PLATFORM_API_KEY: KEY, ...env });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/^parley-relay: /);
    expect(stdout).toBe('');
  });

  it('an unknown key in the config file is named with the file', async () => {
    const file = join(dir, 'typo.json');
    writeFileSync(file, JSON.stringify({ allowedOrigin: [ORIGIN] }));
    const { code, stderr } = await runToEnd(['--config', file], { PLATFORM_API_KEY: KEY });
    expect(code).toBe(2);
    expect(stderr).toContain(`unknown key 'allowedOrigin' in the config file ${file}`);
  });

  it('without the platform key it refuses to start', async () => {
    const { code, stderr } = await runToEnd([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/PLATFORM_API_KEY/);
  });

  it('--help documents the settings and exits 0', async () => {
    const { code, stdout } = await runToEnd(['--help']);
    expect(code).toBe(0);
    for (const word of ['--config', '--trust-proxy', '--public-origin', '--agent', '--model', '--scope', '--redis', 'REDIS_URL', 'PARLEY_OPERATOR_SECRET', 'Locked down by default']) {
      expect(stdout).toContain(word);
    }
  });
});

describe('parley-relay: two instances on one Redis (--redis, PARLEY_OPERATOR_SECRET)', () => {
  it('share the session bucket and revocation through the operator endpoint; an unreachable Redis refuses to start', async () => {
    const redis = await startRedis();
    try {
      const env = { PARLEY_RELAY_SECRET: 'shared-signing-secret-0123456789-abcdef', PARLEY_OPERATOR_SECRET: 'operator-secret-0123456789-abcdefghij' };
      const args = ['--redis', redis.url, '--allow-origin', ORIGIN, '--model', 'm1', '--session-burst', '2', '--session-rpm', '1'];
      const a = await start(args, env);
      const b = await start(args, env);
      expect(a.banner).toContain(`store          Redis ${redis.url}`);
      expect(a.banner).toMatch(/operator\s+endpoint enabled/);
      expect(a.banner).not.toContain(env.PARLEY_OPERATOR_SECRET);

      // One bucket for the session, whichever instance answers.
      const token = await openSession(a.url);
      expect((await call(a.url, token, '/v1/conversations', { model: 'm1', inputs: 'hi' })).status).toBe(200);
      expect((await call(b.url, token, '/v1/conversations', { model: 'm1', inputs: 'hi' })).status).toBe(200);
      expect((await call(a.url, token, '/v1/conversations', { model: 'm1', inputs: 'hi' })).status).toBe(429);

      // Revoked on B through the operator endpoint → refused on A (polled; safety net 10 s).
      const other = await openSession(a.url);
      const sessionId = JSON.parse(Buffer.from(other.split('.')[1]!, 'base64url').toString()).sid as string;
      const revoked = await fetch(`${b.url}/operator/revoke`, { method: 'POST', headers: { authorization: `Bearer ${env.PARLEY_OPERATOR_SECRET}`, 'content-type': 'application/json' }, body: JSON.stringify({ session_id: sessionId }) });
      expect(revoked.status, await revoked.clone().text()).toBe(200);
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await call(a.url, other, '/v1/conversations', { model: 'm1', inputs: 'hi' })).status;
        if (status === 401) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(401);
    } finally {
      await redis.dispose();
    }
    const refused = await runToEnd(['--redis', 'redis://127.0.0.1:1'], { PLATFORM_API_KEY: KEY });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot use Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});

describe('parley-relay: start-up warnings, health, metrics and the access log', () => {
  it('warns about risky settings, each naming its fix, and starts', async () => {
    const redis = await startRedis();
    try {
      const relay = await start(['--redis', redis.url, '--trust-proxy', '1', '--host', '0.0.0.0', '--allow-remote-files', '--allow-origin', ORIGIN]);
      await waitFor(() => (relay.stderr().match(/warning: /g) ?? []).length >= 4, 10_000, 'four warnings');
      const warnings = relay.stderr().split('\n').filter((line) => line.startsWith('parley-relay: warning: '));
      expect(warnings).toHaveLength(4);
      expect(warnings.every((line) => /Fix: /.test(line))).toBe(true);
      expect(warnings.find((line) => line.includes('--trust-proxy'))).toMatch(/listens on 0\.0\.0\.0.*--host 127\.0\.0\.1/);
      expect(warnings.find((line) => line.includes('--allow-remote-files'))).toBeDefined();
      expect(warnings.find((line) => line.includes('PARLEY_RELAY_SECRET'))).toMatch(/refused by the others/);
      expect(warnings.find((line) => line.includes('PARLEY_OPERATOR_SECRET'))).toMatch(/cannot be revoked/);
    } finally {
      await redis.dispose();
    }
    // The same settings made safe: no warning.
    const quiet = await start(['--allow-origin', ORIGIN]);
    expect((await fetch(`${quiet.url}/healthz`)).status).toBe(200);
    expect(quiet.stderr()).toBe('');
  });

  it('serves /healthz and /readyz, metrics on --metrics-port that move after requests, and one access-log line per request', async () => {
    const relay = await start(['--allow-origin', ORIGIN, '--model', 'm1', '--metrics-port', '0', '--access-log'], { PARLEY_LOG_ADDRESSES: 'true' });
    const metricsUrl = /metrics\s+(http:\/\/\S+\/metrics)/.exec(relay.banner)?.[1];
    expect(metricsUrl, relay.banner).toBeDefined();
    expect(relay.banner).toMatch(/access log\s+on, one JSON line per request on stdout, with client addresses/);
    expect(await (await fetch(`${relay.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { upstream: 'ok' } });
    // The metrics are not on the relay's own port.
    expect((await fetch(`${relay.url}/metrics`)).status).toBe(404);
    const count = async () => Number(/^parley_relay_requests_total\{route="conversations\.start",status="200"\} (\d+)$/m.exec(await (await fetch(metricsUrl!)).text())?.[1] ?? 0);
    expect(await count()).toBe(0);
    const token = await openSession(relay.url);
    const res = await call(relay.url, token, '/v1/conversations', { model: 'm1', inputs: 'hi' });
    expect(res.status).toBe(200);
    expect(await count()).toBe(1);
    const logged = () => relay.stdout().slice(relay.banner.length).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    await waitFor(() => logged().some((line) => line.route === 'conversations.start'), 10_000, 'the access-log line');
    const line = logged().find((entry) => entry.route === 'conversations.start')!;
    expect(line).toMatchObject({ request_id: res.headers.get('x-request-id'), method: 'POST', status: 200, refusal: null, client: '127.0.0.1' });
    expect(logged().map((entry) => entry.route)).toEqual(['readyz', 'unknown', 'session', 'conversations.start']);
    expect(relay.stdout()).not.toContain(token);
  });
});
