import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import type { Platform } from '../../src/app.js';
import { API_KEY, ISO_Z, call, startPlatform } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MEMBER_KEY = 'member-key';
const DS = '/v1/observability/datasets';
const REC = '/v1/observability/dataset-records';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] }); });
afterAll(async () => { await platform.close(); });

async function createDataset(p: Platform, name = 'Support chats', description = 'Conversations to evaluate') {
  const res = await call(p, DS, { body: { name, description } });
  expect(res.status).toBe(201);
  return res.json;
}

/** Polls a task until it leaves RUNNING. */
async function settle(p: Platform, datasetId: string, taskId: string) {
  for (let i = 0; i < 200; i++) {
    const res = await call(p, `${DS}/${datasetId}/tasks/${taskId}`);
    expect(res.status).toBe(200);
    if (res.json.status !== 'RUNNING') return res.json;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('task still RUNNING');
}

function expectObservabilityError(res: { status: number; json: any }, status: number, code: string | null, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.json.detail.error_code).toBe(code);
  expect(typeof res.json.detail.message).toBe('string');
  if (message) expect(res.json.detail.message).toMatch(message);
}

const jsonlDataUrl = (lines: string[]) => `data:application/jsonl;base64,${Buffer.from(lines.join('\n')).toString('base64')}`;

/** Uploads JSONL lines through `POST /v1/files` and answers the file's id. */
async function uploadJsonl(p: Platform, lines: string[], fields: Record<string, string> = {}, key?: string): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ purpose: 'fine-tune', ...fields })) form.append(k, v);
  form.append('file', new Blob([lines.join('\n')]), 'records.jsonl');
  const res = await call(p, '/v1/files', { method: 'POST', rawBody: form, key });
  expect(res.status, res.text).toBe(200);
  return res.json.id;
}

describe('datasets', () => {
  it('creates (201), fetches, updates and deletes (204) a dataset', async () => {
    const ds = await createDataset(platform);
    expect(ds).toMatchObject({ name: 'Support chats', description: 'Conversations to evaluate', deleted_at: null });
    expect(ds.id).toMatch(UUID);
    expect(ds.created_at).toMatch(ISO_Z);
    expect(ds.owner_id).toMatch(UUID);
    expect(ds.workspace_id).toMatch(UUID);

    expect((await call(platform, `${DS}/${ds.id}`)).json).toEqual(ds);
    const patched = await call(platform, `${DS}/${ds.id}`, { method: 'PATCH', body: { name: 'Renamed set', description: null } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: ds.id, name: 'Renamed set', description: 'Conversations to evaluate' });
    expect(patched.json.updated_at > ds.updated_at).toBe(true);

    const del = await call(platform, `${DS}/${ds.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectObservabilityError(await call(platform, `${DS}/${ds.id}`), 404, 'DATASET_NOT_FOUND', new RegExp(ds.id));
    expectObservabilityError(await call(platform, `${DS}/${ds.id}`, { method: 'DELETE' }), 404, 'DATASET_NOT_FOUND');
  });

  it('rejects bad bodies with 422 VALIDATION_ERROR naming the field', async () => {
    expectObservabilityError(await call(platform, DS, { body: { name: 'abcd', description: '' } }), 422, 'VALIDATION_ERROR', /body\.name: String should have at least 5 characters/);
    expectObservabilityError(await call(platform, DS, { body: { name: 'x'.repeat(51), description: '' } }), 422, 'VALIDATION_ERROR', /at most 50/);
    expectObservabilityError(await call(platform, DS, { body: { name: 'Valid name', description: 'd'.repeat(201) } }), 422, 'VALIDATION_ERROR', /body\.description/);
    expectObservabilityError(await call(platform, DS, { body: { name: 'Valid name' } }), 422, 'VALIDATION_ERROR', /body\.description: Field required/);
    expectObservabilityError(await call(platform, DS, { method: 'POST', rawBody: '{nope', headers: { 'content-type': 'application/json' } }), 422, 'VALIDATION_ERROR', /JSON/);
    const ds = await createDataset(platform);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}`, { method: 'PATCH', body: { name: 'abc' } }), 422, 'VALIDATION_ERROR', /body\.name/);
  });

  it('answers 422 for a malformed id and 404 for an unknown one', async () => {
    expectObservabilityError(await call(platform, `${DS}/not-a-uuid`), 422, 'VALIDATION_ERROR', /path\.dataset_id: Input should be a valid UUID/);
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}`), 404, 'DATASET_NOT_FOUND');
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}/records`), 404, 'DATASET_NOT_FOUND');
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}/tasks`), 404, 'DATASET_NOT_FOUND');
    expectObservabilityError(await call(platform, `${REC}/${UNKNOWN}`), 404, 'DATASET_RECORD_NOT_FOUND');
    expectObservabilityError(await call(platform, `${REC}/nope`, { method: 'DELETE' }), 422, 'VALIDATION_ERROR');
    expect((await call(platform, DS, { key: 'wrong' })).status).toBe(401);
  });

  it('lists page by page with count and next/previous links, filtered by q', async () => {
    const p = await startPlatform();
    try {
      for (let i = 0; i < 5; i++) await createDataset(p, `Paged set ${i}`, i === 3 ? 'the needle' : 'hay');
      const first = await call(p, `${DS}?page_size=2`);
      expect(first.status).toBe(200);
      expect(first.json.datasets.count).toBe(5);
      expect(first.json.datasets.results.map((d: any) => d.name)).toEqual(['Paged set 4', 'Paged set 3']);
      expect(first.json.datasets.previous).toBeNull();
      const next = new URL(first.json.datasets.next);
      expect(next.pathname).toBe(DS);
      expect(next.searchParams.get('page')).toBe('2');
      expect(next.searchParams.get('page_size')).toBe('2');
      const third = await call(p, `${DS}?page_size=2&page=3`);
      expect(third.json.datasets.results.map((d: any) => d.name)).toEqual(['Paged set 0']);
      expect(third.json.datasets.next).toBeNull();
      expect(new URL(third.json.datasets.previous).searchParams.get('page')).toBe('2');
      const beyond = await call(p, `${DS}?page=9`);
      expect(beyond.json.datasets).toMatchObject({ results: [], count: 5, next: null });

      const q = await call(p, `${DS}?q=NEEDLE`);
      expect(q.json.datasets.results.map((d: any) => d.name)).toEqual(['Paged set 3']);
      expect((await call(p, `${DS}?q=Paged%20set%201`)).json.datasets.count).toBe(1);

      expectObservabilityError(await call(p, `${DS}?page=0`), 422, 'VALIDATION_ERROR', /query\.page/);
      expectObservabilityError(await call(p, `${DS}?page_size=101`), 422, 'VALIDATION_ERROR', /query\.page_size/);
      expectObservabilityError(await call(p, `${DS}?page=abc`), 422, 'VALIDATION_ERROR');
    } finally {
      await p.close();
    }
  });

  it('is shared by the workspace: a member sees the dataset, with the creator as owner', async () => {
    const ds = await createDataset(platform, 'Shared dataset');
    const seen = await call(platform, `${DS}/${ds.id}`, { key: MEMBER_KEY });
    expect(seen.status).toBe(200);
    expect(seen.json.owner_id).toBe(ds.owner_id);
    const mine = await call(platform, DS, { key: MEMBER_KEY, body: { name: 'Member dataset', description: '' } });
    expect(mine.json.owner_id).not.toBe(ds.owner_id);
    expect(mine.json.workspace_id).toBe(ds.workspace_id);
  });
});

describe('records', () => {
  it('creates (201), lists, fetches, updates payload and properties (204) and deletes records', async () => {
    const ds = await createDataset(platform);
    const created = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { messages: [{ role: 'user', content: 'hi' }] }, properties: { lang: 'en' } } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ dataset_id: ds.id, payload: { messages: [{ role: 'user', content: 'hi' }] }, properties: { lang: 'en' }, source: 'DIRECT_INPUT', deleted_at: null });
    const id = created.json.id;
    expect(id).toMatch(UUID);
    const second = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { n: 2 }, source: 'TELEMETRY_SPAN' } });
    expect(second.json).toMatchObject({ properties: {}, source: 'TELEMETRY_SPAN' });

    const list = await call(platform, `${DS}/${ds.id}/records`);
    expect(list.json.records).toMatchObject({ count: 2, next: null, previous: null });
    expect(list.json.records.results.map((r: any) => r.id)).toEqual([id, second.json.id]);

    const put = await call(platform, `${REC}/${id}/payload`, { method: 'PUT', body: { payload: { messages: [] } } });
    expect(put.status).toBe(204);
    expect((await call(platform, `${REC}/${id}/properties`, { method: 'PUT', body: { properties: { lang: 'fr' } } })).status).toBe(204);
    const fetched = await call(platform, `${REC}/${id}`);
    expect(fetched.json).toMatchObject({ id, payload: { messages: [] }, properties: { lang: 'fr' } });

    expect((await call(platform, `${REC}/${id}`, { method: 'DELETE' })).status).toBe(204);
    expectObservabilityError(await call(platform, `${REC}/${id}`), 404, 'DATASET_RECORD_NOT_FOUND');
    expectObservabilityError(await call(platform, `${REC}/${id}`, { method: 'DELETE' }), 404, 'DATASET_RECORD_NOT_FOUND');
    expectObservabilityError(await call(platform, `${REC}/${id}/payload`, { method: 'PUT', body: { payload: {} } }), 404, 'DATASET_RECORD_NOT_FOUND');
  });

  it('rejects bad record bodies with 422', async () => {
    const ds = await createDataset(platform);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/records`, { body: {} }), 422, 'VALIDATION_ERROR', /body\.payload: Field required/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/records`, { body: { payload: [1] } }), 422, 'VALIDATION_ERROR', /body\.payload/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/records`, { body: { payload: {}, source: 'PLAYGROUND' } }), 422, 'VALIDATION_ERROR', /body\.source/);
    const rec = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: {} } });
    expectObservabilityError(await call(platform, `${REC}/${rec.json.id}/properties`, { method: 'PUT', body: { properties: 'x' } }), 422, 'VALIDATION_ERROR', /body\.properties/);
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}/records`, { body: { payload: {} } }), 404, 'DATASET_NOT_FOUND');
  });

  it('bulk-deletes all or none', async () => {
    const ds = await createDataset(platform);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { i } } })).json.id);
    expectObservabilityError(await call(platform, `${REC}/bulk-delete`, { body: { dataset_record_ids: [ids[0], UNKNOWN] } }), 404, 'DATASET_RECORD_NOT_FOUND', /nothing was deleted/);
    expect((await call(platform, `${DS}/${ds.id}/records`)).json.records.count).toBe(3);
    const res = await call(platform, `${REC}/bulk-delete`, { body: { dataset_record_ids: [ids[0], ids[2]] } });
    expect(res.status).toBe(204);
    expect((await call(platform, `${DS}/${ds.id}/records`)).json.records.results.map((r: any) => r.id)).toEqual([ids[1]]);
    expectObservabilityError(await call(platform, `${REC}/bulk-delete`, { body: { dataset_record_ids: [] } }), 422, 'VALIDATION_ERROR');
  });

  it('deleting a dataset deletes its records', async () => {
    const ds = await createDataset(platform);
    const rec = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { a: 1 } } });
    await call(platform, `${DS}/${ds.id}`, { method: 'DELETE' });
    expectObservabilityError(await call(platform, `${REC}/${rec.json.id}`), 404, 'DATASET_RECORD_NOT_FOUND');
  });
});

describe('imports', () => {
  it('from-playground copies the messages of real conversations in a background task', async () => {
    const started = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Hello there, how are you?' } });
    expect(started.status).toBe(200);
    const convId = started.json.conversation_id;
    await call(platform, `/v1/conversations/${convId}`, { body: { inputs: 'Tell me more' } });
    const messages = (await call(platform, `/v1/conversations/${convId}/messages`)).json.messages;
    expect(messages).toHaveLength(4);

    const ds = await createDataset(platform);
    const res = await call(platform, `${DS}/${ds.id}/imports/from-playground`, { body: { conversation_ids: [convId] } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ dataset_id: ds.id, status: 'RUNNING', progress: 0, message: null, deleted_at: null, workspace_id: ds.workspace_id, creator_id: ds.owner_id });
    expect(res.json.id).toMatch(UUID);

    const done = await settle(platform, ds.id, res.json.id);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: 100, message: 'Imported 1 record from 1 conversation' });
    const records = (await call(platform, `${DS}/${ds.id}/records`)).json.records.results;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ source: 'PLAYGROUND', properties: { conversation_id: convId } });
    expect(records[0].payload.messages).toEqual(messages.map((m: any) => ({ role: m.role, content: m.content })));
    expect(records[0].payload.messages[0]).toEqual({ role: 'user', content: 'Hello there, how are you?' });

    const tasks = await call(platform, `${DS}/${ds.id}/tasks`);
    expect(tasks.json.tasks).toMatchObject({ count: 1, next: null, previous: null });
    expect(tasks.json.tasks.results[0]).toEqual(done);
  });

  it('from-playground answers 404 for a conversation that does not exist and starts no task', async () => {
    const ds = await createDataset(platform);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-playground`, { body: { conversation_ids: ['conv_00000000000000000000000000000000'] } }), 404, null, /Conversation 'conv_0+' not found/);
    expect((await call(platform, `${DS}/${ds.id}/tasks`)).json.tasks.count).toBe(0);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-playground`, { body: { conversation_ids: [] } }), 422, 'VALIDATION_ERROR');
  });

  it('from-dataset copies records with their payload, properties and source', async () => {
    const source = await createDataset(platform, 'Source set');
    const a = await call(platform, `${DS}/${source.id}/records`, { body: { payload: { q: 'a' }, properties: { k: 1 } } });
    const b = await call(platform, `${DS}/${source.id}/records`, { body: { payload: { q: 'b' }, source: 'TELEMETRY_SPAN' } });
    const target = await createDataset(platform, 'Target set');
    const res = await call(platform, `${DS}/${target.id}/imports/from-dataset`, { body: { dataset_record_ids: [b.json.id, a.json.id] } });
    expect(res.status).toBe(202);
    const done = await settle(platform, target.id, res.json.id);
    expect(done).toMatchObject({ status: 'COMPLETED', message: 'Copied 2 records' });
    const copied = (await call(platform, `${DS}/${target.id}/records`)).json.records.results;
    expect(copied.map((r: any) => [r.payload, r.properties, r.source, r.dataset_id])).toEqual([
      [{ q: 'b' }, {}, 'TELEMETRY_SPAN', target.id],
      [{ q: 'a' }, { k: 1 }, 'DIRECT_INPUT', target.id],
    ]);
    expect(copied[0].id).not.toBe(b.json.id);
    expectObservabilityError(await call(platform, `${DS}/${target.id}/imports/from-dataset`, { body: { dataset_record_ids: [UNKNOWN] } }), 404, 'DATASET_RECORD_NOT_FOUND');
    expectObservabilityError(await call(platform, `${DS}/${target.id}/imports/from-dataset`, { body: { dataset_record_ids: ['x'] } }), 422, 'VALIDATION_ERROR');
  });

  it('from-file reads a JSONL file uploaded to the files API', async () => {
    const ds = await createDataset(platform);
    const chat = (q: string) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: 'ok' }] });
    const fileId = await uploadJsonl(platform, [chat('q1'), chat('q2'), chat('q3')]);
    const res = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: fileId } });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'RUNNING', dataset_id: ds.id });
    expect(await settle(platform, ds.id, res.json.id)).toMatchObject({ status: 'COMPLETED', progress: 100, message: 'Imported 3 records from the file' });
    const records = (await call(platform, `${DS}/${ds.id}/records`)).json.records.results;
    expect(records.map((r: any) => [r.payload.messages[0].content, r.source])).toEqual([['q1', 'UPLOADED_FILE'], ['q2', 'UPLOADED_FILE'], ['q3', 'UPLOADED_FILE']]);

    // Batch files are JSONL too; an exported file (payload/properties lines) goes up with the purpose that takes any bytes.
    const batch = await uploadJsonl(platform, ['{"custom_id":"1","body":{"messages":[]}}'], { purpose: 'batch' });
    const fromBatch = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: batch } });
    expect(await settle(platform, ds.id, fromBatch.json.id)).toMatchObject({ status: 'COMPLETED', message: 'Imported 1 record from the file' });
    const exported = await uploadJsonl(platform, ['{"payload":{"n":1},"properties":{"k":"v"}}'], { purpose: 'ocr' });
    const fromExport = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: exported } });
    expect(await settle(platform, ds.id, fromExport.json.id)).toMatchObject({ status: 'COMPLETED' });
    const last = (await call(platform, `${DS}/${ds.id}/records`)).json.records.results.at(-1);
    expect([last.payload, last.properties]).toEqual([{ n: 1 }, { k: 'v' }]);
    const notJsonl = await uploadJsonl(platform, ['not json'], { purpose: 'ocr' });
    const failed = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: notJsonl } });
    expect(await settle(platform, ds.id, failed.json.id)).toMatchObject({ status: 'FAILED', message: expect.stringMatching(/^The file is not valid JSONL: line 1/) });
  });

  it('from-file: another user\'s private file is 404, the creator\'s own is read', async () => {
    const ds = await createDataset(platform);
    const privateId = await uploadJsonl(platform, ['{"text":"member only"}'], { visibility: 'user' }, MEMBER_KEY);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: privateId } }), 404, null, /^File '.*' not found: upload the JSONL file with POST \/v1\/files first/);
    const own = await call(platform, `${DS}/${ds.id}/imports/from-file`, { key: MEMBER_KEY, body: { file_id: privateId } });
    expect(own.status).toBe(202);
    expect(await settle(platform, ds.id, own.json.id)).toMatchObject({ status: 'COMPLETED', message: 'Imported 1 record from the file' });
  });

  it('from-file reads a JSONL data: URL; a bad line fails the task; unknown file ids are 404', async () => {
    const ds = await createDataset(platform);
    const url = jsonlDataUrl(['{"payload":{"messages":[{"role":"user","content":"q1"}]},"properties":{"t":1}}', '', '{"question":"plain object"}']);
    const res = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: url } });
    expect(res.status).toBe(202);
    expect(await settle(platform, ds.id, res.json.id)).toMatchObject({ status: 'COMPLETED', message: 'Imported 2 records from the file' });
    const records = (await call(platform, `${DS}/${ds.id}/records`)).json.records.results;
    expect(records.map((r: any) => [r.payload, r.properties, r.source])).toEqual([
      [{ messages: [{ role: 'user', content: 'q1' }] }, { t: 1 }, 'UPLOADED_FILE'],
      [{ question: 'plain object' }, {}, 'UPLOADED_FILE'],
    ]);

    const bad = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: jsonlDataUrl(['{"a":1}', '[1,2]']) } });
    expect(bad.status).toBe(202);
    expect(await settle(platform, ds.id, bad.json.id)).toMatchObject({ status: 'FAILED', message: 'The file is not valid JSONL: line 2 is not a JSON object' });
    expect((await call(platform, `${DS}/${ds.id}/records`)).json.records.count).toBe(2);

    const plain = await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: `data:,${encodeURIComponent('{"x":1}')}` } });
    expect(await settle(platform, ds.id, plain.json.id)).toMatchObject({ status: 'COMPLETED' });

    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: UNKNOWN } }), 404, null, /^File '00000000-0000-4000-8000-000000000000' not found: upload the JSONL file with POST \/v1\/files first/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: 'data:no-comma' } }), 422, 'VALIDATION_ERROR', /body\.file_id/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-file`, { body: {} }), 422, 'VALIDATION_ERROR');
  });

  it('from-explorer and from-campaign answer 404 for ids the workspace does not have', async () => {
    const ds = await createDataset(platform);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-explorer`, { body: { completion_event_ids: ['evt-1'] } }), 404, null, /Completion event 'evt-1' not found/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-campaign`, { body: { campaign_id: UNKNOWN } }), 404, 'CAMPAIGN_NOT_FOUND', /Campaign '.*' not found/);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-explorer`, { body: { completion_event_ids: [] } }), 422, 'VALIDATION_ERROR');
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/imports/from-campaign`, { body: { campaign_id: 'nope' } }), 422, 'VALIDATION_ERROR', /body\.campaign_id/);
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}/imports/from-campaign`, { body: { campaign_id: UNKNOWN } }), 404, 'DATASET_NOT_FOUND');
    expect((await call(platform, `${DS}/${ds.id}/tasks`)).json.tasks.count).toBe(0);
  });

  it('answers 404 for an unknown task', async () => {
    const ds = await createDataset(platform);
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/tasks/${UNKNOWN}`), 404, 'DATASET_TASK_NOT_FOUND');
    expectObservabilityError(await call(platform, `${DS}/${ds.id}/tasks/bad`), 422, 'VALIDATION_ERROR');
  });
});

describe('export', () => {
  it('exports the records as a JSONL data: URL that from-file imports back', async () => {
    const ds = await createDataset(platform);
    await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { messages: [{ role: 'user', content: 'é ✓' }] }, properties: { p: true } } });
    await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { n: 2 } } });
    const res = await call(platform, `${DS}/${ds.id}/exports/to-jsonl`);
    expect(res.status).toBe(200);
    const url: string = res.json.file_url;
    expect(url.startsWith('data:application/jsonl;base64,')).toBe(true);
    const body = await (await fetch(url)).text();
    expect(body.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { payload: { messages: [{ role: 'user', content: 'é ✓' }] }, properties: { p: true } },
      { payload: { n: 2 }, properties: {} },
    ]);

    const copy = await createDataset(platform, 'Round trip');
    const task = await call(platform, `${DS}/${copy.id}/imports/from-file`, { body: { file_id: url } });
    expect(await settle(platform, copy.id, task.json.id)).toMatchObject({ status: 'COMPLETED' });
    const copied = (await call(platform, `${DS}/${copy.id}/records`)).json.records.results;
    expect(copied.map((r: any) => [r.payload, r.properties])).toEqual([
      [{ messages: [{ role: 'user', content: 'é ✓' }] }, { p: true }],
      [{ n: 2 }, {}],
    ]);
    expectObservabilityError(await call(platform, `${DS}/${UNKNOWN}/exports/to-jsonl`), 404, 'DATASET_NOT_FOUND');
  });
});

const judgeBody = {
  name: 'Politeness',
  description: 'Is the assistant polite?',
  model_name: 'parley-local',
  output: { type: 'CLASSIFICATION', options: [{ value: 'polite', description: 'courteous' }, { value: 'rude', description: 'impolite' }] },
  instructions: 'Decide whether the assistant was polite.',
  tools: [],
};

describe('judges and live judging', () => {
  it('creates (201), lists, fetches, replaces (204) and deletes (204) judges', async () => {
    const p = await startPlatform();
    try {
      const created = await call(p, '/v1/observability/judges', { body: judgeBody });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ ...judgeBody, deleted_at: null, up_revision: null });
      expect(created.json.id).toMatch(UUID);
      expectObservabilityError(await call(p, '/v1/observability/judges', { body: judgeBody }), 409, 'JUDGE_NAME_ALREADY_EXISTS');
      const scorer = await call(p, '/v1/observability/judges', {
        body: { ...judgeBody, name: 'Helpfulness', output: { type: 'REGRESSION', min: 0, min_description: 'useless', max: 10, max_description: 'perfect' } },
      });
      expect(scorer.status).toBe(201);

      const list = await call(p, '/v1/observability/judges');
      expect(list.json.judges.count).toBe(2);
      expect((await call(p, '/v1/observability/judges?type_filter=REGRESSION')).json.judges.results.map((j: any) => j.name)).toEqual(['Helpfulness']);
      expect((await call(p, '/v1/observability/judges?model_filter=other')).json.judges.count).toBe(0);
      expect((await call(p, '/v1/observability/judges?q=politeNESS')).json.judges.results.map((j: any) => j.name)).toEqual(['Politeness']);

      const put = await call(p, `/v1/observability/judges/${created.json.id}`, { method: 'PUT', body: { ...judgeBody, instructions: 'Be strict.' } });
      expect(put.status).toBe(204);
      expect((await call(p, `/v1/observability/judges/${created.json.id}`)).json.instructions).toBe('Be strict.');
      expectObservabilityError(await call(p, `/v1/observability/judges/${created.json.id}`, { method: 'PUT', body: { ...judgeBody, name: 'Helpfulness' } }), 409, 'JUDGE_NAME_ALREADY_EXISTS');

      expect((await call(p, `/v1/observability/judges/${created.json.id}`, { method: 'DELETE' })).status).toBe(204);
      expectObservabilityError(await call(p, `/v1/observability/judges/${created.json.id}`), 404, 'JUDGE_NOT_FOUND');
    } finally {
      await p.close();
    }
  });

  it('rejects bad judge definitions with 422', async () => {
    const post = (body: unknown) => call(platform, '/v1/observability/judges', { body });
    expectObservabilityError(await post({ ...judgeBody, model_name: 'no-such-model' }), 422, 'VALIDATION_ERROR', /body\.model_name: Model 'no-such-model' is not served/);
    expectObservabilityError(await post({ ...judgeBody, output: { type: 'CLASSIFICATION', options: [] } }), 422, 'VALIDATION_ERROR', /body\.output\.options/);
    expectObservabilityError(await post({ ...judgeBody, output: { type: 'CLASSIFICATION', options: [{ value: 'a', description: '' }, { value: 'a', description: '' }] } }), 422, 'VALIDATION_ERROR', /unique/);
    expectObservabilityError(await post({ ...judgeBody, output: { type: 'REGRESSION', min: 5, max: 1, min_description: '', max_description: '' } }), 422, 'VALIDATION_ERROR', /min must be less than max/);
    expectObservabilityError(await post({ ...judgeBody, output: { type: 'SCORE' } }), 422, 'VALIDATION_ERROR');
  });

  it('judges a conversation with the local chat engine: answer is one of the options, deterministic', async () => {
    const judge = (await call(platform, '/v1/observability/judges', { body: { ...judgeBody, name: 'Politeness live' } })).json;
    const messages = [{ role: 'user', content: 'Can you help?' }, { role: 'assistant', content: 'No. That was rude of you to ask.' }];
    const res = await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['analysis', 'answer']);
    expect(typeof res.json.analysis).toBe('string');
    expect(res.json.analysis.split(/\s+/).length, res.json.analysis).toBeGreaterThan(3);
    // parley-local picks the option the conversation mentions.
    expect(res.json.answer).toBe('rude');
    const again = await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages } });
    expect(again.json).toEqual(res.json);
    const polite = await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages: [{ role: 'assistant', content: 'Of course, happy to help, I am always polite.' }] } });
    expect(polite.json.answer).toBe('polite');

    expectObservabilityError(await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages: [] } }), 422, 'VALIDATION_ERROR');
    expectObservabilityError(await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages: [{ content: 'x' }] } }), 422, 'VALIDATION_ERROR', /body\.messages\.0\.role/);
    expectObservabilityError(await call(platform, `/v1/observability/judges/${UNKNOWN}/live-judging`, { body: { messages } }), 404, 'JUDGE_NOT_FOUND');
  });

  it('a regression judge answers a number within its range', async () => {
    const judge = (await call(platform, '/v1/observability/judges', {
      body: { ...judgeBody, name: 'Score live', output: { type: 'REGRESSION', min: 1, min_description: 'bad', max: 5, max_description: 'great' } },
    })).json;
    const res = await call(platform, `/v1/observability/judges/${judge.id}/live-judging`, { body: { messages: [{ role: 'user', content: 'rate this' }], properties: { lang: 'en' } } });
    expect(res.status).toBe(200);
    expect(typeof res.json.answer).toBe('number');
    expect(res.json.answer).toBeGreaterThanOrEqual(1);
    expect(res.json.answer).toBeLessThanOrEqual(5);
  });

  it('judges a dataset record with an inline judge definition', async () => {
    const ds = await createDataset(platform);
    const rec = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { messages: [{ role: 'user', content: 'Thanks!' }, { role: 'assistant', content: [{ type: 'text', text: 'You are welcome, that is polite of you.' }] }] } } });
    const res = await call(platform, `${REC}/${rec.json.id}/live-judging`, { body: { judge_definition: judgeBody } });
    expect(res.status).toBe(200);
    expect(res.json.answer).toBe('polite');
    expect(typeof res.json.analysis).toBe('string');

    const noMessages = await call(platform, `${DS}/${ds.id}/records`, { body: { payload: { question: 'x' } } });
    expectObservabilityError(await call(platform, `${REC}/${noMessages.json.id}/live-judging`, { body: { judge_definition: judgeBody } }), 400, 'DATASET_RECORD_FORMAT_ERROR');
    expectObservabilityError(await call(platform, `${REC}/${rec.json.id}/live-judging`, { body: { judge_definition: { ...judgeBody, model_name: 'nope' } } }), 422, 'VALIDATION_ERROR', /judge_definition\.model_name/);
    expectObservabilityError(await call(platform, `${REC}/${UNKNOWN}/live-judging`, { body: { judge_definition: judgeBody } }), 404, 'DATASET_RECORD_NOT_FOUND');
  });
});

describe('durability', () => {
  let dataDir: string;
  beforeAll(() => { dataDir = mkdtempSync(join(tmpdir(), 'parley-datasets-')); });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('datasets, records, tasks and judges survive closing and reopening the platform', async () => {
    const first = await startPlatform({ dataDir });
    const ds = await createDataset(first, 'Durable set');
    const rec = await call(first, `${DS}/${ds.id}/records`, { body: { payload: { keep: 'me' }, properties: { p: 1 } } });
    const task = await call(first, `${DS}/${ds.id}/imports/from-file`, { body: { file_id: jsonlDataUrl(['{"from":"file"}']) } });
    await settle(first, ds.id, task.json.id);
    const judge = await call(first, '/v1/observability/judges', { body: judgeBody });
    await first.close();

    const second = await startPlatform({ dataDir });
    try {
      expect((await call(second, `${DS}/${ds.id}`)).json).toEqual({ ...ds, updated_at: expect.stringMatching(ISO_Z) });
      expect((await call(second, `${REC}/${rec.json.id}`)).json).toEqual(rec.json);
      expect((await call(second, `${DS}/${ds.id}/records`)).json.records.count).toBe(2);
      expect((await call(second, `${DS}/${ds.id}/tasks/${task.json.id}`)).json).toMatchObject({ status: 'COMPLETED', progress: 100 });
      expect((await call(second, `/v1/observability/judges/${judge.json.id}`)).json).toEqual(judge.json);
      expect((await call(second, DS, { key: API_KEY })).json.datasets.count).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('tasks left RUNNING by a previous process run again on reopen: file imports (data: URL, the creator\'s stored file) complete, a playground import fails with a message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-datasets-resume-'));
    try {
      const first = await startPlatform({ dataDir: dir });
      const ds = await createDataset(first, 'Interrupted set');
      const privateFile = await uploadJsonl(first, ['{"text":"stored"}'], { visibility: 'user' });
      await first.close();
      // What a process killed mid-import leaves behind: RUNNING rows and no records.
      const db = await PGlite.create(dir);
      const insert = `insert into dataset_tasks (id, dataset_id, workspace_id, creator_id, kind, request, status, progress, created_at, updated_at)
        values ($1, $2, $3, $4, $5, $6, 'RUNNING', 40, '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`;
      const fileTask = '11111111-1111-4111-8111-111111111111';
      const playgroundTask = '22222222-2222-4222-8222-222222222222';
      const storedFileTask = '33333333-3333-4333-8333-333333333333';
      await db.query(insert, [fileTask, ds.id, ds.workspace_id, ds.owner_id, 'file', { kind: 'file', file_id: jsonlDataUrl(['{"resumed":true}']) }]);
      await db.query(insert, [storedFileTask, ds.id, ds.workspace_id, ds.owner_id, 'file', { kind: 'file', file_id: privateFile }]);
      await db.query(insert, [playgroundTask, ds.id, ds.workspace_id, ds.owner_id, 'playground', { kind: 'playground', conversation_ids: ['conv_gone'] }]);
      await db.close();

      const second = await startPlatform({ dataDir: dir });
      try {
        expect(await settle(second, ds.id, fileTask)).toMatchObject({ status: 'COMPLETED', progress: 100, message: 'Imported 1 record from the file' });
        expect(await settle(second, ds.id, playgroundTask)).toMatchObject({ status: 'FAILED', message: "Conversation 'conv_gone' not found (it was deleted after the import was accepted)" });
        // The creator's private file is read as the creator (the task keeps who started it).
        expect(await settle(second, ds.id, storedFileTask)).toMatchObject({ status: 'COMPLETED', message: 'Imported 1 record from the file' });
        const records = (await call(second, `${DS}/${ds.id}/records`)).json.records.results;
        expect(records.map((r: any) => [r.payload, r.source])).toEqual([[{ resumed: true }, 'UPLOADED_FILE'], [{ text: 'stored' }, 'UPLOADED_FILE']]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
