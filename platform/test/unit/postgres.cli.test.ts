// `DATABASE_URL=postgres://… parley platform` twice, on two ports: one shared platform. And an unreachable
// server ends the process with a clear message that never shows the password.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freshDatabase, startPostgres, type PostgresServer } from './postgres-server.js';
import { requireBuild, startPlatformCli } from './cli-process.js';

const KEY = 'shared-key';
let server: PostgresServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireBuild();
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await server?.dispose();
});

/** `parley platform --port 0` with `env`; resolves with its base URL, or rejects with what it printed when it exits. */
const startCli = (env: Record<string, string>, args: string[] = []) =>
  startPlatformCli({ PARLEY_API_KEY: KEY, PARLEY_ADMIN_KEY: 'shared-admin', ...env }, args, children);

async function api(url: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() as any };
}

describe('parley platform on PostgreSQL', () => {
  it('two processes on one DATABASE_URL serve one platform: agents, conversations and rt_ secrets', async () => {
    const url = await freshDatabase(server.url);
    // Started together: one migrates and seeds, the other waits for it.
    const [a, b] = await Promise.all([startCli({ DATABASE_URL: url }), startCli({}, ['--database-url', url])]);
    expect(a.url).not.toBe(b.url);
    const agent = await api(a.url, '/v1/agents', { model: 'parley-local', name: 'Team agent' });
    expect(agent.status).toBe(200);
    expect((await api(b.url, `/v1/agents/${agent.json.id}`)).json.name).toBe('Team agent');
    const started = await api(a.url, '/v1/conversations', { agent_id: agent.json.id, inputs: 'written on A' });
    expect(started.status).toBe(200);
    const appended = await api(b.url, `/v1/conversations/${started.json.conversation_id}`, { inputs: 'written on B' });
    expect(appended.status).toBe(200);
    const history = await api(a.url, `/v1/conversations/${started.json.conversation_id}/history`);
    expect(history.json.entries.filter((e: any) => e.type === 'message.input').map((e: any) => e.content)).toEqual(['written on A', 'written on B']);

    const minted = await api(a.url, '/v1/client/sessions', { purpose: 'realtime', model: 'voxtral-mini-transcribe-realtime-2602' });
    expect(minted.status).toBe(201);
    const first = await new Promise<any>((resolve, reject) => {
      const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602`, ['realtime', minted.json.client_secret.value]);
      ws.once('message', (data) => { resolve(JSON.parse(String(data))); ws.close(); });
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
    expect(first.type).toBe('session.created');
  }, 90_000);

  it('an unreachable server ends the process with why, exit code 1, without the password', async () => {
    const err: any = await startCli({ DATABASE_URL: 'postgres://parley:hunter2-secret@127.0.0.1:1/parley' }).then(() => null, (e) => e);
    expect(err).not.toBeNull();
    expect(err.code).toBe(1);
    expect(err.out).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/parley:\*\*\*@127\.0\.0\.1:1\/parley/);
    expect(err.out).not.toContain('hunter2-secret');
  }, 60_000);
});
