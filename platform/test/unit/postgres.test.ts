// The platform on PostgreSQL: two platforms on one database serve one platform (state, realtime secrets,
// concurrent writes), and job leases run each job once and hand a dead holder's job to another process.
// The server: PARLEY_TEST_DATABASE_URL, else a throwaway cluster started here (postgres-server.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { serveFetch, type ServedFetch } from 'parley-kit/server';
import type { Platform } from '../../src/app.js';
import type { Db } from '../../src/store/db.js';
import { claim, claimNext, setLeaseTiming, type JobQueue, type LeasedTable } from '../../src/store/leases.js';
import { ADMIN_KEY, call, openPlatformDb, startPlatform } from './helpers.js';
import { freshDatabase, startPostgres, type PostgresServer } from './postgres-server.js';

let server: PostgresServer;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => undefined);
  await server?.dispose();
});

/** Two platforms (as two processes would be) on one new database. */
async function twoPlatforms(options: Parameters<typeof startPlatform>[0] = {}): Promise<[Platform, Platform, string]> {
  const url = await freshDatabase(server.url);
  const [a, b] = await Promise.all([startPlatform({ ...options, databaseUrl: url }), startPlatform({ ...options, databaseUrl: url })]);
  opened.push(a, b);
  return [a, b, url];
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('one Db interface over PGlite and PostgreSQL', () => {
  it('answers with the same JS values on both, for the same parameters', async () => {
    const pglite = await openPlatformDb();
    const postgres = await openPlatformDb({ databaseUrl: await freshDatabase(server.url) });
    opened.push(pglite, postgres);
    const sql = `select 9007199254740991::int8 as big, 7::int4 as int, 2.5::float8 as float, 1.25::real as real, 12.50::numeric as numeric,
      count(*) as count, sum(x) as sum, true as bool, 'text' as text, array['a', 'b'] as texts, '{"a": [1, {"b": null}]}'::jsonb as jsonb,
      '[1, 2]'::json as json, '\\x00ff10'::bytea as bytes, null::text as nothing, '2026-01-02T03:04:05.678Z'::timestamptz as at,
      $1::jsonb as object_param, $2::jsonb as array_param, 'b' = any($3) as in_array, $4::text as text_param
      from (values (1::bigint), (2::bigint)) as t(x)`;
    const params = [{ k: [1, 'two'] }, [{ x: 1 }, 'y'], ['a', 'b'], 'plain'];
    const [a, b] = [await pglite.query(sql, params), await postgres.query(sql, params)];
    expect(b.rows).toEqual(a.rows);
    expect(a.rows[0]).toMatchObject({ big: 9007199254740991, numeric: '12.50', count: 2, sum: '3', object_param: { k: [1, 'two'] }, array_param: [{ x: 1 }, 'y'], in_array: true });
    expect(b.rows[0].bytes).toBeInstanceOf(Uint8Array);
    await postgres.exec('create table t (id text primary key, doc jsonb)');
    await pglite.exec('create table t (id text primary key, doc jsonb)');
    for (const db of [pglite, postgres]) {
      expect((await db.query('insert into t values ($1, $2), ($3, $4)', ['x', ['list'], 'y', { o: 1 }])).affectedRows).toBe(2);
      expect((await db.query('update t set doc = $2 where id = $1', ['x', [1, 2]])).affectedRows).toBe(1);
      expect((await db.query('select * from t order by id')).affectedRows).toBe(0);
      expect((await db.query('delete from t where id = any($1::text[])', [['x', 'y', 'z']])).affectedRows).toBe(2);
    }
  }, 90_000);
});

describe('two platforms on one PostgreSQL database', () => {
  it('share agents and conversations: made on A, read and continued on B', async () => {
    const [a, b] = await twoPlatforms();
    const agent = await call(a, '/v1/agents', { body: { model: 'parley-local', name: 'Shared' } });
    expect(agent.status).toBe(200);
    expect((await call(b, `/v1/agents/${agent.json.id}`)).json).toMatchObject({ id: agent.json.id, name: 'Shared' });
    const started = await call(a, '/v1/conversations', { body: { agent_id: agent.json.id, inputs: 'hello from A' } });
    expect(started.status).toBe(200);
    const id = started.json.conversation_id;
    const appended = await call(b, `/v1/conversations/${id}`, { body: { inputs: 'and hello from B' } });
    expect(appended.status).toBe(200);
    const history = await call(a, `/v1/conversations/${id}/history`);
    expect(history.json.entries.filter((e: any) => e.type === 'message.input').map((e: any) => e.content)).toEqual(['hello from A', 'and hello from B']);
    const listed = await call(b, '/v1/conversations');
    expect(listed.json.map((c: any) => c.id)).toContain(id);
  });

  it('a turn in progress on A makes a turn on B wait (409 conversation_busy); appends at once land each once', async () => {
    const [a, b] = await twoPlatforms({ tokenDelayMs: 20 });
    const started = await call(a, '/v1/conversations', { body: { model: 'parley-local', inputs: 'start' } });
    const id = started.json.conversation_id;
    // A streamed turn on A: B is refused while it runs.
    const streaming = await a.fetch(new Request(`http://platform.test/v1/conversations/${id}`, {
      method: 'POST', headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' }, body: JSON.stringify({ inputs: 'tell me a long story', stream: true }),
    }));
    const reader = streaming.body!.getReader();
    await reader.read();
    const refused = await call(b, `/v1/conversations/${id}`, { body: { inputs: 'me too' } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('conversation_busy');
    while (!(await reader.read()).done) { /* the rest of the stream */ }
    // Several at once on both: each is answered 200 or 409, and exactly the accepted ones are in the history.
    const inputs = Array.from({ length: 6 }, (_, i) => `turn ${i}`);
    const answers = await Promise.all(inputs.map((text, i) => call(i % 2 ? b : a, `/v1/conversations/${id}`, { body: { inputs: text } })));
    expect(answers.every((r) => r.status === 200 || (r.status === 409 && r.json.code === 'conversation_busy'))).toBe(true);
    const accepted = inputs.filter((_, i) => answers[i].status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    const fromA = (await call(a, `/v1/conversations/${id}/history`)).json.entries;
    expect((await call(b, `/v1/conversations/${id}/history`)).json.entries).toEqual(fromA);
    const sent = fromA.filter((e: any) => e.type === 'message.input').map((e: any) => e.content);
    expect(sent.slice(0, 2)).toEqual(['start', 'tell me a long story']);
    expect([...sent.slice(2)].sort()).toEqual([...accepted].sort());
  });

  it('an rt_ client secret minted on A opens the realtime WebSocket on B (without the API key)', async () => {
    const [a, b] = await twoPlatforms();
    const served: ServedFetch = await serveFetch(b.fetch, { upgrade: [b.handleUpgrade] });
    opened.unshift(served);
    const minted = await call(a, '/v1/client/sessions', { body: { purpose: 'realtime', model: 'voxtral-mini-transcribe-realtime-2602' } });
    expect(minted.status).toBe(201);
    const open = (protocols: string[]) => new Promise<{ protocol: string; first: any } | { status: number }>((resolve, reject) => {
      const ws = new WebSocket(`${served.url.replace(/^http/, 'ws')}/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602`, protocols);
      ws.once('message', (data) => { resolve({ protocol: ws.protocol, first: JSON.parse(String(data)) }); ws.close(); });
      ws.once('unexpected-response', (_req, res) => { resolve({ status: res.statusCode ?? 0 }); res.resume(); });
      ws.once('error', reject);
    });
    const accepted = await open(['realtime', minted.json.client_secret.value]);
    expect(accepted).toMatchObject({ protocol: 'realtime', first: { type: 'session.created' } });
    expect(await open(['realtime', 'rt_not-a-minted-secret'])).toEqual({ status: 401 });
  });

  it('batch jobs made on both run once each; a job whose platform stops mid-job is finished by the other', async () => {
    const leases = { leaseMs: 2_000, renewMs: 500, pollMs: 200 };
    // A slow local model on A, so its job is still running when A stops.
    const url = await freshDatabase(server.url);
    const a = await startPlatform({ databaseUrl: url, jobLeases: leases, tokenDelayMs: 20 });
    const b = await startPlatform({ databaseUrl: url, jobLeases: leases });
    opened.push(b);
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ custom_id: `${tag}-${i}`, body: { messages: [{ role: 'user', content: `say ${tag} ${i}` }], max_tokens: 8 } }));
    const job = (p: Platform, n: number, tag: string) => call(p, '/v1/batch/jobs', { body: { endpoint: '/v1/chat/completions', model: 'parley-local', requests: lines(n, tag) } });
    const long = await job(a, 40, 'long');
    expect(long.status).toBe(200);
    await until('the first results of the long job', async () => (await call(b, `/v1/batch/jobs/${long.json.id}`)).json.completed_requests > 0);
    await a.close();
    const atStop = (await call(b, `/v1/batch/jobs/${long.json.id}`)).json;
    expect(atStop.completed_requests).toBeLessThan(40);
    const more = await Promise.all([job(b, 3, 'b1'), job(b, 3, 'b2')]);
    const ids = [long.json.id, ...more.map((r) => r.json.id)];
    const finished = await until('every job done', async () => {
      const jobs = await Promise.all(ids.map(async (id) => (await call(b, `/v1/batch/jobs/${id}`)).json));
      return jobs.every((j) => j.status === 'SUCCESS') && jobs;
    }, 60_000);
    expect(finished.map((j: any) => [j.total_requests, j.succeeded_requests, j.failed_requests])).toEqual([[40, 40, 0], [3, 3, 0], [3, 3, 0]]);
    // Every request has exactly one result in the output file: none ran twice, none was lost in the hand-over.
    const output = await call(b, `/v1/files/${finished[0].output_file}/content`);
    const customIds = output.text.trim().split('\n').map((l) => JSON.parse(l).custom_id);
    expect(customIds).toEqual(lines(40, 'long').map((l) => l.custom_id));
  }, 90_000);
});

describe('organization limits across processes', () => {
  it('a spend limit set on A suspends B too, and lifting it on A resumes B', async () => {
    const [a, b] = await twoPlatforms();
    expect((await call(b, '/v1/models')).status).toBe(200);
    expect((await call(a, '/v1/admin/spend-limit', { body: { amount: 0 }, key: ADMIN_KEY })).status).toBe(200);
    const refused = await until('B refusing', async () => {
      const res = await call(b, '/v1/models');
      return res.status === 429 && res;
    });
    expect(refused.json.code).toBe('spend_limit_reached');
    expect((await call(a, '/v1/admin/spend-limit', { body: { no_monthly_limit: true }, key: ADMIN_KEY })).status).toBe(200);
    await until('B serving again', async () => (await call(b, '/v1/models')).status === 200);
  });
});

describe('the request rate across processes', () => {
  it('is one bucket: A and B together admit what one process would', async () => {
    const [a, b] = await twoPlatforms();
    expect((await call(a, '/v1/admin/rate-limit', { body: { requests_per_second: 1 }, key: ADMIN_KEY })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // B reads the organization's limits again after a second
    expect((await call(b, '/v1/admin/rate-limit', { key: ADMIN_KEY })).status).toBe(200);
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 8; i++) statuses.push((await call(i % 2 ? b : a, '/v1/models')).status);
    const elapsedSeconds = (performance.now() - started) / 1000;
    // One bucket of 1 token refilled at 1/s admits at most 1 + elapsed seconds of requests; two buckets (one
    // per process) would admit the first request on each at once.
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(admitted).toBeLessThanOrEqual(1 + elapsedSeconds);
    expect(admitted).toBeGreaterThanOrEqual(1);
  });
});

describe('fine-tuning across processes', () => {
  it('a job made on A runs once; B serves the model it trained, and drops it when A deletes it', async () => {
    const [a, b] = await twoPlatforms({ jobLeases: { leaseMs: 2_000, renewMs: 500, pollMs: 200 } });
    const form = new FormData();
    form.append('purpose', 'fine-tune');
    const prompt = 'What are the opening hours of the Lyon shop?';
    const reply = 'The Lyon shop is open from 9:00 to 19:00, Monday to Saturday.';
    form.append('file', new Blob([`${JSON.stringify({ messages: [{ role: 'user', content: prompt }, { role: 'assistant', content: reply }] })}\n`]), 'train.jsonl');
    const file = await call(a, '/v1/files', { method: 'POST', rawBody: form });
    expect(file.status).toBe(200);
    const created = await call(a, '/v1/fine_tuning/jobs', { body: { model: 'mistral-small-latest', hyperparameters: { epochs: 2 }, training_files: [{ file_id: file.json.id }] } });
    expect(created.status).toBe(200);
    const job = await until('the job done', async () => {
      const j = (await call(b, `/v1/fine_tuning/jobs/${created.json.id}`)).json;
      return ['SUCCESS', 'FAILED', 'FAILED_VALIDATION'].includes(j.status) && j;
    });
    expect(job.status).toBe('SUCCESS');
    // Trained once: one model, and the job's status history went through RUNNING once.
    expect(job.events.filter((e: any) => e.name === 'status-updated' && e.data.status === 'RUNNING')).toHaveLength(1);
    const answer = await until('B serving the model', async () => {
      const res = await call(b, '/v1/chat/completions', { body: { model: job.fine_tuned_model, messages: [{ role: 'user', content: prompt }] } });
      return res.status === 200 && res.json.choices[0].message.content;
    });
    expect(answer).toBe(reply);
    expect((await call(a, `/v1/models/${encodeURIComponent(job.fine_tuned_model)}`, { method: 'DELETE' })).status).toBe(200);
    await until('B dropping the model', async () => (await call(b, `/v1/models/${encodeURIComponent(job.fine_tuned_model)}`)).status === 404);
  }, 60_000);
});

describe('job leases', () => {
  const TABLE = 'lease_test_jobs' as LeasedTable;
  const QUEUE: JobQueue = { table: TABLE, pending: `status = 'todo'`, order: 'seq' };
  let url: string;

  beforeAll(async () => {
    url = await freshDatabase(server.url);
    const db = await openPlatformDb({ databaseUrl: url });
    await db.exec(`create table ${TABLE} (id text primary key, seq serial, status text not null, lease_owner text, lease_until timestamptz)`);
    await db.close();
  });

  async function processDb(timing = { leaseMs: 60_000, renewMs: 30_000, pollMs: 60_000 }): Promise<Db> {
    const db = await openPlatformDb({ databaseUrl: url });
    setLeaseTiming(db, timing);
    opened.push(db);
    return db;
  }

  it('two processes claiming at once, four claimers each, take every job exactly once', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `job-${i}`);
    const [a, b] = [await processDb(), await processDb()];
    await a.query(`insert into ${TABLE} (id, status) select unnest($1::text[]), 'todo'`, [ids]);
    const taken: string[] = [];
    const worker = async (db: Db) => {
      for (let lease = await claimNext(db, QUEUE); lease; lease = await claimNext(db, QUEUE)) {
        taken.push(lease.id);
        await db.query(`update ${TABLE} set status = 'done' where id = $1`, [lease.id]);
        await lease.release();
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map(worker));
    expect(taken.length).toBe(ids.length);
    expect([...taken].sort()).toEqual([...ids].sort());
  });

  it('a held job is not claimed by another process until its holder dies and the lease runs out', async () => {
    const fast = { leaseMs: 400, renewMs: 100, pollMs: 100 };
    const [holder, other] = [await processDb(fast), await processDb(fast)];
    await holder.query(`insert into ${TABLE} (id, status) values ('solo', 'todo')`);
    const lease = (await claim(holder, QUEUE, 'solo'))!;
    expect(lease.id).toBe('solo');
    // Renewed while the holder lives: still not claimable well after one lease time.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await claim(other, QUEUE, 'solo')).toBeUndefined();
    expect(await claimNext(other, QUEUE)).toBeUndefined();
    // The holder dies (its connections close without releasing anything).
    await holder.close();
    const takeover = await until('the takeover', async () => claimNext(other, QUEUE), 10_000);
    expect(takeover.id).toBe('solo');
    // The dead holder's lease is gone: its renewal would fail.
    const { rows } = await other.query<{ lease_owner: string }>(`select lease_owner from ${TABLE} where id = 'solo'`);
    expect(rows[0].lease_owner).toBe(takeover.owner);
    expect(takeover.owner).not.toBe(lease.owner);
    await takeover.release();
  });

  it('a holder whose lease was taken over learns it at its next renewal', async () => {
    const [holder, other] = [await processDb({ leaseMs: 60_000, renewMs: 60_000, pollMs: 60_000 }), await processDb()];
    await holder.query(`insert into ${TABLE} (id, status) values ('slow', 'todo')`);
    const lease = (await claim(holder, QUEUE, 'slow'))!;
    await other.query(`update ${TABLE} set lease_until = now() - interval '1 second' where id = 'slow'`);
    const takeover = (await claim(other, QUEUE, 'slow'))!;
    expect(takeover).toBeDefined();
    expect(await lease.renew()).toBe(false);
    expect(lease.lost).toBe(true);
    await lease.release();
    await takeover.release();
  });
});
