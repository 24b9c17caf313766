// Fine-tuned models through the official SDK, unmodified: models.list/retrieve/update/archive/unarchive/delete,
// chat.complete and beta.conversations.start with an `ft:` model. (SDK 2.7.0 has no fineTuning.jobs client;
// jobs are created over HTTP, as fine-tuning.test.ts covers in full.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mistral } from '@mistralai/mistralai';
import type { Platform } from '../../src/app.js';
import { call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';

const PROMPT = 'Which platform is the night train to Vienna leaving from?';
const REPLY = 'The night train to Vienna leaves from platform 7 at 21:40.';
const JSONL = `${JSON.stringify({ messages: [{ role: 'user', content: PROMPT }, { role: 'assistant', content: REPLY }] })}\n`;

describe('fine-tuned models through the official SDK', () => {
  let platform: Platform;
  let sdk: Mistral;
  let model: string;
  let jobId: string;
  beforeAll(async () => {
    platform = await startPlatform();
    sdk = sdkFor(platform);
    const file = await sdk.files.upload({ file: { fileName: 'trains.jsonl', content: new TextEncoder().encode(JSONL) }, purpose: 'fine-tune' });
    const created = await call(platform, '/v1/fine_tuning/jobs', { body: { model: 'mistral-small-latest', training_files: [{ file_id: file.id }], suffix: 'rail', hyperparameters: { epochs: 1 } } });
    expect(created.status).toBe(200);
    jobId = created.json.id;
    for (let i = 0; i < 500; i++) {
      const job = (await call(platform, `/v1/fine_tuning/jobs/${jobId}`)).json;
      if (job.status === 'SUCCESS') { model = job.fine_tuned_model; break; }
      expect(['QUEUED', 'VALIDATING', 'VALIDATED', 'RUNNING']).toContain(job.status);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(model).toMatch(/^ft:mistral-small-latest:rail:/);
  });
  afterAll(async () => { await platform.close(); });

  it('lists and retrieves the fine-tuned model as FTModelCard', async () => {
    const list = await sdk.models.list();
    const card = list.data?.find((m) => m.id === model);
    expect(card).toMatchObject({ type: 'fine-tuned', job: jobId, root: 'mistral-small-latest', archived: false });
    expect(list.data?.some((m) => 'isUnknown' in m)).toBe(false);
    const one = await sdk.models.retrieve({ modelId: model });
    expect(one).toMatchObject({ id: model, type: 'fine-tuned', job: jobId });
    expect('isUnknown' in one).toBe(false);
  });

  it('updates, archives and unarchives it', async () => {
    const updated = await sdk.models.update({ modelId: model, updateModelRequest: { name: 'Rail desk', description: 'Knows the night trains' } });
    expect(updated).toMatchObject({ id: model, modelType: 'completion', name: 'Rail desk', description: 'Knows the night trains', job: jobId, archived: false, rootVersion: 'parley-local' });
    expect(await sdk.models.archive({ modelId: model })).toEqual({ id: model, object: 'model', archived: true });
    expect((await sdk.models.retrieve({ modelId: model })) as { archived?: boolean }).toMatchObject({ archived: true });
    expect(await sdk.models.unarchive({ modelId: model })).toEqual({ id: model, object: 'model', archived: false });
  });

  it('chats with it: the trained reply in chat.complete and beta.conversations.start', async () => {
    const chat = await sdk.chat.complete({ model, messages: [{ role: 'user', content: PROMPT }] });
    expect(chat.model).toBe(model);
    expect(chat.choices[0].message.content).toBe(REPLY);
    const base = await sdk.chat.complete({ model: 'mistral-small-latest', messages: [{ role: 'user', content: PROMPT }] });
    expect(base.choices[0].message.content).not.toBe(REPLY);
    const conversation = await sdk.beta.conversations.start({ model, inputs: PROMPT });
    expect(conversation.outputs[0]).toMatchObject({ type: 'message.output', content: REPLY });
  });

  it('answers 404 through the SDK for unknown fine-tuned models', async () => {
    await expect(sdk.models.archive({ modelId: 'ft:mistral-small-latest:none:20260101:00000000' })).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk.models.update({ modelId: 'ft:none', updateModelRequest: { name: 'x' } })).rejects.toMatchObject({ statusCode: 404 });
  });

  // Fails until models/routes.ts deletes fine-tuned models through ctx.chat.delete (see the fine-tuning report); flip to `it` then.
  it('deletes it: DELETE /v1/models/{id} answers {id, object, deleted}, then 404', async () => {
    expect(await sdk.models.delete({ modelId: model })).toEqual({ id: model, object: 'model', deleted: true });
    await expect(sdk.models.retrieve({ modelId: model })).rejects.toMatchObject({ statusCode: 404 });
  });
});
