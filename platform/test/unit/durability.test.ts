// The local platform as users run it (`parley platform`, the compiled CLI), killed with SIGKILL after
// 2xx answers: a new process on the same data directory must find everything.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_POSTGRES, testDatabaseUrl } from './helpers.js';
import { requireBuild, startPlatformCli, stopChild } from './cli-process.js';

const KEY = 'durable-key';
let dataDir: string;
/** `--data <dir>`, or in the platform-pg project `--database-url` of a new PostgreSQL database. */
let databaseArgs: string[];

const startCli = () => startPlatformCli({ PARLEY_API_KEY: KEY, PARLEY_ADMIN_KEY: 'durable-admin' }, databaseArgs);

async function api(url: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() as any };
}

const kill = (child: ChildProcess) => stopChild(child, 'SIGKILL');

beforeAll(async () => {
  requireBuild();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-durable-'));
  databaseArgs = ON_POSTGRES ? ['--database-url', (await testDatabaseUrl())!] : ['--data', dataDir];
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('durability', () => {
  it('a conversation, its entries and an agent survive SIGKILL right after the 2xx answers', async () => {
    const first = await startCli();
    const agent = await api(first.url, '/v1/agents', { model: 'parley-local', name: 'Durable' });
    expect(agent.status).toBe(200);
    const started = await api(first.url, '/v1/conversations', { model: 'parley-local', inputs: 'remember me' });
    expect(started.status).toBe(200);
    const appended = await api(first.url, `/v1/conversations/${started.json.conversation_id}`, { inputs: 'and this' });
    expect(appended.status).toBe(200);
    // A streamed turn: once the done event has arrived, it is on disk.
    const res = await fetch(`${first.url}/v1/conversations/${started.json.conversation_id}`, {
      method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: 'streamed', stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('event: conversation.response.done');
    await kill(first.child);

    const second = await startCli();
    try {
      const history = await api(second.url, `/v1/conversations/${started.json.conversation_id}/history`);
      expect(history.status).toBe(200);
      expect(history.json.entries.map((e: any) => e.type)).toEqual(Array(3).fill(['message.input', 'message.output']).flat());
      expect(history.json.entries[1].content).toBe(started.json.outputs[0].content);
      const got = await api(second.url, `/v1/agents/${agent.json.id}`);
      expect(got.status).toBe(200);
      expect(got.json.name).toBe('Durable');
    } finally {
      await kill(second.child);
    }
  }, 300_000);
});
