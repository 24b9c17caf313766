/**
 * Observability datasets and judges (`/v1/observability/…`), as SDK `@mistralai/mistralai` 2.7.0
 * (`beta.observability.datasets.*`, `…datasets.records.*`, `beta.observability.judges.*`) expects:
 *
 * | route | answer |
 * |---|---|
 * | `POST /v1/observability/datasets` | 201 Dataset |
 * | `GET /v1/observability/datasets?page&page_size&q` | 200 `{datasets:{results, count, next, previous}}` |
 * | `GET /v1/observability/datasets/{dataset_id}` | 200 DatasetPreview |
 * | `PATCH /v1/observability/datasets/{dataset_id}` | 200 DatasetPreview |
 * | `DELETE /v1/observability/datasets/{dataset_id}` | 204 (records and tasks go too) |
 * | `GET /v1/observability/datasets/{dataset_id}/records?page&page_size` | 200 `{records:{…}}` |
 * | `POST /v1/observability/datasets/{dataset_id}/records` | 201 DatasetRecord |
 * | `POST /v1/observability/datasets/{dataset_id}/imports/from-{playground,dataset,file,explorer,campaign}` | 202 DatasetImportTask (RUNNING) |
 * | `GET /v1/observability/datasets/{dataset_id}/tasks?page&page_size` | 200 `{tasks:{…}}` |
 * | `GET /v1/observability/datasets/{dataset_id}/tasks/{task_id}` | 200 DatasetImportTask |
 * | `GET /v1/observability/datasets/{dataset_id}/exports/to-jsonl` | 200 `{file_url}` (a `data:application/jsonl;base64,…` URL) |
 * | `GET`/`DELETE /v1/observability/dataset-records/{id}` | 200 DatasetRecord / 204 |
 * | `POST /v1/observability/dataset-records/bulk-delete` | 204 (all or none) |
 * | `PUT /v1/observability/dataset-records/{id}/payload` · `…/properties` | 204 |
 * | `POST /v1/observability/dataset-records/{id}/live-judging` (`{judge_definition}`) | 200 `{analysis, answer}` |
 * | `POST /v1/observability/judges` · `GET …/judges?page&page_size&q&type_filter&model_filter` | 201 Judge · 200 `{judges:{…}}` |
 * | `GET` / `PUT` / `DELETE /v1/observability/judges/{judge_id}` | 200 Judge / 204 / 204 |
 * | `POST /v1/observability/judges/{judge_id}/live-judging` (`{messages, properties?}`) | 200 `{analysis, answer}` |
 *
 * Errors use the observability shape `{detail:{message, error_code}}` (see ./errors.ts): 422
 * `VALIDATION_ERROR` for bad bodies, queries and malformed UUIDs in paths; 404 `DATASET_NOT_FOUND`,
 * `DATASET_RECORD_NOT_FOUND`, `DATASET_TASK_NOT_FOUND`, `JUDGE_NOT_FOUND` for ids the caller's workspace
 * does not have (also the conversations of from-playground, the completion events of from-explorer
 * (code null) and the campaign of from-campaign (`CAMPAIGN_NOT_FOUND`), all checked before the task is
 * accepted); 409 for a judge name taken. Completion events and campaigns: ./routes.ts.
 *
 * Imports run in the background (./dataset-imports.ts). `file_id` of from-file is the id of a JSONL file of
 * the files API that the caller can see (any purpose; unknown → 404), or a `data:` URL holding JSONL (what
 * exports/to-jsonl answers).
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { readJson, validate } from '../http/validation.js';
import { jsonObject } from '../http/schemas.js';
import type { DatasetStore, ImportRequest } from './datasets.js';
import type { JudgeStore } from './judges.js';
import { DatasetImports } from './dataset-imports.js';
import { ObservabilityHttpError, invalid, missing, pathUuid, uuidField } from './errors.js';
import { PageQuerySchema, paginated } from './pagination.js';
import { dataUrlJsonStream, decodeDataUrl } from './jsonl.js';
import { getFile, readFileBytes } from '../files/store.js';
import type { CompletionEventStore } from './events.js';
import type { CampaignStore } from './campaigns.js';
import {
  JudgeDefinitionSchema, JudgedMessageSchema, judgeConversation, type JudgeDefinition, type JudgedMessage, type JudgeVerdict,
} from './judging.js';


const CreateDatasetSchema = z.object({ name: z.string().min(5).max(50), description: z.string().max(200) });
const PatchDatasetSchema = z.object({ name: z.string().min(5).max(50).nullish(), description: z.string().max(200).nullish() });
const CreateRecordSchema = z.object({
  payload: jsonObject,
  properties: jsonObject.optional(),
  source: z.enum(['DIRECT_INPUT', 'TELEMETRY_SPAN']).optional(),
});
const PayloadSchema = z.object({ payload: jsonObject });
const PropertiesSchema = z.object({ properties: jsonObject });
const RecordIdsSchema = z.object({ dataset_record_ids: z.array(uuidField).min(1).max(10000) });
const FromPlaygroundSchema = z.object({ conversation_ids: z.array(z.string().min(1)).min(1).max(500) });
const FromFileSchema = z.object({ file_id: z.string().min(1) });
const FromExplorerSchema = z.object({ completion_event_ids: z.array(z.string().min(1)).min(1).max(500) });
const FromCampaignSchema = z.object({ campaign_id: uuidField });
const RecordJudgingSchema = z.object({ judge_definition: JudgeDefinitionSchema });
const ConversationJudgingSchema = z.object({ messages: z.array(JudgedMessageSchema).min(1), properties: jsonObject.nullish() });

function pageOf(c: Context) {
  const q = validate(PageQuerySchema, c.req.query(), ['query']);
  return { request: { page: q.page, pageSize: q.page_size }, q: q.q };
}

/** The area's stores, made once for its two route modules (routes.ts). */
export interface ObservabilityStores {
  datasets: DatasetStore;
  judges: JudgeStore;
  events: CompletionEventStore;
  campaigns: CampaignStore;
}

/** The dataset and judge routes; their errors are written by the area's handler (routes.ts mounts them). */
export function datasetRoutes(ctx: PlatformContext, stores: ObservabilityStores): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const { datasets, judges, events: completionEvents, campaigns } = stores;
  const imports = new DatasetImports(datasets, ctx.conversations, async (workspaceId, userId, fileId) => (await readFileBytes(ctx.db, workspaceId, fileId, userId))?.bytes, {
    events: (workspaceId, ids) => completionEvents.getMany(workspaceId, ids),
    campaignEventIds: async (workspaceId, campaignId) => ((await campaigns.get(workspaceId, campaignId)) ? (await campaigns.eventIds(campaignId)).results : null),
  });
  imports.resume();
  const body = <S extends z.ZodType>(c: Context, schema: S) => readJson(c, schema, ctx.limits.maxJsonBytes);

  const datasetOf = async (c: Context) => {
    const id = pathUuid(c, 'dataset_id');
    const dataset = await datasets.getDataset(callerOf(c).workspaceId, id);
    if (!dataset) throw missing('DATASET_NOT_FOUND', `Dataset '${id}' not found`);
    return dataset;
  };
  const recordOf = async (c: Context) => {
    const id = pathUuid(c, 'dataset_record_id');
    const record = await datasets.getRecord(callerOf(c).workspaceId, id);
    if (!record) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${id}' not found`);
    return record;
  };
  const judgeOf = async (c: Context) => {
    const id = pathUuid(c, 'judge_id');
    const judge = await judges.get(callerOf(c).workspaceId, id);
    if (!judge) throw missing('JUDGE_NOT_FOUND', `Judge '${id}' not found`);
    return judge;
  };
  const checkJudgeModel = (definition: JudgeDefinition, loc: string[]) => {
    if (!ctx.chat.resolve(definition.model_name)) {
      throw invalid(loc, `Model '${definition.model_name}' is not served by this platform (GET /v1/models lists the models it serves)`);
    }
  };
  const runJudge = async (c: Context, definition: JudgeDefinition, messages: readonly JudgedMessage[], properties: Record<string, unknown> | null | undefined): Promise<JudgeVerdict> => {
    const resolved = ctx.chat.resolve(definition.model_name);
    if (!resolved) {
      throw new ObservabilityHttpError(400, `The judge's model '${definition.model_name}' is not served by this platform`, 'JUDGE_MISTRAL_API_ERROR');
    }
    try {
      return await judgeConversation(resolved.engine, definition, messages, properties, c.req.raw.signal);
    } catch (err) {
      if (err instanceof ObservabilityHttpError) throw err;
      throw new ObservabilityHttpError(502, `The judge's model '${definition.model_name}' failed: ${(err as Error).message}`, 'JUDGE_MISTRAL_API_ERROR');
    }
  };
  const startImport = async (c: Context, datasetId: string, request: ImportRequest) => {
    const caller = callerOf(c);
    const task = await imports.start({ datasetId, workspaceId: caller.workspaceId, creatorId: caller.userId, request });
    return c.json(task, 202);
  };

  // ------------------------------------------------------------ datasets

  app.post('/datasets', async (c) => {
    const input = await body(c, CreateDatasetSchema);
    const caller = callerOf(c);
    const dataset = await datasets.createDataset({ workspaceId: caller.workspaceId, ownerId: caller.userId, ...input });
    return c.json(dataset, 201);
  });

  app.get('/datasets', async (c) => {
    const { request, q } = pageOf(c);
    const page = await datasets.listDatasets(callerOf(c).workspaceId, request, q);
    return c.json({ datasets: paginated(c.req.url, request, page) }, 200);
  });

  app.get('/datasets/:dataset_id', async (c) => c.json(await datasetOf(c), 200));

  app.patch('/datasets/:dataset_id', async (c) => {
    const { id } = await datasetOf(c);
    const patch = await body(c, PatchDatasetSchema);
    const updated = await datasets.updateDataset(callerOf(c).workspaceId, id, patch);
    if (!updated) throw missing('DATASET_NOT_FOUND', `Dataset '${id}' not found`);
    return c.json(updated, 200);
  });

  app.delete('/datasets/:dataset_id', async (c) => {
    const id = pathUuid(c, 'dataset_id');
    if (!(await datasets.deleteDataset(callerOf(c).workspaceId, id))) throw missing('DATASET_NOT_FOUND', `Dataset '${id}' not found`);
    return c.body(null, 204);
  });

  app.get('/datasets/:dataset_id/records', async (c) => {
    const { id } = await datasetOf(c);
    const { request } = pageOf(c);
    return c.json({ records: paginated(c.req.url, request, await datasets.listRecords(id, request)) }, 200);
  });

  app.post('/datasets/:dataset_id/records', async (c) => {
    const { id } = await datasetOf(c);
    const input = await body(c, CreateRecordSchema);
    const record = await datasets.createRecord(id, { payload: input.payload, properties: input.properties ?? {}, source: input.source ?? 'DIRECT_INPUT' });
    return c.json(record, 201);
  });

  app.get('/datasets/:dataset_id/exports/to-jsonl', async (c) => {
    const { id } = await datasetOf(c);
    // Streamed a page of records at a time (jsonl.ts): a large dataset is never held whole.
    return new Response(dataUrlJsonStream('file_url', datasets.recordPages(id)), { status: 200, headers: { 'content-type': 'application/json' } });
  });

  // ------------------------------------------------------------ imports and their tasks

  app.post('/datasets/:dataset_id/imports/from-playground', async (c) => {
    const { id } = await datasetOf(c);
    const { conversation_ids } = await body(c, FromPlaygroundSchema);
    for (const conversationId of conversation_ids) {
      if (!(await ctx.conversations.get(conversationId))) throw missing(null, `Conversation '${conversationId}' not found`);
    }
    return startImport(c, id, { kind: 'playground', conversation_ids });
  });

  app.post('/datasets/:dataset_id/imports/from-dataset', async (c) => {
    const { id } = await datasetOf(c);
    const { dataset_record_ids } = await body(c, RecordIdsSchema);
    const found = new Set((await datasets.getRecords(callerOf(c).workspaceId, dataset_record_ids)).map((r) => r.id));
    const unknown = dataset_record_ids.find((recordId) => !found.has(recordId));
    if (unknown) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${unknown}' not found`);
    return startImport(c, id, { kind: 'dataset', dataset_record_ids });
  });

  app.post('/datasets/:dataset_id/imports/from-file', async (c) => {
    const { id } = await datasetOf(c);
    const { file_id } = await body(c, FromFileSchema);
    if (/^data:/i.test(file_id)) {
      if (decodeDataUrl(file_id) === null) throw invalid(['body', 'file_id'], 'A data: URL must look like data:application/jsonl;base64,… (or percent-encoded text)');
    } else {
      const caller = callerOf(c);
      const file = await getFile(ctx.db, { workspaceId: caller.workspaceId, userId: caller.userId }, file_id);
      if (!file) throw missing(null, `File '${file_id.slice(0, 80)}' not found: upload the JSONL file with POST /v1/files first, or pass it as a data: URL (data:application/jsonl;base64,…)`);
    }
    return startImport(c, id, { kind: 'file', file_id });
  });

  app.post('/datasets/:dataset_id/imports/from-explorer', async (c) => {
    const { id } = await datasetOf(c);
    const { completion_event_ids } = await body(c, FromExplorerSchema);
    const found = new Set((await completionEvents.getMany(callerOf(c).workspaceId, completion_event_ids)).map((e) => e.event_id));
    const unknown = completion_event_ids.find((eventId) => !found.has(eventId));
    if (unknown) throw missing(null, `Completion event '${unknown.slice(0, 80)}' not found (POST /v1/observability/chat-completion-events/search lists them)`);
    return startImport(c, id, { kind: 'explorer', completion_event_ids });
  });

  app.post('/datasets/:dataset_id/imports/from-campaign', async (c) => {
    const { id } = await datasetOf(c);
    const { campaign_id } = await body(c, FromCampaignSchema);
    if (!(await campaigns.get(callerOf(c).workspaceId, campaign_id))) throw missing('CAMPAIGN_NOT_FOUND', `Campaign '${campaign_id}' not found`);
    return startImport(c, id, { kind: 'campaign', campaign_id });
  });

  app.get('/datasets/:dataset_id/tasks', async (c) => {
    const { id } = await datasetOf(c);
    const { request } = pageOf(c);
    return c.json({ tasks: paginated(c.req.url, request, await datasets.listTasks(id, request)) }, 200);
  });

  app.get('/datasets/:dataset_id/tasks/:task_id', async (c) => {
    const { id } = await datasetOf(c);
    const taskId = pathUuid(c, 'task_id');
    const task = await datasets.getTask(id, taskId);
    if (!task) throw missing('DATASET_TASK_NOT_FOUND', `Task '${taskId}' of dataset '${id}' not found`);
    return c.json(task, 200);
  });

  // ------------------------------------------------------------ records

  app.post('/dataset-records/bulk-delete', async (c) => {
    const { dataset_record_ids } = await body(c, RecordIdsSchema);
    const unknown = await datasets.deleteRecords(callerOf(c).workspaceId, dataset_record_ids);
    if (unknown.length) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${unknown[0]}' not found (nothing was deleted)`);
    return c.body(null, 204);
  });

  app.get('/dataset-records/:dataset_record_id', async (c) => c.json(await recordOf(c), 200));

  app.delete('/dataset-records/:dataset_record_id', async (c) => {
    const id = pathUuid(c, 'dataset_record_id');
    const unknown = await datasets.deleteRecords(callerOf(c).workspaceId, [id]);
    if (unknown.length) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${id}' not found`);
    return c.body(null, 204);
  });

  app.put('/dataset-records/:dataset_record_id/payload', async (c) => {
    const { id } = await recordOf(c);
    const { payload } = await body(c, PayloadSchema);
    if (!(await datasets.updateRecord(callerOf(c).workspaceId, id, 'payload', payload))) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${id}' not found`);
    return c.body(null, 204);
  });

  app.put('/dataset-records/:dataset_record_id/properties', async (c) => {
    const { id } = await recordOf(c);
    const { properties } = await body(c, PropertiesSchema);
    if (!(await datasets.updateRecord(callerOf(c).workspaceId, id, 'properties', properties))) throw missing('DATASET_RECORD_NOT_FOUND', `Dataset record '${id}' not found`);
    return c.body(null, 204);
  });

  app.post('/dataset-records/:dataset_record_id/live-judging', async (c) => {
    const record = await recordOf(c);
    const { judge_definition } = await body(c, RecordJudgingSchema);
    checkJudgeModel(judge_definition, ['body', 'judge_definition', 'model_name']);
    const messages = z.array(JudgedMessageSchema).min(1).safeParse(record.payload.messages);
    if (!messages.success) {
      throw new ObservabilityHttpError(400, `Dataset record '${record.id}' cannot be judged: its payload needs a "messages" list of {role, content} objects`, 'DATASET_RECORD_FORMAT_ERROR');
    }
    return c.json(await runJudge(c, judge_definition, messages.data, record.properties), 200);
  });

  // ------------------------------------------------------------ judges

  app.post('/judges', async (c) => {
    const definition = await body(c, JudgeDefinitionSchema);
    checkJudgeModel(definition, ['body', 'model_name']);
    const caller = callerOf(c);
    const judge = await judges.create(caller.workspaceId, caller.userId, definition);
    if (!judge) throw new ObservabilityHttpError(409, `A judge named '${definition.name}' already exists`, 'JUDGE_NAME_ALREADY_EXISTS');
    return c.json(judge, 201);
  });

  app.get('/judges', async (c) => {
    const { request, q } = pageOf(c);
    const filter = { q, types: c.req.queries('type_filter'), models: c.req.queries('model_filter') };
    const page = await judges.list(callerOf(c).workspaceId, filter, request);
    return c.json({ judges: paginated(c.req.url, request, page) }, 200);
  });

  app.get('/judges/:judge_id', async (c) => c.json(await judgeOf(c), 200));

  app.put('/judges/:judge_id', async (c) => {
    const { id } = await judgeOf(c);
    const definition = await body(c, JudgeDefinitionSchema);
    checkJudgeModel(definition, ['body', 'model_name']);
    const outcome = await judges.replace(callerOf(c).workspaceId, id, definition);
    if (outcome === 'not_found') throw missing('JUDGE_NOT_FOUND', `Judge '${id}' not found`);
    if (outcome === 'name_taken') throw new ObservabilityHttpError(409, `A judge named '${definition.name}' already exists`, 'JUDGE_NAME_ALREADY_EXISTS');
    return c.body(null, 204);
  });

  app.delete('/judges/:judge_id', async (c) => {
    const id = pathUuid(c, 'judge_id');
    if (!(await judges.delete(callerOf(c).workspaceId, id))) throw missing('JUDGE_NOT_FOUND', `Judge '${id}' not found`);
    return c.body(null, 204);
  });

  app.post('/judges/:judge_id/live-judging', async (c) => {
    const judge = await judgeOf(c);
    const { messages, properties } = await body(c, ConversationJudgingSchema);
    return c.json(await runJudge(c, judge, messages, properties), 200);
  });

  return app;
}
