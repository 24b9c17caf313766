// The local platform's memory at rest, as users start it (`parley platform`, the compiled CLI): at most
// 300 MiB resident once ready on a fresh embedded (PGlite) data directory, after its first answers, and on a
// later start of the same directory (in the platform-pg project: on a new PostgreSQL database instead).
// PGlite used to hold 818 MiB there: the 128 MB buffer pool it touches at start, and the wasm memory of the
// instance that made the directory (store/pglite.ts). The peak bound catches the latter coming back.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_POSTGRES, testDatabaseUrl } from './helpers.js';
import { requireBuild, residentMiB, startPlatformCli, stopChild } from './cli-process.js';

/** The bound on resident memory after start on PGlite; PostgreSQL's was about 105 MiB (now about 92). */
const MAX_RSS_MIB = ON_POSTGRES ? 150 : 300;
/** Peak while starting: the directory's maker used to push it past 850 MiB. */
const MAX_PEAK_MIB = 400;
/** Starting is slow on a loaded 2-core machine (a fresh PGlite directory: a minute and more); nothing here times it. */
const START_TIMEOUT_MS = 180_000;
const KEY = 'memory-key';
const env = { PARLEY_API_KEY: KEY, PARLEY_ADMIN_KEY: 'memory-admin' };
let dataDir: string;
let databaseArgs: string[];
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireBuild();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-memory-'));
  databaseArgs = ON_POSTGRES ? ['--database-url', (await testDatabaseUrl())!] : ['--data', join(dataDir, 'fresh')];
});
afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)));
  rmSync(dataDir, { recursive: true, force: true });
});

async function post(url: string, path: string, body: unknown) {
  const res = await fetch(url + path, {
    method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() as any };
}

function expectWithinBounds(pid: number, when: string) {
  const { rss, peak } = residentMiB(pid);
  expect(rss, `${when}: ${rss.toFixed(0)} MiB resident`).toBeLessThanOrEqual(MAX_RSS_MIB);
  expect(peak, `${when}: ${peak.toFixed(0)} MiB at the peak`).toBeLessThanOrEqual(MAX_PEAK_MIB);
}

describe(`memory at start (${ON_POSTGRES ? 'PostgreSQL' : 'fresh PGlite data directory'})`, () => {
  it(`parley platform holds at most ${MAX_RSS_MIB} MiB once ready, after its first answers and on a later start`, async () => {
    const first = await startPlatformCli(env, databaseArgs, children, START_TIMEOUT_MS);
    expectWithinBounds(first.child.pid!, 'ready on a fresh database');

    // It serves from that memory: a conversation is stored and read back, an agent is made.
    const started = await post(first.url, '/v1/conversations', { model: 'parley-local', inputs: 'Hello, remember me.' });
    expect(started.status).toBe(200);
    expect((await post(first.url, '/v1/agents', { model: 'parley-local', name: 'Memory' })).status).toBe(200);
    const history = await fetch(`${first.url}/v1/conversations/${started.json.conversation_id}/history`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(history.status).toBe(200);
    expect(((await history.json()) as any).entries).toHaveLength(2);
    expectWithinBounds(first.child.pid!, 'after the first answers');
    await stopChild(first.child, 'SIGTERM');

    const again = await startPlatformCli(env, databaseArgs, children, START_TIMEOUT_MS);
    expectWithinBounds(again.child.pid!, 'ready on the same database again');
    const listed = await fetch(`${again.url}/v1/conversations`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as any[]).map((c) => c.id)).toContain(started.json.conversation_id);
    await stopChild(again.child, 'SIGTERM');
  }, 600_000);
});
