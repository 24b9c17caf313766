/**
 * Completion events (the explorer), campaigns, and the from-explorer / from-campaign dataset imports,
 * through the platform's HTTP app. SDK 2.7.0 has no method for any of them (newer SDKs do), so these
 * are raw HTTP; dataset tasks and records are also read with the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Platform } from '../../src/app.js';
import { ISO_Z, call, parseSse, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MEMBER_KEY = 'member-key';
const EVENTS = '/v1/observability/chat-completion-events';
const CAMPAIGNS = '/v1/observability/campaigns';
const DS = '/v1/observability/datasets';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] }); });
afterAll(async () => { await platform.close(); });

const all = { search_params: { filters: null } };

/** What the newer SDKs require of the answers (ChatCompletionEvent, Campaign with its Judge): field names, types, date-times. */
const dateTime = z.iso.datetime({ offset: true });
const record = z.record(z.string(), z.unknown());
const ExtraField = z.union([z.boolean(), z.number(), z.string(), z.array(z.string()), z.record(z.string(), z.string())]).nullable();
const PreviewShape = z.object({
  event_id: z.string(), correlation_id: z.string(), created_at: dateTime, extra_fields: z.record(z.string(), ExtraField),
  nb_input_tokens: z.int(), nb_output_tokens: z.int(),
});
const EventShape = PreviewShape.extend({
  enabled_tools: z.array(record), request_messages: z.array(record), response_messages: z.array(record), nb_messages: z.int(),
  chat_transcription_events: z.array(z.object({ audio_url: z.string(), model: z.string(), response_message: record })),
});
const CampaignShape = z.object({
  id: z.string(), created_at: dateTime, updated_at: dateTime, deleted_at: dateTime.nullable(), name: z.string(), owner_id: z.string(),
  workspace_id: z.string(), description: z.string(), max_nb_events: z.int(), search_params: z.object({ filters: record.nullable() }),
  judge: z.object({
    id: z.string(), created_at: dateTime, updated_at: dateTime, deleted_at: dateTime.nullable(), owner_id: z.string(), workspace_id: z.string(),
    name: z.string(), description: z.string(), model_name: z.string(), output: z.object({ type: z.enum(['CLASSIFICATION', 'REGRESSION']) }),
    instructions: z.string(), tools: z.array(z.string()),
  }),
});
const byCorrelation = (id: string) => ({ search_params: { filters: { field: 'correlation_id', op: 'eq', value: id } } });

/** The one event whose correlation id is `id` (a completion id or a conversation id), in full. */
async function eventFor(id: string, key?: string) {
  const found = await call(platform, `${EVENTS}/search`, { body: byCorrelation(id), key });
  expect(found.status, found.text).toBe(200);
  expect(found.json.completion_events.results).toHaveLength(1);
  const event = await call(platform, `${EVENTS}/${found.json.completion_events.results[0].event_id}`, { key });
  expect(event.status).toBe(200);
  EventShape.parse(event.json);
  PreviewShape.parse(found.json.completion_events.results[0]);
  return event.json;
}

function expectObservabilityError(res: { status: number; json: any }, status: number, code: string | null) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json.detail.error_code).toBe(code);
  expect(typeof res.json.detail.message).toBe('string');
}

async function settle(datasetId: string, taskId: string) {
  const sdk = sdkFor(platform);
  for (let i = 0; i < 200; i++) {
    const task = await sdk.beta.observability.datasets.fetchTask({ datasetId, taskId });
    if (task.status !== 'RUNNING') return task;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('task still RUNNING');
}

async function createJudge(name: string) {
  const res = await call(platform, '/v1/observability/judges', {
    body: {
      name, description: 'Tone of the assistant', model_name: 'parley-local', instructions: 'Judge the tone.', tools: [],
      output: { type: 'CLASSIFICATION', options: [{ value: 'friendly', description: 'warm' }, { value: 'cold', description: 'curt' }] },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe('completion events', () => {
  it('records a chat completion with its request, response and usage', async () => {
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }];
    const res = await call(platform, '/v1/chat/completions', { body: { model: 'mistral-small-latest', messages } });
    expect(res.status).toBe(200);
    const event = await eventFor(res.json.id);
    expect(event.event_id).toMatch(UUID);
    expect(event.created_at).toMatch(ISO_Z);
    expect(event.request_messages).toEqual(messages);
    expect(event.response_messages).toEqual([res.json.choices[0].message]);
    expect(event.nb_input_tokens).toBe(res.json.usage.prompt_tokens);
    expect(event.nb_output_tokens).toBe(res.json.usage.completion_tokens);
    expect(event.nb_messages).toBe(3);
    expect(event.chat_transcription_events).toEqual([]);
    expect(event.extra_fields).toMatchObject({ model: 'mistral-small-latest', endpoint: '/v1/chat/completions', stream: false, agent_id: null, finish_reason: 'stop' });
  });

  it('records a streamed chat completion with the text the stream carried', async () => {
    const res = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'Tell me a story' }], stream: true } });
    expect(res.status).toBe(200);
    const chunks = res.text.split('\n\n').filter((b) => b.startsWith('data: {')).map((b) => JSON.parse(b.slice(6)));
    const text = chunks.map((ch) => ch.choices[0].delta.content ?? '').join('');
    const usage = chunks.at(-1).usage;
    const event = await eventFor(chunks[0].id);
    expect(event.response_messages).toEqual([{ role: 'assistant', content: text }]);
    expect(text.length).toBeGreaterThan(0);
    expect(event.nb_output_tokens).toBe(usage.completion_tokens);
    expect(event.extra_fields).toMatchObject({ stream: true, finish_reason: 'stop', model: 'parley-local' });
  });

  it('records agent completions with the agent and its model', async () => {
    const agent = await call(platform, '/v1/agents', { body: { model: 'mistral-small-latest', name: 'Greeter', instructions: 'Greet warmly.' } });
    expect(agent.status).toBe(200);
    const res = await call(platform, '/v1/agents/completions', { body: { agent_id: agent.json.id, messages: [{ role: 'user', content: 'Hello agent' }] } });
    expect(res.status).toBe(200);
    const event = await eventFor(res.json.id);
    expect(event.extra_fields).toMatchObject({ agent_id: agent.json.id, model: 'mistral-small-latest', endpoint: '/v1/agents/completions' });
    expect(event.response_messages).toEqual([res.json.choices[0].message]);
  });

  it('records FIM completions', async () => {
    const res = await call(platform, '/v1/fim/completions', { body: { model: 'codestral-latest', prompt: 'def add(a, b):', suffix: '\n' } });
    expect(res.status).toBe(200);
    const event = await eventFor(res.json.id);
    expect(event.request_messages).toEqual([{ role: 'user', content: 'def add(a, b):' }]);
    expect(event.extra_fields).toMatchObject({ endpoint: '/v1/fim/completions', model: 'codestral-latest' });
  });

  it('records conversation turns (start, streamed append, restart) under the conversation id', async () => {
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', instructions: 'Be kind.', inputs: 'Hi there' } });
    expect(start.status).toBe(200);
    const id = start.json.conversation_id;
    const first = await eventFor(id);
    expect(first.request_messages).toEqual([{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi there' }]);
    expect(first.response_messages).toEqual([{ role: 'assistant', content: start.json.outputs[0].content }]);
    expect(first.extra_fields).toMatchObject({ conversation_id: id, endpoint: '/v1/conversations', stream: false, model: 'parley-local' });

    const append = await call(platform, `/v1/conversations/${id}`, { body: { inputs: 'And again', stream: true } });
    expect(append.status).toBe(200);
    expect(parseSse(append.text).at(-1)?.event).toBe('conversation.response.done');
    const restart = await call(platform, `/v1/conversations/${id}/restart`, { body: { inputs: 'Once more', from_entry_id: start.json.outputs[0].id } });
    expect(restart.status, restart.text).toBe(200);

    const ids = await call(platform, `${EVENTS}/search-ids`, { body: { search_params: { filters: { field: 'conversation_id', op: 'eq', value: id } } } });
    expect(ids.json.completion_event_ids).toHaveLength(2);
    const streamed = (await call(platform, `${EVENTS}/${ids.json.completion_event_ids[0]}`)).json;
    expect(streamed.extra_fields.stream).toBe(true);
    expect(streamed.request_messages.map((m: { content: unknown }) => m.content)).toEqual(['Be kind.', 'Hi there', start.json.outputs[0].content, 'And again']);
    const restarted = await eventFor(restart.json.conversation_id);
    expect(restarted.request_messages.at(-1)).toEqual({ role: 'user', content: 'Once more' });
  });

  it('filters with conditions and AND/OR groups, pages with a cursor, and keeps workspaces apart', async () => {
    const tag = `needle-${Date.now()}`;
    for (const content of [`${tag} one`, `${tag} two`, `${tag} three`]) {
      expect((await call(platform, '/v1/chat/completions', { body: { model: 'mistral-large-latest', messages: [{ role: 'user', content }] } })).status).toBe(200);
    }
    const large = { field: 'model', op: 'eq', value: 'mistral-large-latest' };
    const ids = (await call(platform, `${EVENTS}/search-ids`, { body: { search_params: { filters: large } } })).json.completion_event_ids;
    expect(ids).toHaveLength(3);
    const group = { AND: [large, { OR: [{ field: 'endpoint', op: 'icontains', value: 'FIM' }, { field: 'nb_input_tokens', op: 'gte', value: 0 }] }] };
    expect((await call(platform, `${EVENTS}/search-ids`, { body: { search_params: { filters: group } } })).json.completion_event_ids).toEqual(ids);

    const page1 = await call(platform, `${EVENTS}/search?page_size=2`, { body: { search_params: { filters: large }, extra_fields: ['model'] } });
    expect(page1.json.completion_events.results.map((e: { event_id: string }) => e.event_id)).toEqual(ids.slice(0, 2));
    expect(page1.json.completion_events.results[0].extra_fields).toEqual({ model: 'mistral-large-latest' });
    expect(page1.json.completion_events.results[0]).not.toHaveProperty('request_messages');
    const { cursor, next } = page1.json.completion_events;
    expect(typeof cursor).toBe('string');
    expect(next).toContain(`cursor=${cursor}`);
    const page2 = await call(platform, `${EVENTS}/search?page_size=2&cursor=${cursor}`, { body: { search_params: { filters: large } } });
    expect(page2.json.completion_events.results.map((e: { event_id: string }) => e.event_id)).toEqual(ids.slice(2));
    expect(page2.json.completion_events.cursor).toBeNull();

    // Another user of the same workspace sees them; nothing is answered for a field events do not have.
    expect((await call(platform, `${EVENTS}/search-ids`, { body: { search_params: { filters: large } }, key: MEMBER_KEY })).json.completion_event_ids).toEqual(ids);
    expectObservabilityError(await call(platform, `${EVENTS}/search`, { body: { search_params: { filters: { field: 'colour', op: 'eq', value: 1 } } } }), 400, 'FIELDS_NOT_FOUND');
    expectObservabilityError(await call(platform, `${EVENTS}/search`, { body: { search_params: { filters: { field: 'model', op: 'like', value: 1 } } } }), 422, 'VALIDATION_ERROR');
    expectObservabilityError(await call(platform, `${EVENTS}/search?cursor=zzz`, { body: all }), 422, 'VALIDATION_ERROR');
    expectObservabilityError(await call(platform, `${EVENTS}/${UNKNOWN}`), 404, null);
  });

  it('judges an event live with an inline judge definition', async () => {
    const res = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'Thanks a lot!' }] } });
    const event = await eventFor(res.json.id);
    const judge_definition = {
      name: 'Tone', description: 'Tone of the answer', model_name: 'parley-local', instructions: 'Judge the tone.', tools: [],
      output: { type: 'CLASSIFICATION', options: [{ value: 'friendly', description: 'warm' }, { value: 'cold', description: 'curt' }] },
    };
    const verdict = await call(platform, `${EVENTS}/${event.event_id}/live-judging`, { body: { judge_definition } });
    expect(verdict.status, verdict.text).toBe(200);
    expect(['friendly', 'cold']).toContain(verdict.json.answer);
    expect(typeof verdict.json.analysis).toBe('string');
    expectObservabilityError(await call(platform, `${EVENTS}/${UNKNOWN}/live-judging`, { body: { judge_definition } }), 404, null);
    expectObservabilityError(await call(platform, `${EVENTS}/${event.event_id}/live-judging`, { body: { judge_definition: { ...judge_definition, model_name: 'nope' } } }), 422, 'VALIDATION_ERROR');
  });

  it('lists the fields filters can name', async () => {
    const res = await call(platform, '/v1/observability/chat-completion-fields');
    expect(res.status).toBe(200);
    expect(res.json.field_definitions.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['model', 'created_at', 'conversation_id']));
  });
});

describe('campaigns', () => {
  it('creates a campaign over the matching events and answers it, its status and its selection', async () => {
    const judge = await createJudge('Campaign tone');
    const content = `campaign-${Date.now()}`;
    for (let i = 0; i < 3; i++) {
      expect((await call(platform, '/v1/chat/completions', { body: { model: 'mistral-medium-latest', messages: [{ role: 'user', content: `${content} ${i}` }] } })).status).toBe(200);
    }
    const search_params = { filters: { field: 'model', op: 'eq', value: 'mistral-medium-latest' } };
    const ids = (await call(platform, `${EVENTS}/search-ids`, { body: { search_params } })).json.completion_event_ids;
    const created = await call(platform, CAMPAIGNS, { body: { search_params, judge_id: judge.id, name: 'Medium tone', description: 'Tone of medium answers', max_nb_events: 2 } });
    expect(created.status, created.text).toBe(201);
    const campaign = created.json;
    CampaignShape.parse(campaign);
    expect(campaign).toMatchObject({ name: 'Medium tone', description: 'Tone of medium answers', max_nb_events: 2, search_params, deleted_at: null, judge: { id: judge.id, name: 'Campaign tone' } });
    expect(campaign.id).toMatch(UUID);
    expect(campaign.created_at).toMatch(ISO_Z);

    expect((await call(platform, `${CAMPAIGNS}/${campaign.id}`)).json).toEqual(campaign);
    expect((await call(platform, `${CAMPAIGNS}/${campaign.id}/status`)).json).toEqual({ status: 'COMPLETED' });
    const selected = await call(platform, `${CAMPAIGNS}/${campaign.id}/selected-events?page_size=1`);
    expect(selected.json.completion_events).toMatchObject({ count: 2, previous: null });
    expect(selected.json.completion_events.results.map((e: { event_id: string }) => e.event_id)).toEqual(ids.slice(0, 1));
    expect(selected.json.completion_events.next).toContain('page=2');

    const list = await call(platform, `${CAMPAIGNS}?q=medium`);
    expect(list.json.campaigns.results.map((c: { id: string }) => c.id)).toContain(campaign.id);
    expect(list.json.campaigns.count).toBeGreaterThanOrEqual(1);
    expect((await call(platform, `${CAMPAIGNS}?q=nothing-like-this`)).json.campaigns).toMatchObject({ results: [], count: 0 });

    expect((await call(platform, `${CAMPAIGNS}/${campaign.id}`, { method: 'DELETE' })).status).toBe(204);
    expectObservabilityError(await call(platform, `${CAMPAIGNS}/${campaign.id}`), 404, 'CAMPAIGN_NOT_FOUND');
    expectObservabilityError(await call(platform, `${CAMPAIGNS}/${campaign.id}`, { method: 'DELETE' }), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('refuses an unknown judge, a filter matching nothing, unknown fields and bad bodies', async () => {
    const judge = await createJudge('Refusals');
    const base = { judge_id: judge.id, name: 'Refused', description: '', max_nb_events: 5 };
    expectObservabilityError(await call(platform, CAMPAIGNS, { body: { ...base, judge_id: UNKNOWN, search_params: { filters: null } } }), 404, 'JUDGE_NOT_FOUND');
    expectObservabilityError(await call(platform, CAMPAIGNS, { body: { ...base, search_params: { filters: { field: 'model', op: 'eq', value: 'no-such-model' } } } }), 400, 'CAMPAIGN_NO_MATCHING_EVENTS');
    expectObservabilityError(await call(platform, CAMPAIGNS, { body: { ...base, search_params: { filters: { field: 'colour', op: 'eq', value: 1 } } } }), 400, 'FIELDS_NOT_FOUND');
    expectObservabilityError(await call(platform, CAMPAIGNS, { body: { ...base, max_nb_events: 0, search_params: { filters: null } } }), 422, 'VALIDATION_ERROR');
    expectObservabilityError(await call(platform, `${CAMPAIGNS}/nope`), 422, 'VALIDATION_ERROR');
    expect((await call(platform, `${CAMPAIGNS}?q=Refused`)).json.campaigns.count).toBe(0);
  });
});

describe('dataset imports from the explorer and from campaigns', () => {
  async function dataset() {
    const res = await call(platform, DS, { body: { name: 'Imported events', description: 'from the explorer' } });
    expect(res.status).toBe(201);
    return res.json.id as string;
  }

  it('from-explorer copies the events as EXPLORER records, in the order given', async () => {
    const a = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'first question' }] } });
    const b = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'second question' }] } });
    const [ea, eb] = [await eventFor(a.json.id), await eventFor(b.json.id)];
    const datasetId = await dataset();
    const accepted = await call(platform, `${DS}/${datasetId}/imports/from-explorer`, { body: { completion_event_ids: [eb.event_id, ea.event_id] } });
    expect(accepted.status).toBe(202);
    expect(accepted.json).toMatchObject({ dataset_id: datasetId, status: 'RUNNING' });
    expect(await settle(datasetId, accepted.json.id)).toMatchObject({ status: 'COMPLETED', progress: 100, message: 'Imported 2 records from 2 completion events' });

    const records = await sdkFor(platform).beta.observability.datasets.listRecords({ datasetId });
    expect(records.records.results?.map((r) => r.payload)).toEqual([
      { messages: [{ role: 'user', content: 'second question' }, b.json.choices[0].message] },
      { messages: [{ role: 'user', content: 'first question' }, a.json.choices[0].message] },
    ]);
    expect(records.records.results?.[0]).toMatchObject({ source: 'EXPLORER', properties: { completion_event_id: eb.event_id, correlation_id: b.json.id, model: 'parley-local' } });
  });

  it('from-explorer answers 404 for an event the workspace does not have, and accepts no task', async () => {
    const datasetId = await dataset();
    const res = await call(platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: 'hello' }] } });
    const event = await eventFor(res.json.id);
    expectObservabilityError(await call(platform, `${DS}/${datasetId}/imports/from-explorer`, { body: { completion_event_ids: [event.event_id, UNKNOWN] } }), 404, null);
    expectObservabilityError(await call(platform, `${DS}/${datasetId}/imports/from-explorer`, { body: { completion_event_ids: [] } }), 422, 'VALIDATION_ERROR');
    expect((await call(platform, `${DS}/${datasetId}/tasks`)).json.tasks.count).toBe(0);
  });

  it('from-campaign copies the events the campaign selected', async () => {
    const judge = await createJudge('Import tone');
    const start = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'campaign conversation' } });
    const search_params = { filters: { field: 'conversation_id', op: 'eq', value: start.json.conversation_id } };
    const campaign = (await call(platform, CAMPAIGNS, { body: { search_params, judge_id: judge.id, name: 'One conversation', description: 'its turns', max_nb_events: 10 } })).json;
    const datasetId = await dataset();
    const accepted = await call(platform, `${DS}/${datasetId}/imports/from-campaign`, { body: { campaign_id: campaign.id } });
    expect(accepted.status).toBe(202);
    expect(await settle(datasetId, accepted.json.id)).toMatchObject({ status: 'COMPLETED', message: `Imported 1 record from the 1 completion event of campaign '${campaign.id}'` });
    const records = (await call(platform, `${DS}/${datasetId}/records`)).json.records.results;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      source: 'EXPLORER',
      payload: { messages: [{ role: 'user', content: 'campaign conversation' }, { role: 'assistant', content: start.json.outputs[0].content }] },
      properties: { campaign_id: campaign.id, correlation_id: start.json.conversation_id },
    });
    expectObservabilityError(await call(platform, `${DS}/${datasetId}/imports/from-campaign`, { body: { campaign_id: UNKNOWN } }), 404, 'CAMPAIGN_NOT_FOUND');
  });
});
