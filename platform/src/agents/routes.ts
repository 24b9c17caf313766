/**
 * Agents API (`/v1/agents…`), as the public API and SDK `@mistralai/mistralai` 2.7.0 (`beta.agents.*`) expect:
 *
 * | route | answer |
 * |---|---|
 * | `POST /v1/agents` | 200 Agent |
 * | `GET /v1/agents` (deprecated list: `page`, `page_size`, filters) | 200 Agent[] |
 * | `GET /v1/agents/pages` (filters + `page_size`, `page_token`) | 200 `{object:"list", data, next_page_token}` |
 * | `GET /v1/agents/{agent_id}?agent_version=<int\|alias>` | 200 Agent |
 * | `PATCH /v1/agents/{agent_id}` | 200 Agent (new version, now current) |
 * | `PATCH /v1/agents/{agent_id}/version?version=<int>` | 200 Agent (that version, now current) |
 * | `GET /v1/agents/{agent_id}/versions?page&page_size` | 200 Agent[] (newest first) |
 * | `GET /v1/agents/{agent_id}/versions/{version}` | 200 Agent (`version` is a number or an alias) |
 * | `GET /v1/agents/{agent_id}/aliases` | 200 AgentAlias[] |
 * | `PUT /v1/agents/{agent_id}/aliases?alias=&version=` | 200 AgentAlias |
 * | `DELETE /v1/agents/{agent_id}/aliases?alias=` | 204 |
 * | `DELETE /v1/agents/{agent_id}` | 204 |
 *
 * Errors: 422 `{detail:[…]}` for any bad input (body, query); 404 for an unknown agent, version or
 * alias; 400 (`type: "invalid_model"`, `code: "1500"`, `param: "model"`) for a model the platform does not serve;
 * 422 at `body.handoffs.<i>` for a handoff id that names no agent; 413 for an oversized body.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Context } from 'hono';
import type { Agent, AgentAlias, AgentPage, ValidationIssue } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { PlatformHttpError, invalidModel, notFound, validationError } from '../http/errors.js';
import { isoNow, newId } from '../http/ids.js';
import { CompletionArgsSchema, GuardrailConfigSchema, ToolSchema, jsonObject, nullable } from '../http/schemas.js';
import { AgentStoreError, parseVersionNumber } from './store.js';
import type { AgentCursor, AgentFilter } from './store.js';
import { readJson } from '../http/validation.js';
import { parseJsonDocument } from '../http/input-guard.js';

const SOURCES = ['api', 'playground', 'agent_builder_v1'] as const;

const agentFields = {
  instructions: nullable(z.string()),
  tools: z.array(ToolSchema).optional(),
  completion_args: CompletionArgsSchema.optional(),
  guardrails: nullable(z.array(GuardrailConfigSchema)),
  description: nullable(z.string()),
  handoffs: nullable(z.array(z.string()).min(1)),
  metadata: nullable(jsonObject),
  version_message: nullable(z.string().max(500)),
};
const CreateAgentSchema = z.strictObject({
  model: z.string().min(1),
  name: z.string().min(1),
  ...agentFields,
});
const UpdateAgentSchema = z.strictObject({
  model: nullable(z.string().min(1)),
  name: nullable(z.string().min(1)),
  ...agentFields,
  deployment_chat: nullable(z.boolean()),
});

/** Reads query parameters the way FastAPI does, collecting every problem before answering 422. */
class QueryReader {
  readonly issues: ValidationIssue[] = [];
  constructor(private readonly c: Context) {}

  /** The last value given for `name` (FastAPI keeps the last of repeated scalars). */
  raw(name: string): string | undefined {
    const all = this.c.req.queries(name);
    return all?.length ? all[all.length - 1] : undefined;
  }

  private fail(name: string, issue: Omit<ValidationIssue, 'loc'>): undefined {
    this.issues.push({ loc: ['query', name], ...issue });
    return undefined;
  }

  int(name: string, opts: { min?: number; max?: number; required?: boolean } = {}): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) {
      return opts.required ? this.fail(name, { msg: 'Field required', type: 'missing' }) : undefined;
    }
    const trimmed = raw.trim();
    if (!/^[+-]?\d+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) {
      return this.fail(name, { msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing', input: raw });
    }
    const n = Number(trimmed);
    if (opts.min !== undefined && n < opts.min) {
      return this.fail(name, { msg: `Input should be greater than or equal to ${opts.min}`, type: 'greater_than_equal', input: raw, ctx: { ge: opts.min } });
    }
    if (opts.max !== undefined && n > opts.max) {
      return this.fail(name, { msg: `Input should be less than or equal to ${opts.max}`, type: 'less_than_equal', input: raw, ctx: { le: opts.max } });
    }
    return n;
  }

  bool(name: string): boolean | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on', 't', 'y'].includes(v)) return true;
    if (['false', '0', 'no', 'off', 'f', 'n'].includes(v)) return false;
    return this.fail(name, { msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing', input: raw });
  }

  string(name: string, opts: { min?: number; max?: number; required?: boolean } = {}): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) {
      return opts.required ? this.fail(name, { msg: 'Field required', type: 'missing' }) : undefined;
    }
    const len = [...raw].length;
    if (opts.min !== undefined && len < opts.min) {
      return this.fail(name, { msg: `String should have at least ${opts.min} character${opts.min === 1 ? '' : 's'}`, type: 'string_too_short', input: raw, ctx: { min_length: opts.min } });
    }
    if (opts.max !== undefined && len > opts.max) {
      return this.fail(name, { msg: `String should have at most ${opts.max} characters`, type: 'string_too_long', input: raw, ctx: { max_length: opts.max } });
    }
    return raw;
  }

  /** A repeated parameter (`sources=api&sources=playground`); comma-separated values are accepted too. */
  sources(name: string): string[] | undefined {
    const all = this.c.req.queries(name);
    if (!all?.length) return undefined;
    const values = all.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    const out: string[] = [];
    values.forEach((v, i) => {
      if ((SOURCES as readonly string[]).includes(v)) out.push(v);
      else {
        const expected = SOURCES.map((s) => `'${s}'`).join(', ');
        this.issues.push({ loc: ['query', name, i], msg: `Input should be ${expected.replace(/, ([^,]*)$/, ' or $1')}`, type: 'enum', input: v, ctx: { expected } });
      }
    });
    return out;
  }

  /** A JSON object passed as a string (`metadata={"team":"a"}`). */
  jsonObject(name: string): Record<string, unknown> | undefined {
    const raw = this.raw(name);
    if (raw === undefined || raw === '') return undefined;
    let value: unknown;
    try {
      value = parseJsonDocument(raw);
    } catch {
      return this.fail(name, { msg: 'Invalid JSON', type: 'json_invalid', input: raw });
    }
    if (value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      return this.fail(name, { msg: 'Input should be a valid dictionary', type: 'dict_type', input: value });
    }
    return value as Record<string, unknown>;
  }

  /** Throws 422 with every issue found so far. */
  check(): void {
    if (this.issues.length) throw validationError(this.issues);
  }
}

// ---------------------------------------------------------------- page tokens

/** Opaque cursor: base64url of `{"v":1,"s":<seq of the last agent answered>}`. */
function encodePageToken(cursor: AgentCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, s: cursor.seq })).toString('base64url');
}

function decodePageToken(token: string): AgentCursor | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && (value as { v?: unknown }).v === 1) {
      const s = (value as { s?: unknown }).s;
      if (typeof s === 'number' && Number.isSafeInteger(s) && s > 0) return { seq: s };
    }
  } catch {
    /* fall through */
  }
  return null;
}

// ---------------------------------------------------------------- errors

/** Store misses → HTTP: unknown agent/version/alias → 404; unknown handoff ids → 422 at their positions. */
function storeError(err: unknown, handoffs?: readonly string[] | null): never {
  if (err instanceof AgentStoreError) {
    if (err.kind === 'handoff_not_found') {
      const missing = new Set(Array.isArray(err.subject) ? err.subject : []);
      const detail: ValidationIssue[] = [];
      (handoffs ?? []).forEach((id, i) => {
        if (missing.has(id)) detail.push({ loc: ['body', 'handoffs', i], msg: `Agent '${id}' not found`, type: 'value_error', input: id });
      });
      if (!detail.length) detail.push({ loc: ['body', 'handoffs'], msg: err.message, type: 'value_error' });
      throw validationError(detail);
    }
    throw notFound(err.message);
  }
  throw err;
}

async function run<T>(work: () => Promise<T>, handoffs?: readonly string[] | null): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PlatformHttpError) throw err;
    storeError(err, handoffs);
  }
}

function checkModel(ctx: PlatformContext, model: string): void {
  if (!ctx.chat.resolve(model)) throw invalidModel(model, { kind: 'a chat model', capability: 'completion_chat' });
}

// ---------------------------------------------------------------- routes

export function agentRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const agents = ctx.agents;

  const readFilter = (q: QueryReader): AgentFilter => {
    const filter: AgentFilter = {};
    const deploymentChat = q.bool('deployment_chat');
    if (deploymentChat !== undefined) filter.deploymentChat = deploymentChat;
    const sources = q.sources('sources');
    if (sources?.length) filter.sources = sources;
    const name = q.string('name');
    if (name !== undefined) filter.name = name;
    const search = q.string('search');
    if (search !== undefined) filter.search = search;
    const id = q.string('id');
    if (id !== undefined) filter.id = id;
    const metadata = q.jsonObject('metadata');
    if (metadata !== undefined) filter.metadata = metadata;
    return filter;
  };

  app.post('/', async (c) => {
    const body = await readJson(c, CreateAgentSchema, ctx.limits.maxJsonBytes);
    checkModel(ctx, body.model);
    const agent = await run(() => agents.create({
      id: newId('ag'),
      createdAt: isoNow(),
      name: body.name,
      model: body.model,
      instructions: body.instructions,
      tools: body.tools,
      completion_args: body.completion_args,
      guardrails: body.guardrails,
      description: body.description,
      handoffs: body.handoffs,
      metadata: body.metadata,
      version_message: body.version_message,
    }), body.handoffs);
    return c.json(agent satisfies Agent, 200);
  });

  app.get('/', async (c) => {
    const q = new QueryReader(c);
    const page = q.int('page', { min: 0 }) ?? 0;
    const pageSize = q.int('page_size', { min: 1, max: 1000 }) ?? 20;
    const filter = readFilter(q);
    q.check();
    const { agents: data } = await agents.list(filter, { offset: page * pageSize, limit: pageSize });
    return c.json(data satisfies Agent[], 200);
  });

  app.get('/pages', async (c) => {
    const q = new QueryReader(c);
    const pageSize = q.int('page_size', { min: 1, max: 1000 }) ?? 20;
    const filter = readFilter(q);
    const token = q.raw('page_token');
    let after: AgentCursor | null = null;
    if (token !== undefined && token !== '') {
      after = decodePageToken(token);
      if (!after) q.issues.push({ loc: ['query', 'page_token'], msg: 'Invalid page token', type: 'value_error', input: token });
    }
    q.check();
    const { agents: data, next } = await agents.list(filter, { limit: pageSize, after });
    const page: AgentPage = { object: 'list', data, next_page_token: next ? encodePageToken(next) : null };
    return c.json(page, 200);
  });

  app.get('/:agent_id', async (c) => {
    const q = new QueryReader(c);
    const version = q.string('agent_version', { min: 1 });
    q.check();
    const agent = await run(() => agents.resolve(c.req.param('agent_id'), version ?? null));
    return c.json(agent satisfies Agent, 200);
  });

  app.patch('/:agent_id', async (c) => {
    const id = c.req.param('agent_id');
    const body = await readJson(c, UpdateAgentSchema, ctx.limits.maxJsonBytes);
    // Unknown agent first: a 404 says more than complaints about the body's references.
    if (!(await agents.get(id))) throw notFound(`Agent '${id}' not found`);
    if (body.model != null) checkModel(ctx, body.model);
    if (body.handoffs?.includes(id)) {
      const i = body.handoffs.indexOf(id);
      throw validationError([{ loc: ['body', 'handoffs', i], msg: 'An agent cannot hand off to itself', type: 'value_error', input: id }]);
    }
    const agent = await run(() => agents.update(id, { updatedAt: isoNow(), ...body }), body.handoffs);
    return c.json(agent satisfies Agent, 200);
  });

  app.patch('/:agent_id/version', async (c) => {
    const q = new QueryReader(c);
    const version = q.int('version', { required: true });
    q.check();
    const id = c.req.param('agent_id');
    const agent = await run(() => agents.setCurrentVersion(id, version!));
    return c.json(agent satisfies Agent, 200);
  });

  app.get('/:agent_id/versions', async (c) => {
    const q = new QueryReader(c);
    const page = q.int('page', { min: 0 }) ?? 0;
    const pageSize = q.int('page_size', { min: 1, max: 100 }) ?? 20;
    q.check();
    const data = await run(() => agents.listVersions(c.req.param('agent_id'), { offset: page * pageSize, limit: pageSize }));
    return c.json(data satisfies Agent[], 200);
  });

  app.get('/:agent_id/versions/:version', async (c) => {
    const version = c.req.param('version');
    const n = parseVersionNumber(version);
    const agent = await run(() => agents.resolve(c.req.param('agent_id'), n ?? version));
    return c.json(agent satisfies Agent, 200);
  });

  app.get('/:agent_id/aliases', async (c) => {
    const data = await run(() => agents.listAliases(c.req.param('agent_id')));
    return c.json(data satisfies AgentAlias[], 200);
  });

  app.put('/:agent_id/aliases', async (c) => {
    const q = new QueryReader(c);
    const alias = q.string('alias', { required: true, min: 1, max: 64 });
    const version = q.int('version', { required: true });
    if (alias !== undefined && /^\d+$/.test(alias)) {
      // A number would be read as a version wherever `agent_version` accepts "<int|alias>".
      q.issues.push({ loc: ['query', 'alias'], msg: 'Alias cannot be a number: numbers name versions', type: 'value_error', input: alias });
    }
    q.check();
    const id = c.req.param('agent_id');
    const out = await run(() => agents.putAlias(id, alias!, version!));
    return c.json(out satisfies AgentAlias, 200);
  });

  app.delete('/:agent_id/aliases', async (c) => {
    const q = new QueryReader(c);
    const alias = q.string('alias', { required: true, min: 1 });
    q.check();
    await run(() => agents.deleteAlias(c.req.param('agent_id'), alias!));
    return c.body(null, 204);
  });

  app.delete('/:agent_id', async (c) => {
    const id = c.req.param('agent_id');
    if (!(await agents.delete(id))) throw notFound(`Agent '${id}' not found`);
    return c.body(null, 204);
  });

  return app;
}
