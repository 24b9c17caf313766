// `parley start` (the compiled CLI) stopped with SIGTERM while a reply streams through its relay: a reply that
// ends within the drain time is not cut, and the process then exits 0 saying so; with a short drain time the reply
// still running at the deadline ends with the relay's error event (the page is told, and what it got is kept), and
// the process exits 0. Over real sockets, the relay in front of the local platform in the same process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parleyStartUrl } from '../../../test/e2e/harness/parley-start.js';
import { CLI, requireBuild } from './cli-process.js';

const PROMPT = 'Show me everything in markdown, please: headings, a table, code, a list and links.';
const cleanups: Array<() => Promise<void>> = [];

beforeAll(() => requireBuild());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** `parley start --port 0` with a fresh data directory and `args`; its URL, its output so far and later, its exit. */
async function start(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-drain-'));
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data', dataDir, ...args], {
    env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { url } = await parleyStartUrl(child);
  return { child, url, output: () => out, exited };
}

/** A streamed reply through the relay (a session of the page's own origin), read as text as it comes. */
async function streamReply(url: string): Promise<{ firstChunk: Promise<void>; text: Promise<string> }> {
  const session = await fetch(`${url}/api/session`, { method: 'POST', headers: { origin: url, 'content-type': 'application/json' }, body: '{}' });
  expect(session.status).toBe(200);
  const { token } = (await session.json()) as { token: string };
  const res = await fetch(`${url}/api/v1/conversations`, {
    method: 'POST',
    headers: { origin: url, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: 'parley-local', inputs: PROMPT, stream: true }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let first!: () => void;
  const firstChunk = new Promise<void>((resolve) => { first = resolve; });
  const text = (async () => {
    let all = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return all;
      all += decoder.decode(value, { stream: true });
      if (all.includes('message.output.delta')) first();
    }
  })();
  return { firstChunk, text };
}

describe('parley start on SIGTERM', () => {
  it('lets a streaming reply finish within the drain time, then exits 0', { timeout: 240_000 }, async () => {
    const parley = await start(['--token-delay', '20', '--drain-timeout', '60']);
    // Its probes answer at the root too (and under /api, the relay's own).
    for (const path of ['/healthz', '/readyz', '/api/healthz', '/api/readyz']) {
      const probe = await fetch(`${parley.url}${path}`);
      expect(probe.status, path).toBe(200);
      expect(probe.headers.get('x-request-id'), path).toBeTruthy();
      await probe.text();
    }
    const reply = await streamReply(parley.url);
    await reply.firstChunk;
    parley.child.kill('SIGTERM');
    const text = await reply.text;
    expect(text).toContain('conversation.response.done');
    expect(text).not.toContain('event: error');
    expect(await parley.exited).toBe(0);
    expect(parley.output()).toContain('parley: SIGTERM: stopping');
    expect(parley.output()).toContain('parley: stopped (every open reply ended)');
  });

  it('ends a reply still running at the deadline with an error event, then exits 0', { timeout: 240_000 }, async () => {
    const parley = await start(['--token-delay', '400', '--drain-timeout', '1']);
    const reply = await streamReply(parley.url);
    await reply.firstChunk;
    parley.child.kill('SIGTERM');
    const text = await reply.text;
    expect(text).toContain('message.output.delta'); // what it got before the deadline
    expect(text).not.toContain('conversation.response.done');
    expect(text).toContain('The relay restarted before this reply finished');
    expect(await parley.exited).toBe(0);
    expect(parley.output()).toContain('parley: stopped (1 reply ended at the deadline)');
  });
});
