import { describe, expect, it } from 'vitest';
import { withSdkPlatform } from './sdk.js';
import type { BatchJob } from '@mistralai/mistralai/models/components';

const CHAT = 'mistral-small-latest';
const FINAL = ['SUCCESS', 'FAILED', 'TIMEOUT_EXCEEDED', 'CANCELLED'];

describe('batch jobs through the official SDK', () => {
  const t = withSdkPlatform();

  async function settle(jobId: string): Promise<BatchJob> {
    const start = Date.now();
    for (;;) {
      const job = await t.sdk.batch.jobs.get({ jobId });
      if (FINAL.includes(job.status)) return job;
      if (Date.now() - start > 20_000) throw new Error(`job ${jobId} still ${job.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('files.upload → batch.jobs.create → get → list → files.download of the output', async () => {
    const lines = [
      { custom_id: 'cheese', body: { messages: [{ role: 'user', content: 'What is the best French cheese?' }] } },
      { custom_id: 'broken', body: { messages: 'not a list' } },
    ];
    const input = await t.sdk.files.upload({ file: { fileName: 'batch.jsonl', content: new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n')) }, purpose: 'batch' });
    expect(input).toMatchObject({ purpose: 'batch', sampleType: 'batch_request', numLines: 2 });

    const created = await t.sdk.batch.jobs.create({ inputFiles: [input.id], endpoint: '/v1/chat/completions', model: CHAT, metadata: { project: 'sdk' }, timeoutHours: 2 });
    expect(created).toMatchObject({ object: 'batch', inputFiles: [input.id], endpoint: '/v1/chat/completions', model: CHAT, status: 'QUEUED', totalRequests: 2, metadata: { project: 'sdk' } });

    const job = await settle(created.id);
    expect(job).toMatchObject({ status: 'SUCCESS', completedRequests: 2, succeededRequests: 1, failedRequests: 1 });
    expect(job.errors).toEqual([{ message: expect.stringContaining('messages'), count: 1 }]);
    expect(typeof job.startedAt).toBe('number');

    const output = await t.sdk.files.download({ fileId: job.outputFile! });
    const [line] = (await new Response(output).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(line).toMatchObject({ custom_id: 'cheese', response: { status_code: 200, body: { object: 'chat.completion' } }, error: null });
    expect(line.response.body.choices[0].message.content.length).toBeGreaterThan(0);
    const errors = await new Response(await t.sdk.files.download({ fileId: job.errorFile! })).text();
    expect(JSON.parse(errors.trim())).toMatchObject({ custom_id: 'broken', response: { status_code: 422 } });

    const list = await t.sdk.batch.jobs.list({ status: ['SUCCESS'], metadata: { project: 'sdk' }, createdByMe: true, createdAfter: new Date(Date.now() - 60_000) });
    expect(list.total).toBe(1);
    expect(list.data?.map((j) => j.id)).toEqual([job.id]);
    expect((await t.sdk.batch.jobs.list({ metadata: { project: 'other' } })).total).toBe(0);
  });

  it('inline requests, get with inline outputs, cancel and delete', async () => {
    const created = await t.sdk.batch.jobs.create({ endpoint: '/v1/embeddings', model: 'mistral-embed', requests: [{ customId: 'one', body: { input: 'first text' } }, { body: { input: 'second text' } }] });
    await settle(created.id);
    const inline = await t.sdk.batch.jobs.get({ jobId: created.id, inline: true });
    expect(inline.outputs?.map((o) => o.custom_id)).toEqual(['one', null]);
    expect(inline.outputs?.[0].response.body.data[0].embedding.length).toBeGreaterThan(0);

    // Two jobs in a row: the second waits in the queue while the first runs, so it is cancelled at once.
    const requests = Array.from({ length: 5 }, (_, i) => ({ customId: `c${i}`, body: { messages: [{ role: 'user' as const, content: `Hello ${i}` }] } }));
    const first = await t.sdk.batch.jobs.create({ endpoint: '/v1/chat/completions', model: CHAT, requests });
    const second = await t.sdk.batch.jobs.create({ endpoint: '/v1/chat/completions', model: CHAT, requests });
    const cancelled = await t.sdk.batch.jobs.cancel({ jobId: second.id });
    expect(['CANCELLED', 'CANCELLATION_REQUESTED']).toContain(cancelled.status);
    expect((await settle(second.id)).status).toBe('CANCELLED');
    expect((await settle(first.id)).status).toBe('SUCCESS');

    expect(await t.sdk.batch.jobs.delete({ jobId: second.id })).toEqual({ id: second.id, object: 'batch', deleted: true });
    await expect(t.sdk.batch.jobs.get({ jobId: second.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(t.sdk.batch.jobs.cancel({ jobId: second.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('surfaces bad input as HTTP 422, unknown files as 404', async () => {
    // An endpoint outside ApiEndpoint (the SDK's open enum lets it through to the server).
    await expect(t.sdk.batch.jobs.create({ endpoint: '/v1/files' as never, model: CHAT, requests: [{ body: {} }] })).rejects.toMatchObject({ statusCode: 422 });
    await expect(t.sdk.batch.jobs.create({ endpoint: '/v1/embeddings', model: 'mistral-embed' })).rejects.toMatchObject({ statusCode: 422 });
    await expect(t.sdk.batch.jobs.create({ inputFiles: ['00000000-0000-4000-8000-000000000001'], endpoint: '/v1/embeddings' })).rejects.toMatchObject({ statusCode: 404 });
  });
});
