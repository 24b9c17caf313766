import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Platform } from '../../src/app.js';
import { call, startPlatform } from './helpers.js';

const CHAT = 'mistral-small-latest';
const EMBED = 'mistral-embed';
const MEMBER_KEY = 'batch-member-key';
const MISSING = '00000000-0000-4000-8000-000000000000';

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

async function upload(platform: Platform, text: string, purpose = 'batch', key?: string): Promise<string> {
  const form = new FormData();
  form.append('purpose', purpose);
  form.append('file', new File([text], 'requests.jsonl'));
  const res = await call(platform, '/v1/files', { method: 'POST', rawBody: form, key });
  expect(res.status).toBe(200);
  return res.json.id;
}

async function download(platform: Platform, fileId: string): Promise<any[]> {
  const res = await call(platform, `/v1/files/${fileId}/content`);
  expect(res.status).toBe(200);
  return res.text.trim().split('\n').map((l) => JSON.parse(l));
}

const create = (platform: Platform, body: unknown, key?: string) => call(platform, '/v1/batch/jobs', { body, key });

/** Polls the job until `done` holds (default: a final status). */
async function waitFor(platform: Platform, id: string, done = (job: any) => ['SUCCESS', 'FAILED', 'TIMEOUT_EXCEEDED', 'CANCELLED'].includes(job.status), timeoutMs = 20_000) {
  const start = Date.now();
  for (;;) {
    const res = await call(platform, `/v1/batch/jobs/${id}`);
    expect(res.status).toBe(200);
    if (done(res.json)) return res.json;
    if (Date.now() - start > timeoutMs) throw new Error(`job ${id} still ${res.json.status} (${res.json.completed_requests}/${res.json.total_requests})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const chatLine = (custom_id: string, text: string, extra: Record<string, unknown> = {}) => ({ custom_id, body: { messages: [{ role: 'user', content: text }], ...extra } });

describe('batch jobs over HTTP', () => {
  let platform: Platform;
  beforeAll(async () => { platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] }); });
  afterAll(async () => { await platform.close(); });

  it('runs a JSONL of chat completions and inline embeddings to SUCCESS, with output files carrying the real answers', async () => {
    const file = await upload(platform, jsonl([chatLine('a', 'What is the best French cheese?'), chatLine('b', 'Name a river in Paris.', { max_tokens: 20 })]));
    const chat = await create(platform, { input_files: [file], endpoint: '/v1/chat/completions', model: CHAT, metadata: { run: 'happy' } });
    expect(chat.status).toBe(200);
    expect(chat.json).toMatchObject({
      object: 'batch', input_files: [file], endpoint: '/v1/chat/completions', model: CHAT, agent_id: null, metadata: { run: 'happy' },
      status: 'QUEUED', total_requests: 2, completed_requests: 0, succeeded_requests: 0, failed_requests: 0, output_file: null, error_file: null, errors: [],
    });
    expect(chat.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(chat.json.created_at)).toBe(true);

    const embed = await create(platform, { endpoint: '/v1/embeddings', model: EMBED, requests: [{ custom_id: 'e1', body: { input: ['hello batch'] } }, { body: { input: 'second' } }] });
    expect(embed.status).toBe(200);
    expect(embed.json).toMatchObject({ input_files: [], total_requests: 2, status: 'QUEUED' });

    const doneChat = await waitFor(platform, chat.json.id);
    expect(doneChat).toMatchObject({ status: 'SUCCESS', completed_requests: 2, succeeded_requests: 2, failed_requests: 0, error_file: null, errors: [] });
    expect(Number.isInteger(doneChat.started_at) && Number.isInteger(doneChat.completed_at)).toBe(true);
    expect(doneChat.completed_at).toBeGreaterThanOrEqual(doneChat.started_at);
    const meta = await call(platform, `/v1/files/${doneChat.output_file}`);
    expect(meta.json).toMatchObject({ purpose: 'batch', sample_type: 'batch_result', num_lines: 2 });
    const lines = await download(platform, doneChat.output_file);
    expect(lines.map((l) => l.custom_id)).toEqual(['a', 'b']);
    const direct = await call(platform, '/v1/chat/completions', { body: { model: CHAT, ...chatLine('a', 'What is the best French cheese?').body } });
    expect(lines[0]).toMatchObject({ id: expect.any(String), error: null, response: { status_code: 200, body: { object: 'chat.completion', model: CHAT } } });
    expect(lines[0].response.body.choices[0].message.content).toBe(direct.json.choices[0].message.content);
    expect(lines[0].response.body.choices[0].message.content.length).toBeGreaterThan(0);

    const doneEmbed = await waitFor(platform, embed.json.id);
    expect(doneEmbed).toMatchObject({ status: 'SUCCESS', succeeded_requests: 2 });
    const vectors = await download(platform, doneEmbed.output_file);
    const directEmbed = await call(platform, '/v1/embeddings', { body: { model: EMBED, input: ['hello batch'] } });
    expect(vectors[0]).toMatchObject({ custom_id: 'e1', response: { status_code: 200 } });
    expect(vectors[1].custom_id).toBeNull();
    expect(vectors[0].response.body.data[0].embedding).toEqual(directEmbed.json.data[0].embedding);

    const inline = await call(platform, `/v1/batch/jobs/${embed.json.id}?inline=true`);
    expect(inline.json.outputs.map((o: any) => o.custom_id)).toEqual(['e1', null]);
    expect((await call(platform, `/v1/batch/jobs/${embed.json.id}`)).json.outputs).toBeUndefined();
  });

  it('writes failed lines to an error file and counts them; a job whose every line fails is FAILED', async () => {
    const file = await upload(platform, jsonl([
      chatLine('good', 'Hello there'),
      { custom_id: 'no-messages', body: { max_tokens: 5 } },
      chatLine('streamed', 'Hi', { stream: true }),
    ]));
    const job = await create(platform, { input_files: [file], endpoint: '/v1/chat/completions', model: CHAT });
    const done = await waitFor(platform, job.json.id);
    expect(done).toMatchObject({ status: 'SUCCESS', total_requests: 3, completed_requests: 3, succeeded_requests: 1, failed_requests: 2 });
    expect(done.errors).toHaveLength(2);
    expect(done.errors.every((e: any) => e.count === 1)).toBe(true);
    expect(done.errors.map((e: any) => e.message).join(' ')).toMatch(/messages.*Field required|Streaming is not available/);
    const errors = await download(platform, done.error_file);
    expect(errors.map((l) => l.custom_id)).toEqual(['no-messages', 'streamed']);
    expect(errors[0]).toMatchObject({ response: { status_code: 422, body: { detail: [{ loc: ['body', 'messages'], type: 'missing' }] } }, error: { code: 'validation_error' } });
    expect(errors[1]).toMatchObject({ response: { status_code: 400 }, error: { message: expect.stringMatching(/Streaming/) } });
    expect((await download(platform, done.output_file)).map((l) => l.custom_id)).toEqual(['good']);

    const bad = await create(platform, { endpoint: '/v1/chat/completions', model: 'no-such-model', requests: [chatLine('x', 'a'), chatLine('y', 'b')] });
    const failed = await waitFor(platform, bad.json.id);
    expect(failed).toMatchObject({ status: 'FAILED', failed_requests: 2, succeeded_requests: 0, output_file: null });
    expect(failed.errors).toEqual([{ message: expect.stringMatching(/^Invalid model: no-such-model/), count: 2 }]);
  });

  it('writes result files of several pages in line order, streamed from the stored results (1,203 lines)', { timeout: 180_000 }, async () => {
    // Every third line has no input (422): both files span several pages of the writer (500 results a page).
    const records = Array.from({ length: 1203 }, (_, i) => ({ custom_id: `r${i}`, body: i % 3 === 2 ? {} : { input: `line ${i} is calm` } }));
    const file = await upload(platform, jsonl(records));
    const job = await create(platform, { input_files: [file], endpoint: '/v1/moderations', model: 'mistral-moderation-latest' });
    expect(job.status).toBe(200);
    const done = await waitFor(platform, job.json.id, undefined, 150_000);
    expect(done).toMatchObject({ status: 'SUCCESS', total_requests: 1203, succeeded_requests: 802, failed_requests: 401 });
    const outputMeta = await call(platform, `/v1/files/${done.output_file}`);
    expect(outputMeta.json).toMatchObject({ purpose: 'batch', sample_type: 'batch_result', num_lines: 802, mimetype: 'application/jsonl' });
    const errorMeta = await call(platform, `/v1/files/${done.error_file}`);
    expect(errorMeta.json).toMatchObject({ sample_type: 'batch_error', num_lines: 401 });
    const outputs = await download(platform, done.output_file);
    expect(outputs.map((l) => l.custom_id)).toEqual(records.filter((_, i) => i % 3 !== 2).map((r) => r.custom_id));
    expect(outputs.every((l) => l.response.status_code === 200)).toBe(true);
    const errors = await download(platform, done.error_file);
    expect(errors.map((l) => l.custom_id)).toEqual(records.filter((_, i) => i % 3 === 2).map((r) => r.custom_id));
    const raw = await call(platform, `/v1/files/${done.output_file}/content`);
    expect(outputMeta.json.bytes).toBe(Buffer.byteLength(raw.text));
  });

  it('runs lines on other endpoints too: moderations and fim', async () => {
    const mod = await create(platform, { endpoint: '/v1/moderations', model: 'mistral-moderation-latest', requests: [{ custom_id: 'm', body: { input: 'I will kill you' } }] });
    const fim = await create(platform, { endpoint: '/v1/fim/completions', model: 'codestral-latest', requests: [{ custom_id: 'f', body: { prompt: 'def add(a, b):', suffix: 'return c' } }] });
    const [m, f] = [await waitFor(platform, mod.json.id), await waitFor(platform, fim.json.id)];
    expect(m).toMatchObject({ status: 'SUCCESS', succeeded_requests: 1 });
    expect((await download(platform, m.output_file))[0].response.body.results[0].categories).toBeTypeOf('object');
    expect(f).toMatchObject({ status: 'SUCCESS', succeeded_requests: 1 });
  });

  it('runs an agent on chat completions (as /v1/agents/completions) and on conversations', async () => {
    const agent = await call(platform, '/v1/agents', { body: { model: CHAT, name: 'Batcher', instructions: 'Be brief.' } });
    expect(agent.status).toBe(200);
    const viaChat = await create(platform, { endpoint: '/v1/chat/completions', agent_id: agent.json.id, requests: [chatLine('a', 'Hello agent')] });
    const viaConv = await create(platform, { endpoint: '/v1/conversations', agent_id: agent.json.id, requests: [{ custom_id: 'c', body: { inputs: 'Hello again' } }] });
    expect(viaChat.json).toMatchObject({ agent_id: agent.json.id, model: null });
    const [a, c] = [await waitFor(platform, viaChat.json.id), await waitFor(platform, viaConv.json.id)];
    expect(a).toMatchObject({ status: 'SUCCESS', succeeded_requests: 1 });
    expect((await download(platform, a.output_file))[0].response.body).toMatchObject({ object: 'chat.completion', model: CHAT });
    expect(c).toMatchObject({ status: 'SUCCESS', succeeded_requests: 1 });
    const conv = (await download(platform, c.output_file))[0].response.body;
    expect(conv).toMatchObject({ object: 'conversation.response', conversation_id: expect.stringMatching(/^conv_/) });
    // The conversation was really made, for the job's creator.
    expect((await call(platform, `/v1/conversations/${conv.conversation_id}`)).json).toMatchObject({ agent_id: agent.json.id });
  });

  it('answers 404 for unknown ids and 422 for malformed ones', async () => {
    for (const [method, path] of [['GET', `/v1/batch/jobs/${MISSING}`], ['POST', `/v1/batch/jobs/${MISSING}/cancel`], ['DELETE', `/v1/batch/jobs/${MISSING}`]]) {
      const res = await call(platform, path, { method });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ object: 'error', message: `Batch job '${MISSING}' not found`, code: 'not_found' });
    }
    const bad = await call(platform, '/v1/batch/jobs/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['path', 'job_id'], type: 'uuid_parsing' });
    const noFile = await create(platform, { input_files: [MISSING], endpoint: '/v1/embeddings', model: EMBED });
    expect(noFile.status).toBe(404);
    expect(noFile.json.message).toBe(`File '${MISSING}' not found`);
    const noAgent = await create(platform, { agent_id: 'ag_missing', endpoint: '/v1/chat/completions', requests: [chatLine('a', 'b')] });
    expect(noAgent.status).toBe(404);
  });

  it('refuses bad input with 422 detail, including unsupported endpoints', async () => {
    const detail = async (body: unknown) => {
      const res = await create(platform, body);
      expect(res.status).toBe(422);
      return res.json.detail as any[];
    };
    const unsupported = await detail({ endpoint: '/v1/agents/completions', model: CHAT, requests: [chatLine('a', 'b')] });
    expect(unsupported[0]).toMatchObject({ loc: ['body', 'endpoint'], type: 'enum', input: '/v1/agents/completions' });
    expect(unsupported[0].msg).toContain("'/v1/chat/completions'");
    expect(unsupported[0].msg).toContain("'/v1/audio/transcriptions'");
    expect((await detail({ model: CHAT, requests: [chatLine('a', 'b')] }))[0]).toMatchObject({ loc: ['body', 'endpoint'], type: 'missing' });
    expect((await detail({ endpoint: '/v1/embeddings', model: EMBED }))[0]).toMatchObject({ loc: ['body', 'input_files'], type: 'missing' });
    expect((await detail({ endpoint: '/v1/embeddings', model: EMBED, requests: [] }))[0].loc).toEqual(['body', 'input_files']);
    expect((await detail({ endpoint: '/v1/embeddings', model: EMBED, requests: [{ custom_id: 'a' }] }))[0]).toMatchObject({ loc: ['body', 'requests', 0, 'body'], type: 'missing' });
    expect((await detail({ endpoint: '/v1/embeddings', model: EMBED, requests: [{ body: { input: 'x' } }], timeout_hours: 0 }))[0].loc).toEqual(['body', 'timeout_hours']);
    expect((await detail({ endpoint: '/v1/embeddings', model: EMBED, requests: [{ body: { input: 'x' } }], metadata: { n: 1 } }))[0].loc).toEqual(['body', 'metadata', 'n']);
    expect((await detail({ endpoint: '/v1/chat/completions', model: CHAT, agent_id: 'ag_x', requests: [chatLine('a', 'b')] }))[0].loc).toEqual(['body', 'agent_id']);
    expect((await detail({ endpoint: '/v1/embeddings', agent_id: 'ag_x', requests: [{ body: { input: 'x' } }] }))[0].msg).toMatch(/only for the endpoints/);
    const fineTune = await upload(platform, jsonl([{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }] }]), 'fine-tune');
    const wrongPurpose = await detail({ endpoint: '/v1/chat/completions', model: CHAT, input_files: [fineTune] });
    expect(wrongPurpose[0]).toMatchObject({ loc: ['body', 'input_files', 0], msg: expect.stringMatching(/purpose 'fine-tune'/) });
    const bodyNotObject = await upload(platform, jsonl([{ custom_id: 'a', body: 'text' }]));
    expect((await detail({ endpoint: '/v1/chat/completions', model: CHAT, input_files: [bodyNotObject] }))[0].msg).toMatch(/line 1 must be an object with a "body" object/);
    const notJson = await call(platform, '/v1/batch/jobs', { method: 'POST', rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(422);
    const badList = await call(platform, '/v1/batch/jobs?status=DONE&page=-1');
    expect(badList.status).toBe(422);
    expect(badList.json.detail.map((d: any) => d.loc)).toEqual([['query', 'page'], ['query', 'status', 0]]);
    expect((await call(platform, '/v1/batch/jobs?metadata=[1]')).status).toBe(422);
    expect((await call(platform, '/v1/batch/jobs?created_after=yesterday')).status).toBe(422);
  });

  it('lists with page, page_size, model, metadata, status, created_by_me, created_after and order_by filters', async () => {
    const fresh = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] });
    try {
      const body = (tag: string, model = EMBED) => ({ endpoint: '/v1/embeddings', model, metadata: { tag }, requests: [{ body: { input: tag } }] });
      const a = (await create(fresh, body('a'))).json;
      const b = (await create(fresh, body('b', 'parley-embed'), MEMBER_KEY)).json;
      const c = (await create(fresh, body('c'))).json;
      for (const j of [a, b, c]) await waitFor(fresh, j.id);
      const list = async (query: string, key?: string) => {
        const res = await call(fresh, `/v1/batch/jobs${query}`, { key });
        expect(res.status).toBe(200);
        expect(res.json.object).toBe('list');
        return { ids: res.json.data.map((j: any) => j.id), total: res.json.total };
      };
      expect(await list('')).toEqual({ ids: [c.id, b.id, a.id], total: 3 });
      expect(await list('?order_by=created&page_size=2')).toEqual({ ids: [a.id, b.id], total: 3 });
      expect(await list('?order_by=created&page_size=2&page=1')).toEqual({ ids: [c.id], total: 3 });
      expect(await list('?model=parley-embed')).toEqual({ ids: [b.id], total: 1 });
      expect(await list(`?metadata=${encodeURIComponent('{"tag":"c"}')}`)).toEqual({ ids: [c.id], total: 1 });
      expect(await list('?tag=a')).toEqual({ ids: [a.id], total: 1 });
      expect(await list('?created_by_me=true', MEMBER_KEY)).toEqual({ ids: [b.id], total: 1 });
      expect((await list('?created_by_me=false', MEMBER_KEY)).total).toBe(3);
      expect(await list('?status=SUCCESS&status=FAILED')).toMatchObject({ total: 3 });
      expect(await list('?status=QUEUED')).toEqual({ ids: [], total: 0 });
      expect(await list(`?created_after=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).toEqual({ ids: [], total: 0 });
      expect((await list(`?created_after=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).total).toBe(3);
      // A member of the workspace sees and may cancel or delete the others' jobs; deleting keeps the result files.
      const deleted = await call(fresh, `/v1/batch/jobs/${a.id}`, { method: 'DELETE', key: MEMBER_KEY });
      expect(deleted.json).toEqual({ id: a.id, object: 'batch', deleted: true });
      expect((await call(fresh, `/v1/batch/jobs/${a.id}`)).status).toBe(404);
      expect((await list('')).total).toBe(2);
    } finally {
      await fresh.close();
    }
  });
});

describe('batch job cancellation and timeout', () => {
  let platform: Platform;
  // Slow tokens: a chat line takes a while, so a job can be caught while it runs.
  beforeAll(async () => { platform = await startPlatform({ tokenDelayMs: 15 }); });
  afterAll(async () => { await platform.close(); });

  const many = (n: number) => Array.from({ length: n }, (_, i) => chatLine(`r${i}`, `Tell me a long story about the number ${i}.`));

  it('cancels a running job between lines, and a queued job at once', async () => {
    const running = (await create(platform, { endpoint: '/v1/chat/completions', model: CHAT, requests: many(30) })).json;
    const queued = (await create(platform, { endpoint: '/v1/chat/completions', model: CHAT, requests: many(2) })).json;
    await waitFor(platform, running.id, (j) => j.completed_requests >= 1);

    const q = await call(platform, `/v1/batch/jobs/${queued.id}/cancel`, { method: 'POST' });
    expect(q.status).toBe(200);
    expect(q.json).toMatchObject({ status: 'CANCELLED', completed_requests: 0, started_at: null });
    expect(Number.isInteger(q.json.completed_at)).toBe(true);

    const r = await call(platform, `/v1/batch/jobs/${running.id}/cancel`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(['CANCELLATION_REQUESTED', 'CANCELLED']).toContain(r.json.status);
    const done = await waitFor(platform, running.id);
    expect(done.status).toBe('CANCELLED');
    expect(done.completed_requests).toBeLessThan(30);
    expect(done.completed_requests).toBe(done.succeeded_requests);
    const out = await download(platform, done.output_file);
    expect(out.map((l) => l.custom_id)).toEqual(Array.from({ length: done.succeeded_requests }, (_, i) => `r${i}`));

    const again = await call(platform, `/v1/batch/jobs/${running.id}/cancel`, { method: 'POST' });
    expect(again.json.status).toBe('CANCELLED');
    expect((await waitFor(platform, queued.id)).completed_requests).toBe(0);
    const finished = (await create(platform, { endpoint: '/v1/embeddings', model: EMBED, requests: [{ body: { input: 'x' } }] })).json;
    await waitFor(platform, finished.id);
    const late = await call(platform, `/v1/batch/jobs/${finished.id}/cancel`, { method: 'POST' });
    expect(late.status).toBe(400);
    expect(late.json.message).toMatch(/already SUCCESS/);
  });

  it('stops a job that passes its timeout with TIMEOUT_EXCEEDED and keeps the results so far', async () => {
    const job = (await create(platform, { endpoint: '/v1/chat/completions', model: CHAT, timeout_hours: 1, requests: many(30) })).json;
    await waitFor(platform, job.id, (j) => j.completed_requests >= 1);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 3_600_000);
      const done = await waitFor(platform, job.id);
      expect(done.status).toBe('TIMEOUT_EXCEEDED');
      expect(done.completed_requests).toBeLessThan(30);
      expect(done.errors[0].message).toMatch(/timeout of 1 hours/);
      expect((await download(platform, done.output_file)).length).toBe(done.succeeded_requests);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('batch job durability', () => {
  let dataDir: string;
  beforeAll(() => { dataDir = mkdtempSync(join(tmpdir(), 'parley-batch-')); });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a finished job and its files survive a reopen; a job interrupted by a close resumes and finishes', async () => {
    let p = await startPlatform({ dataDir, tokenDelayMs: 15 });
    const finished = (await create(p, { endpoint: '/v1/embeddings', model: EMBED, metadata: { keep: 'me' }, requests: [{ custom_id: 'k', body: { input: 'durable' } }] })).json;
    const doneBefore = await waitFor(p, finished.id);
    const interrupted = (await create(p, { endpoint: '/v1/chat/completions', model: CHAT, requests: Array.from({ length: 12 }, (_, i) => chatLine(`i${i}`, `Question ${i}`)) })).json;
    const partial = await waitFor(p, interrupted.id, (j) => j.completed_requests >= 1);
    expect(partial).toMatchObject({ status: 'RUNNING' });
    expect(partial.completed_requests).toBeLessThan(12);
    await p.close();

    p = await startPlatform({ dataDir });
    try {
      expect((await call(p, `/v1/batch/jobs/${finished.id}`)).json).toEqual(doneBefore);
      expect((await download(p, doneBefore.output_file))[0]).toMatchObject({ custom_id: 'k', response: { status_code: 200 } });
      const resumed = await waitFor(p, interrupted.id);
      expect(resumed.started_at).toBe(partial.started_at);
      expect(resumed).toMatchObject({ status: 'SUCCESS', total_requests: 12, completed_requests: 12, succeeded_requests: 12 });
      expect((await download(p, resumed.output_file)).map((l) => l.custom_id)).toEqual(Array.from({ length: 12 }, (_, i) => `i${i}`));
    } finally {
      await p.close();
    }
  }, 60_000);
});
