/**
 * The observability explorer and campaigns (`/v1/observability/…`), with the paths and shapes of the
 * platform's newer observability API (`beta.observability.chatCompletionEvents.*` and
 * `beta.observability.campaigns.*` of the newer official SDKs; SDK 2.7.0 has neither):
 *
 * | route | answer |
 * |---|---|
 * | `POST /v1/observability/chat-completion-events/search?page_size&cursor` (`{search_params:{filters}, extra_fields?}`) | 200 `{completion_events:{results, next, cursor}}` (previews, newest first) |
 * | `POST /v1/observability/chat-completion-events/search-ids` (same body) | 200 `{completion_event_ids}` |
 * | `GET /v1/observability/chat-completion-events/{event_id}` | 200 ChatCompletionEvent |
 * | `POST /v1/observability/chat-completion-events/{event_id}/live-judging` (`{judge_definition}`) | 200 `{analysis, answer}` (the event's request and response messages judged) |
 * | `GET /v1/observability/chat-completion-fields` | 200 `{field_definitions:[{name, label, type, supported_operators}]}` |
 * | `POST /v1/observability/campaigns` (`{search_params, judge_id, name, description, max_nb_events}`) | 201 Campaign |
 * | `GET /v1/observability/campaigns?page&page_size&q` | 200 `{campaigns:{results, count, next, previous}}` |
 * | `GET` / `DELETE /v1/observability/campaigns/{campaign_id}` | 200 Campaign / 204 |
 * | `GET /v1/observability/campaigns/{campaign_id}/status` | 200 `{status: "COMPLETED"}` |
 * | `GET /v1/observability/campaigns/{campaign_id}/selected-events?page&page_size` | 200 `{completion_events:{results, count, next, previous}}` |
 *
 * Events are recorded by the completion routes (./recorder.ts). A cursor is the opaque position of the
 * next page of a search. Errors use the observability shape: 422 VALIDATION_ERROR for bad bodies,
 * 400 FIELDS_NOT_FOUND for a filter on a field events do not have, 404 (`JUDGE_NOT_FOUND`,
 * `CAMPAIGN_NOT_FOUND`, null for an unknown event), 400 CAMPAIGN_NO_MATCHING_EVENTS for a campaign
 * whose filter selects nothing.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { readJson, validate } from '../http/validation.js';
import { queryInt } from '../http/schemas.js';
import { JudgeStore } from './judges.js';
import { ObservabilityHttpError, invalid, missing, observabilityErrorResponse, pathUuid, uuidField } from './errors.js';
import { PageQuerySchema, paginated } from './pagination.js';
import { JudgeDefinitionSchema, JudgedMessageSchema, judgeConversation } from './judging.js';
import { CompletionEventStore, toPreview, type CompletionEvent } from './events.js';
import { CampaignStore } from './campaigns.js';
import { DatasetStore } from './datasets.js';
import { datasetRoutes, type ObservabilityStores } from './dataset-routes.js';
import { EVENT_FIELDS, FILTER_OPS, FilterPayloadSchema, matches, unknownField, type FilterPayload } from './filters.js';

const SearchSchema = z.object({ search_params: FilterPayloadSchema, extra_fields: z.array(z.string()).nullish() });
const SearchQuerySchema = z.object({ page_size: queryInt(50, 1, 1000), cursor: z.string().optional() });
const CreateCampaignSchema = z.object({
  search_params: FilterPayloadSchema,
  judge_id: uuidField,
  name: z.string().min(1).max(200),
  description: z.string().max(1000),
  max_nb_events: z.number().int().min(1),
});

/** Cursors are the offset of the next page, opaque to callers. */
const encodeCursor = (offset: number) => Buffer.from(JSON.stringify({ offset })).toString('base64url');
function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset: unknown };
    if (Number.isInteger(offset) && (offset as number) >= 0) return offset as number;
  } catch { /* reported below */ }
  throw invalid(['query', 'cursor'], 'Not a cursor this search answered');
}

function checkFields(params: FilterPayload, loc: string[]): void {
  const field = unknownField(params.filters);
  if (field) {
    throw new ObservabilityHttpError(400, `${loc.join('.')}: events have no field '${field}' (GET /v1/observability/chat-completion-fields lists them)`, 'FIELDS_NOT_FOUND');
  }
}

/**
 * The observability API, mounted at `/v1/observability`: datasets and judges (dataset-routes.ts), then the
 * explorer and campaigns (below), over one set of stores, every error written in the area's shape.
 */
export function observabilityRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  app.onError(observabilityErrorResponse);
  const stores: ObservabilityStores = {
    datasets: new DatasetStore(ctx.db), judges: new JudgeStore(ctx.db), events: new CompletionEventStore(ctx.db), campaigns: new CampaignStore(ctx.db),
  };
  app.route('/', datasetRoutes(ctx, stores));
  app.route('/', explorerRoutes(ctx, stores));
  return app;
}

/** The completion events (the explorer) and campaigns. */
function explorerRoutes(ctx: PlatformContext, { events, campaigns, judges }: ObservabilityStores): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const body = <S extends z.ZodType>(c: Context, schema: S) => readJson(c, schema, ctx.limits.maxJsonBytes);

  /** The workspace's events passing the filter, newest first. */
  const search = async (c: Context, params: FilterPayload): Promise<CompletionEvent[]> => {
    checkFields(params, ['body', 'search_params', 'filters']);
    return (await events.all(callerOf(c).workspaceId)).filter((e) => matches(e, params.filters));
  };
  const campaignOf = async (c: Context) => {
    const id = pathUuid(c, 'campaign_id');
    const campaign = await campaigns.get(callerOf(c).workspaceId, id);
    if (!campaign) throw missing('CAMPAIGN_NOT_FOUND', `Campaign '${id}' not found`);
    return campaign;
  };

  // ------------------------------------------------------------ completion events (the explorer)

  app.post('/chat-completion-events/search', async (c) => {
    const query = validate(SearchQuerySchema, c.req.query(), ['query']);
    const { search_params, extra_fields } = await body(c, SearchSchema);
    const found = await search(c, search_params);
    const start = decodeCursor(query.cursor);
    const end = start + query.page_size;
    const keep = extra_fields ? new Set(extra_fields) : null;
    const results = found.slice(start, end).map((e) => {
      const preview = toPreview(e);
      return keep ? { ...preview, extra_fields: Object.fromEntries(Object.entries(preview.extra_fields).filter(([k]) => keep.has(k))) } : preview;
    });
    const cursor = end < found.length ? encodeCursor(end) : null;
    let next: string | null = null;
    if (cursor) {
      const url = new URL(c.req.url);
      url.searchParams.set('cursor', cursor);
      next = url.toString();
    }
    return c.json({ completion_events: { results, next, cursor } }, 200);
  });

  app.post('/chat-completion-events/search-ids', async (c) => {
    const { search_params } = await body(c, SearchSchema);
    return c.json({ completion_event_ids: (await search(c, search_params)).map((e) => e.event_id) }, 200);
  });

  app.get('/chat-completion-events/:event_id', async (c) => {
    const id = c.req.param('event_id');
    const event = await events.get(callerOf(c).workspaceId, id.toLowerCase());
    if (!event) throw missing(null, `Completion event '${id.slice(0, 80)}' not found`);
    return c.json(event, 200);
  });

  app.post('/chat-completion-events/:event_id/live-judging', async (c) => {
    const id = c.req.param('event_id');
    const event = await events.get(callerOf(c).workspaceId, id.toLowerCase());
    if (!event) throw missing(null, `Completion event '${id.slice(0, 80)}' not found`);
    const { judge_definition: judge } = await body(c, z.object({ judge_definition: JudgeDefinitionSchema }));
    const resolved = ctx.chat.resolve(judge.model_name);
    if (!resolved) throw invalid(['body', 'judge_definition', 'model_name'], `Model '${judge.model_name}' is not served by this platform (GET /v1/models lists the models it serves)`);
    const messages = z.array(JudgedMessageSchema).safeParse([...event.request_messages, ...event.response_messages]);
    if (!messages.success || !messages.data.length) {
      throw new ObservabilityHttpError(400, `Completion event '${event.event_id}' has no messages a judge can read`, 'JUDGE_CONVERSATION_FORMAT_ERROR');
    }
    try {
      return c.json(await judgeConversation(resolved.engine, judge, messages.data, null, c.req.raw.signal), 200);
    } catch (err) {
      if (err instanceof ObservabilityHttpError) throw err;
      throw new ObservabilityHttpError(502, `The judge's model '${judge.model_name}' failed: ${(err as Error).message}`, 'JUDGE_MISTRAL_API_ERROR');
    }
  });

  app.get('/chat-completion-fields', (c) =>
    c.json({
      field_definitions: Object.entries(EVENT_FIELDS).map(([name, type]) => ({ name, label: name.replace(/_/g, ' '), type, supported_operators: FILTER_OPS })),
    }, 200));

  // ------------------------------------------------------------ campaigns

  app.post('/campaigns', async (c) => {
    const input = await body(c, CreateCampaignSchema);
    checkFields(input.search_params, ['body', 'search_params', 'filters']);
    const caller = callerOf(c);
    const judge = await judges.get(caller.workspaceId, input.judge_id);
    if (!judge) throw missing('JUDGE_NOT_FOUND', `Judge '${input.judge_id}' not found`);
    const selected = (await search(c, input.search_params)).slice(0, input.max_nb_events);
    if (!selected.length) throw new ObservabilityHttpError(400, 'No completion event matches the campaign\'s search_params', 'CAMPAIGN_NO_MATCHING_EVENTS');
    const campaign = await campaigns.create({
      workspaceId: caller.workspaceId, ownerId: caller.userId, name: input.name, description: input.description,
      maxNbEvents: input.max_nb_events, searchParams: input.search_params, judge, eventIds: selected.map((e) => e.event_id),
    });
    return c.json(campaign, 201);
  });

  app.get('/campaigns', async (c) => {
    const q = validate(PageQuerySchema, c.req.query(), ['query']);
    const request = { page: q.page, pageSize: q.page_size };
    return c.json({ campaigns: paginated(c.req.url, request, await campaigns.list(callerOf(c).workspaceId, request, q.q)) }, 200);
  });

  app.get('/campaigns/:campaign_id', async (c) => c.json(await campaignOf(c), 200));

  app.delete('/campaigns/:campaign_id', async (c) => {
    const id = pathUuid(c, 'campaign_id');
    if (!(await campaigns.delete(callerOf(c).workspaceId, id))) throw missing('CAMPAIGN_NOT_FOUND', `Campaign '${id}' not found`);
    return c.body(null, 204);
  });

  // The selection is made at creation, so a campaign that exists has completed.
  app.get('/campaigns/:campaign_id/status', async (c) => {
    await campaignOf(c);
    return c.json({ status: 'COMPLETED' }, 200);
  });

  app.get('/campaigns/:campaign_id/selected-events', async (c) => {
    const { id } = await campaignOf(c);
    const q = validate(PageQuerySchema, c.req.query(), ['query']);
    const request = { page: q.page, pageSize: q.page_size };
    const ids = await campaigns.eventIds(id, request);
    const previews = (await events.getMany(callerOf(c).workspaceId, ids.results)).map(toPreview);
    return c.json({ completion_events: paginated(c.req.url, request, { results: previews, count: ids.count }) }, 200);
  });

  return app;
}
