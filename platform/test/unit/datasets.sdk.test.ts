/**
 * SDK conformance: the official `@mistralai/mistralai` client (`beta.observability.datasets.*`,
 * `…datasets.records.*`, `beta.observability.judges.*`) against the local platform. The SDK checks
 * status codes and content types exactly and validates every answer, so each call resolving is part
 * of the assertion; errors must come back as `ObservabilityError` with their detail.
 */
import { describe, expect, it } from 'vitest';
import { withSdkPlatform } from './sdk.js';
import * as errors from '@mistralai/mistralai/models/errors';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const t = withSdkPlatform();

async function settle(datasetId: string, taskId: string) {
  for (let i = 0; i < 200; i++) {
    const task = await t.sdk.beta.observability.datasets.fetchTask({ datasetId, taskId });
    if (task.status !== 'RUNNING') return task;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('task still RUNNING');
}

async function expectObservabilityError(promise: Promise<unknown>, status: number, code: string | null) {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(errors.ObservabilityError);
  const e = err as errors.ObservabilityError;
  expect(e.statusCode).toBe(status);
  expect(e.detail.errorCode).toBe(code);
  expect(e.message).toBe(e.detail.message);
}

const judgeDefinition = {
  name: 'Tone',
  description: 'Tone of the assistant',
  modelName: 'parley-local',
  output: { type: 'CLASSIFICATION' as const, options: [{ value: 'friendly', description: 'warm' }, { value: 'cold', description: 'curt' }] },
  instructions: 'Judge the tone of the assistant.',
  tools: [],
};

describe('SDK beta.observability.datasets against the local platform', () => {
  it('creates, lists, fetches, updates and deletes datasets', async () => {
    const ds = t.sdk.beta.observability.datasets;
    const created = await ds.create({ name: 'SDK dataset', description: 'made by the SDK' });
    expect(created).toMatchObject({ name: 'SDK dataset', description: 'made by the SDK', deletedAt: null });
    expect(created.createdAt).toBeInstanceOf(Date);
    await ds.create({ name: 'Another SDK dataset', description: '' });

    const list = await ds.list({ pageSize: 1 });
    expect(list.datasets.count).toBe(2);
    expect(list.datasets.results).toHaveLength(1);
    expect(list.datasets.next).toMatch(/page=2/);
    expect(list.datasets.previous).toBeNull();
    expect((await ds.list({ q: 'another' })).datasets.results?.map((d) => d.name)).toEqual(['Another SDK dataset']);

    expect(await ds.fetch({ datasetId: created.id })).toEqual(created);
    const updated = await ds.update({ datasetId: created.id, updateDatasetRequest: { description: 'changed' } });
    expect(updated).toMatchObject({ id: created.id, name: 'SDK dataset', description: 'changed' });

    await ds.delete({ datasetId: created.id });
    await expectObservabilityError(ds.fetch({ datasetId: created.id }), 404, 'DATASET_NOT_FOUND');
    await expectObservabilityError(ds.create({ name: 'abc', description: '' }), 422, 'VALIDATION_ERROR');
  });

  it('creates, lists, fetches, updates and deletes records', async () => {
    const ds = t.sdk.beta.observability.datasets;
    const { id: datasetId } = await ds.create({ name: 'SDK records', description: '' });
    const record = await ds.createRecord({
      datasetId,
      createDatasetRecordRequest: { payload: { messages: [{ role: 'user', content: 'hello' }] }, properties: { tag: 'a' }, source: 'DIRECT_INPUT' },
    });
    expect(record).toMatchObject({ datasetId, source: 'DIRECT_INPUT', properties: { tag: 'a' } });
    const other = await ds.createRecord({ datasetId, createDatasetRecordRequest: { payload: { n: 2 } } });
    const third = await ds.createRecord({ datasetId, createDatasetRecordRequest: { payload: { n: 3 } } });

    const page = await ds.listRecords({ datasetId, page: 1, pageSize: 50 });
    expect(page.records.count).toBe(3);
    expect(page.records.results?.map((r) => r.id)).toEqual([record.id, other.id, third.id]);

    await ds.records.updatePayload({ datasetRecordId: record.id, updateDatasetRecordPayloadRequest: { payload: { messages: [] } } });
    await ds.records.updateProperties({ datasetRecordId: record.id, updateDatasetRecordPropertiesRequest: { properties: { tag: 'b' } } });
    expect(await ds.records.fetch({ datasetRecordId: record.id })).toMatchObject({ payload: { messages: [] }, properties: { tag: 'b' } });

    await ds.records.delete({ datasetRecordId: record.id });
    await ds.records.bulkDelete({ datasetRecordIds: [other.id] });
    expect((await ds.listRecords({ datasetId })).records.results?.map((r) => r.id)).toEqual([third.id]);
    await expectObservabilityError(ds.records.fetch({ datasetRecordId: record.id }), 404, 'DATASET_RECORD_NOT_FOUND');
    await expectObservabilityError(ds.records.bulkDelete({ datasetRecordIds: [UNKNOWN] }), 404, 'DATASET_RECORD_NOT_FOUND');
  });

  it('imports from the playground, another dataset and a file, with readable tasks, and exports', async () => {
    const ds = t.sdk.beta.observability.datasets;
    const conversation = await t.sdk.beta.conversations.start({ model: 'parley-local', inputs: 'What is a dataset?' });
    const { id: datasetId } = await ds.create({ name: 'SDK imports', description: '' });

    const fromPlayground = await ds.importFromPlayground({ datasetId, importDatasetFromPlaygroundRequest: { conversationIds: [conversation.conversationId] } });
    expect(fromPlayground).toMatchObject({ datasetId, status: 'RUNNING' });
    expect(await settle(datasetId, fromPlayground.id)).toMatchObject({ status: 'COMPLETED', progress: 100 });
    const [copied] = (await ds.listRecords({ datasetId })).records.results ?? [];
    expect(copied.source).toBe('PLAYGROUND');
    expect(copied.payload.messages[0]).toEqual({ role: 'user', content: 'What is a dataset?' });
    expect(copied.payload.messages[1].role).toBe('assistant');

    const { id: targetId } = await ds.create({ name: 'SDK import target', description: '' });
    const fromDataset = await ds.importFromDatasetRecords({ datasetId: targetId, importDatasetFromDatasetRequest: { datasetRecordIds: [copied.id] } });
    expect(await settle(targetId, fromDataset.id)).toMatchObject({ status: 'COMPLETED' });

    const { fileUrl } = await ds.exportToJsonl({ datasetId: targetId });
    expect(fileUrl).toMatch(/^data:application\/jsonl;base64,/);
    const fromFile = await ds.importFromFile({ datasetId: targetId, importDatasetFromFileRequest: { fileId: fileUrl } });
    expect(await settle(targetId, fromFile.id)).toMatchObject({ status: 'COMPLETED', message: 'Imported 1 record from the file' });

    const records = (await ds.listRecords({ datasetId: targetId })).records.results ?? [];
    expect(records.map((r) => [r.source, r.payload])).toEqual([['PLAYGROUND', copied.payload], ['UPLOADED_FILE', copied.payload]]);

    const tasks = await ds.listTasks({ datasetId: targetId });
    expect(tasks.tasks.count).toBe(2);
    expect(tasks.tasks.results?.map((t) => t.id)).toEqual([fromFile.id, fromDataset.id]);
    expect(tasks.tasks.results?.every((t) => t.createdAt instanceof Date)).toBe(true);

    await expectObservabilityError(ds.importFromFile({ datasetId: targetId, importDatasetFromFileRequest: { fileId: UNKNOWN } }), 404, null);
    await expectObservabilityError(ds.importFromPlayground({ datasetId: targetId, importDatasetFromPlaygroundRequest: { conversationIds: ['conv_missing'] } }), 404, null);
    await expectObservabilityError(ds.fetchTask({ datasetId: targetId, taskId: UNKNOWN }), 404, 'DATASET_TASK_NOT_FOUND');
  });

  it('files.upload then importFromFile with the file id', async () => {
    const ds = t.sdk.beta.observability.datasets;
    const jsonl = ['Paris?', 'Rome?'].map((q) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: 'A capital.' }] })).join('\n');
    const file = await t.sdk.files.upload({ file: { fileName: 'chats.jsonl', content: new TextEncoder().encode(jsonl) }, purpose: 'fine-tune' });
    const { id: datasetId } = await ds.create({ name: 'SDK from files API', description: '' });
    const task = await ds.importFromFile({ datasetId, importDatasetFromFileRequest: { fileId: file.id } });
    expect(await settle(datasetId, task.id)).toMatchObject({ status: 'COMPLETED', message: 'Imported 2 records from the file' });
    const records = (await ds.listRecords({ datasetId })).records.results ?? [];
    expect(records.map((r) => [r.source, r.payload.messages[0].content])).toEqual([['UPLOADED_FILE', 'Paris?'], ['UPLOADED_FILE', 'Rome?']]);
  });

  it('judges a record with an inline definition', async () => {
    const ds = t.sdk.beta.observability.datasets;
    const { id: datasetId } = await ds.create({ name: 'SDK judging', description: '' });
    const record = await ds.createRecord({ datasetId, createDatasetRecordRequest: { payload: { messages: [{ role: 'assistant', content: 'Go away, I am cold.' }] } } });
    const verdict = await ds.records.judge({ datasetRecordId: record.id, judgeDatasetRecordRequest: { judgeDefinition } });
    expect(verdict.answer).toBe('cold');
    expect(typeof verdict.analysis).toBe('string');
  });
});

describe('SDK beta.observability.judges against the local platform', () => {
  it('creates, lists, fetches, updates, live-judges and deletes a judge', async () => {
    const judges = t.sdk.beta.observability.judges;
    const judge = await judges.create(judgeDefinition);
    expect(judge).toMatchObject({ name: 'Tone', modelName: 'parley-local', output: { type: 'CLASSIFICATION' } });
    expect(judge.output).not.toHaveProperty('isUnknown');
    const scorer = await judges.create({
      ...judgeDefinition, name: 'Score', output: { type: 'REGRESSION', min: 0, minDescription: 'bad', max: 1, maxDescription: 'good' },
    });
    expect(scorer.output).toMatchObject({ type: 'REGRESSION', min: 0, max: 1 });

    const list = await judges.list({ typeFilter: ['CLASSIFICATION'] });
    expect(list.judges.results?.map((j) => j.name)).toEqual(['Tone']);
    for (const j of (await judges.list()).judges.results ?? []) expect(j.output).not.toHaveProperty('isUnknown');

    await judges.update({ judgeId: judge.id, updateJudgeRequest: { ...judgeDefinition, description: 'new description' } });
    expect((await judges.fetch({ judgeId: judge.id })).description).toBe('new description');

    const verdict = await judges.judgeConversation({
      judgeId: judge.id,
      judgeConversationRequest: { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello friend, so friendly to see you!' }], properties: { channel: 'web' } },
    });
    expect(verdict.answer).toBe('friendly');
    const score = await judges.judgeConversation({ judgeId: scorer.id, judgeConversationRequest: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(typeof score.answer).toBe('number');

    await judges.delete({ judgeId: judge.id });
    await expectObservabilityError(judges.fetch({ judgeId: judge.id }), 404, 'JUDGE_NOT_FOUND');
    await expectObservabilityError(judges.create({ ...judgeDefinition, name: 'Score' }), 409, 'JUDGE_NAME_ALREADY_EXISTS');
  });
});
