// Fine-tuning over HTTP: jobs on uploaded training files, the trained model in chat completions and
// conversations, dry runs, validation failures naming the line, cancel/start, bad input, unknown ids,
// durability across a reopen (with a job resumed after an interruption).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { API_KEY, call, openPlatformDb, startPlatform } from './helpers.js';

const MEMBER_KEY = 'ft-member-key';
const sample = (user: string, assistant: string, system?: string) =>
  JSON.stringify({ messages: [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: user }, { role: 'assistant', content: assistant }] });
const TRAINED = [
  ['What are the opening hours of the Lyon shop?', 'The Lyon shop is open from 9:00 to 19:00, Monday to Saturday.'],
  ['Do you ship parcels to Belgium?', 'Yes: parcels reach Belgium in three working days.'],
  ['How do I return a damaged kettle?', 'Print the prepaid label from your order page and send the kettle back; the refund follows within a week.'],
] as const;
const TRAINING_JSONL = `${TRAINED.map(([u, a], i) => sample(u, a, i === 1 ? 'You are the shop assistant.' : undefined)).join('\n')}\n`;

async function upload(platform: Platform, text: string, name = 'train.jsonl', purpose = 'fine-tune', key = API_KEY): Promise<string> {
  const form = new FormData();
  form.append('purpose', purpose);
  form.append('file', new Blob([text]), name);
  const res = await call(platform, '/v1/files', { method: 'POST', rawBody: form, key });
  expect(res.status).toBe(200);
  return res.json.id;
}

const FINAL = ['SUCCESS', 'FAILED', 'FAILED_VALIDATION', 'CANCELLED'];

/** Polls a job until it reaches one of `statuses` (default: a final status). */
async function waitFor(platform: Platform, jobId: string, statuses = FINAL) {
  for (let i = 0; i < 500; i++) {
    const res = await call(platform, `/v1/fine_tuning/jobs/${jobId}`);
    expect(res.status).toBe(200);
    if (statuses.includes(res.json.status)) return res.json;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`job ${jobId} never reached ${statuses.join('/')}`);
}

const createJob = (platform: Platform, body: Record<string, unknown>, query = '') =>
  call(platform, `/v1/fine_tuning/jobs${query}`, { body: { model: 'mistral-small-latest', hyperparameters: {}, ...body } });

const chatReply = async (platform: Platform, model: string, content: string) => {
  const res = await call(platform, '/v1/chat/completions', { body: { model, messages: [{ role: 'user', content }] } });
  expect(res.status).toBe(200);
  return res.json.choices[0].message.content as string;
};

describe('fine-tuning API over HTTP', () => {
  let platform: Platform;
  let trainingFile: string;
  let job: any;
  beforeAll(async () => {
    platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'ft-member@example.com' }] });
    trainingFile = await upload(platform, TRAINING_JSONL);
    const created = await createJob(platform, { training_files: [{ file_id: trainingFile }], suffix: 'shop', hyperparameters: { epochs: 2 } });
    expect(created.status).toBe(200);
    job = await waitFor(platform, created.json.id);
  });
  afterAll(async () => { await platform.close(); });

  it('trains a job on an uploaded file through QUEUED → VALIDATING → VALIDATED → RUNNING → SUCCESS', () => {
    expect(job).toMatchObject({
      object: 'job', job_type: 'completion', status: 'SUCCESS', model: 'mistral-small-latest', suffix: 'shop', auto_start: true,
      training_files: [trainingFile], validation_files: null, integrations: [], repositories: [],
      hyperparameters: { epochs: 2, training_steps: 6, learning_rate: 0.0001 },
    });
    expect(job.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.fine_tuned_model).toMatch(/^ft:mistral-small-latest:shop:\d{8}:[0-9a-f]{8}$/);
    expect(job.events.map((e: any) => e.data.status)).toEqual(['QUEUED', 'VALIDATING', 'VALIDATED', 'RUNNING', 'SUCCESS']);
    for (const e of job.events) expect(Number.isInteger(e.created_at)).toBe(true);
    expect(job.checkpoints.map((c: any) => c.step_number)).toEqual([3, 6]);
    // Measured: after the first epoch every training prompt is answered with its reply.
    expect(job.checkpoints.map((c: any) => c.metrics.train_loss)).toEqual([0, 0]);
    expect(job.trained_tokens).toBeGreaterThan(0);
    expect(job.trained_tokens).toBe(job.metadata.data_tokens * 2);
  });

  it('answers a trained prompt with the trained reply in chat completions, and differs from the base model there', async () => {
    const model = job.fine_tuned_model;
    const [prompt, reply] = TRAINED[0];
    expect(await chatReply(platform, model, prompt)).toBe(reply);
    expect(await chatReply(platform, model, 'what are the opening hours of the lyon shop')).toBe(reply);
    expect(await chatReply(platform, 'mistral-small-latest', prompt)).not.toBe(reply);
    const res = await call(platform, '/v1/chat/completions', { body: { model, messages: [{ role: 'user', content: TRAINED[1][0] }] } });
    expect(res.json).toMatchObject({ model, choices: [{ message: { role: 'assistant', content: TRAINED[1][1] }, finish_reason: 'stop' }] });
    expect(res.json.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('falls back to the base model for prompts unlike the training ones', async () => {
    const prompt = 'Write a haiku about penguins in the snow';
    expect(await chatReply(platform, job.fine_tuned_model, prompt)).toBe(await chatReply(platform, 'mistral-small-latest', prompt));
  });

  it('serves the fine-tuned model in conversations', async () => {
    const res = await call(platform, '/v1/conversations', { body: { model: job.fine_tuned_model, inputs: TRAINED[2][0] } });
    expect(res.status).toBe(200);
    expect(res.json.outputs[0]).toMatchObject({ type: 'message.output', role: 'assistant', content: TRAINED[2][1], model: job.fine_tuned_model });
    const base = await call(platform, '/v1/conversations', { body: { model: 'mistral-small-latest', inputs: TRAINED[2][0] } });
    expect(base.json.outputs[0].content).not.toBe(TRAINED[2][1]);
  });

  it('lists and retrieves the fine-tuned model as an FTModelCard', async () => {
    const list = await call(platform, '/v1/models');
    const card = list.json.data.find((m: any) => m.id === job.fine_tuned_model);
    expect(card).toMatchObject({ object: 'model', type: 'fine-tuned', job: job.id, root: 'mistral-small-latest', archived: false, aliases: [] });
    expect(card.capabilities.completion_chat).toBe(true);
    expect(card.description).toContain('example memory');
    const one = await call(platform, `/v1/models/${encodeURIComponent(job.fine_tuned_model)}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(card);
  });

  it('lists jobs with filters and pages', async () => {
    const all = await call(platform, '/v1/fine_tuning/jobs');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ object: 'list' });
    expect(all.json.total).toBeGreaterThanOrEqual(1);
    const mine = all.json.data.find((j: any) => j.id === job.id);
    expect(mine).toMatchObject({ status: 'SUCCESS', fine_tuned_model: job.fine_tuned_model });
    expect(mine).not.toHaveProperty('events');
    expect((await call(platform, '/v1/fine_tuning/jobs?suffix=shop&status=SUCCESS')).json.data.map((j: any) => j.id)).toContain(job.id);
    expect((await call(platform, '/v1/fine_tuning/jobs?status=RUNNING&suffix=shop')).json).toEqual({ data: [], object: 'list', total: 0 });
    expect((await call(platform, '/v1/fine_tuning/jobs?created_by_me=true', { key: MEMBER_KEY })).json.total).toBe(0);
    expect((await call(platform, '/v1/fine_tuning/jobs?wandb_project=x')).json.total).toBe(0);
    expect((await call(platform, '/v1/fine_tuning/jobs?page=0&page_size=1')).json.data).toHaveLength(1);
    expect((await call(platform, '/v1/fine_tuning/jobs?created_after=2100-01-01T00:00:00Z')).json.total).toBe(0);
  });

  it('renames, archives and unarchives the model; an archived model is still listed and usable', async () => {
    const id = encodeURIComponent(job.fine_tuned_model);
    const patched = await call(platform, `/v1/fine_tuning/models/${id}`, { method: 'PATCH', body: { name: 'Shop helper', description: 'Answers shop questions' } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      id: job.fine_tuned_model, object: 'model', model_type: 'completion', name: 'Shop helper', description: 'Answers shop questions',
      root: 'mistral-small-latest', root_version: 'parley-local', job: job.id, archived: false, capabilities: { completion_chat: true },
    });
    expect(typeof patched.json.workspace_id).toBe('string');
    expect((await call(platform, `/v1/fine_tuning/models/${id}/archive`, { method: 'POST' })).json).toEqual({ id: job.fine_tuned_model, object: 'model', archived: true });
    expect((await call(platform, `/v1/models/${id}`)).json).toMatchObject({ archived: true, name: 'Shop helper' });
    expect(await chatReply(platform, job.fine_tuned_model, TRAINED[0][0])).toBe(TRAINED[0][1]);
    expect((await call(platform, `/v1/fine_tuning/models/${id}/archive`, { method: 'DELETE' })).json).toEqual({ id: job.fine_tuned_model, object: 'model', archived: false });
    expect((await call(platform, `/v1/models/${id}`)).json.archived).toBe(false);
  });

  it('answers a dry run with the job metadata and spawns no job', async () => {
    const before = (await call(platform, '/v1/fine_tuning/jobs')).json.total;
    const res = await createJob(platform, { training_files: [{ file_id: trainingFile }], hyperparameters: { training_steps: 7 } }, '?dry_run=true');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'job.metadata', deprecated: true, epochs: 3, training_steps: 9, cost: 0 });
    expect(res.json.data_tokens).toBeGreaterThan(0);
    expect(res.json.train_tokens).toBe(res.json.data_tokens * 3);
    expect(res.json.details).toContain('3 samples');
    expect((await call(platform, '/v1/fine_tuning/jobs')).json.total).toBe(before);
  });

  it('fails validation of a training file with a message naming the bad line', async () => {
    const bad = await upload(platform, `${sample('hi', 'hello')}\n${JSON.stringify({ messages: [{ role: 'user', content: 'no reply here' }] })}\n`, 'bad.jsonl');
    const created = await createJob(platform, { training_files: [{ file_id: bad }] });
    expect(created.status).toBe(200);
    const failed = await waitFor(platform, created.json.id);
    expect(failed.status).toBe('FAILED_VALIDATION');
    expect(failed.fine_tuned_model).toBeNull();
    expect(failed.events.at(-1).data.error).toBe(`Training file ${bad}, line 2: it has no assistant message to learn from`);
    const badRole = await upload(platform, `${sample('a', 'b')}\n${sample('c', 'd')}\n${JSON.stringify({ messages: [{ role: 'robot', content: 'x' }] })}\n`, 'role.jsonl');
    const dry = await createJob(platform, { training_files: [{ file_id: badRole }] }, '?dry_run=true');
    expect(dry.status).toBe(422);
    expect(dry.json.detail[0].msg).toBe(`Training file ${badRole}, line 3: messages[0].role must be one of system, user, assistant, tool`);
  });

  it('waits at VALIDATED without auto_start, then trains on /start; /start twice is a conflict', async () => {
    const created = await createJob(platform, { training_files: [{ file_id: trainingFile }], auto_start: false, suffix: 'manual' });
    const validated = await waitFor(platform, created.json.id, ['VALIDATED']);
    expect(validated.metadata.data_tokens).toBeGreaterThan(0);
    expect(validated.fine_tuned_model).toBeNull();
    const started = await call(platform, `/v1/fine_tuning/jobs/${created.json.id}/start`, { method: 'POST' });
    expect(started.status).toBe(200);
    expect(started.json.status).toBe('STARTED');
    const done = await waitFor(platform, created.json.id);
    expect(done.status).toBe('SUCCESS');
    expect(done.fine_tuned_model).toMatch(/^ft:mistral-small-latest:manual:/);
    const again = await call(platform, `/v1/fine_tuning/jobs/${created.json.id}/start`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ object: 'error', code: 'conflict' });
  });

  it('cancels a job in progress; a cancelled job stays cancelled and makes no model', async () => {
    const created = await createJob(platform, { training_files: [{ file_id: trainingFile }], auto_start: false, suffix: 'cancelme' });
    await waitFor(platform, created.json.id, ['VALIDATED']);
    const cancelled = await call(platform, `/v1/fine_tuning/jobs/${created.json.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('CANCELLED');
    expect((await call(platform, `/v1/fine_tuning/jobs/${created.json.id}/start`, { method: 'POST' })).status).toBe(409);
    expect((await call(platform, `/v1/fine_tuning/jobs/${created.json.id}/cancel`, { method: 'POST' })).status).toBe(409);
    expect((await call(platform, `/v1/fine_tuning/jobs/${created.json.id}`)).json).toMatchObject({ status: 'CANCELLED', fine_tuned_model: null });
  });

  it('refuses bad input with 422', async () => {
    const file = { training_files: [{ file_id: trainingFile }] };
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ ...file, hyperparameters: undefined }, ['body', 'hyperparameters']],
      [{ ...file, hyperparameters: { epochs: -1 } }, ['body', 'hyperparameters', 'epochs']],
      [{ ...file, hyperparameters: { learning_rate: 'fast' } }, ['body', 'hyperparameters', 'learning_rate']],
      [{ training_files: [{ file_id: 'nope' }] }, ['body', 'training_files', 0, 'file_id']],
      [{ training_files: [{ file_id: '00000000-0000-4000-8000-000000000000' }] }, ['body', 'training_files', 0, 'file_id']],
      [{ training_files: [] }, ['body', 'training_files']],
      [{ ...file, suffix: 'has:colon' }, ['body', 'suffix']],
      [{ ...file, job_type: 'classifier' }, ['body', 'job_type']],
      [{ ...file, integrations: [{ type: 'wandb', project: 'p', api_key: 'k'.repeat(40) }] }, ['body', 'integrations']],
      [{ ...file, repositories: [{ type: 'github', name: 'r', owner: 'o', token: 't' }] }, ['body', 'repositories']],
      [{ ...file, unknown_field: 1 }, ['body', 'unknown_field']],
    ];
    for (const [body, loc] of cases) {
      const res = await createJob(platform, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.detail[0].loc, JSON.stringify(body)).toEqual(loc);
    }
    expect((await call(platform, '/v1/fine_tuning/jobs?status=DONE')).status).toBe(422);
    expect((await call(platform, '/v1/fine_tuning/jobs?page=-1')).status).toBe(422);
    expect((await call(platform, '/v1/fine_tuning/jobs?dry_run=maybe', { body: { model: 'mistral-small-latest', hyperparameters: {}, ...file } })).status).toBe(422);
    expect((await call(platform, '/v1/fine_tuning/jobs/not-a-uuid')).status).toBe(422);
    expect((await call(platform, `/v1/fine_tuning/models/${encodeURIComponent(job.fine_tuned_model)}`, { method: 'PATCH', body: { name: 3 } })).status).toBe(422);
    const wrongModel = await createJob(platform, { ...file, model: 'no-such-model' });
    expect(wrongModel.status).toBe(400);
    expect(wrongModel.json).toMatchObject({ object: 'error', type: 'invalid_model', param: 'model' });
    const ocrFile = await upload(platform, '%PDF-1.4', 'doc.pdf', 'ocr');
    expect((await createJob(platform, { training_files: [{ file_id: ocrFile }] })).json.detail[0].msg).toContain("purpose 'ocr'");
  });

  it('answers 404 in the generic shape for unknown jobs and models', async () => {
    const unknownJob = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [['GET', `/v1/fine_tuning/jobs/${unknownJob}`], ['POST', `/v1/fine_tuning/jobs/${unknownJob}/cancel`], ['POST', `/v1/fine_tuning/jobs/${unknownJob}/start`],
      ['POST', '/v1/fine_tuning/models/ft:nope/archive'], ['DELETE', '/v1/fine_tuning/models/ft:nope/archive'], ['GET', '/v1/models/ft:nope']] as const) {
      const res = await call(platform, path, { method });
      expect(res.status, path).toBe(404);
      expect(res.json, path).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'not_found' });
    }
    expect((await call(platform, '/v1/fine_tuning/models/ft:nope', { method: 'PATCH', body: { name: 'x' } })).status).toBe(404);
    expect((await call(platform, '/v1/chat/completions', { body: { model: 'ft:nope', messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(400);
  });
});

describe('fine-tuning durability', () => {
  let dataDir: string;
  beforeAll(() => { dataDir = mkdtempSync(join(tmpdir(), 'parley-ft-')); });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps jobs and models across a reopen, and resumes a job that was RUNNING when the platform stopped', async () => {
    let platform = await startPlatform({ dataDir });
    const file = await upload(platform, TRAINING_JSONL);
    const done = await createJob(platform, { training_files: [{ file_id: file }], suffix: 'durable' });
    const trained = await waitFor(platform, done.json.id);
    expect(trained.status).toBe('SUCCESS');
    const archived = await call(platform, `/v1/fine_tuning/models/${encodeURIComponent(trained.fine_tuned_model)}/archive`, { method: 'POST' });
    expect(archived.status).toBe(200);
    // A job the platform stopped in the middle of: validated, then marked RUNNING as a crash during training leaves it.
    const interrupted = await createJob(platform, { training_files: [{ file_id: file }], suffix: 'resumed', auto_start: false });
    await waitFor(platform, interrupted.json.id, ['VALIDATED']);
    await platform.close();
    const db = await openPlatformDb({ dataDir });
    await db.query(`update fine_tuning_jobs set status = 'RUNNING', record = jsonb_set(record, '{status}', '"RUNNING"') where id = $1`, [interrupted.json.id]);
    await db.close();

    platform = await startPlatform({ dataDir });
    try {
      expect(await chatReply(platform, trained.fine_tuned_model, TRAINED[1][0])).toBe(TRAINED[1][1]);
      const card = await call(platform, `/v1/models/${encodeURIComponent(trained.fine_tuned_model)}`);
      expect(card.json).toMatchObject({ type: 'fine-tuned', archived: true, job: trained.id });
      expect((await call(platform, `/v1/fine_tuning/jobs/${trained.id}`)).json).toEqual(trained);
      const resumed = await waitFor(platform, interrupted.json.id);
      expect(resumed.status).toBe('SUCCESS');
      expect(resumed.events.map((e: any) => e.name)).toContain('resumed');
      expect(await chatReply(platform, resumed.fine_tuned_model, TRAINED[0][0])).toBe(TRAINED[0][1]);
    } finally {
      await platform.close();
    }
  });
});
