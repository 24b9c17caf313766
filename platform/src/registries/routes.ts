/**
 * v2 registries: prompts and skills with numbered versions and aliases (camelCase JSON), as SDK
 * `@mistralai/mistralai` 2.7.0 (`beta.prompts.*`, `beta.skills.*`) expects. The same routes serve
 * both kinds (`<col>` = `prompts` | `skills`, `{id}` = `prompt_id` | `skill_id`):
 *
 * | route | answer |
 * |---|---|
 * | `GET /v2/<col>?pageSize&pageToken&alias&fields&sort.field&sort.direction&sort_by&sort_direction` | 200 `{data, nextPageToken}` |
 * | `POST /v2/<col>` | 200 object at version 1 |
 * | `GET /v2/<col>/{id}?version=<int>\|alias=<name>&fields` | 200 object (latest version by default) |
 * | `PATCH /v2/<col>/{id}` (prompts: title, description, sharing; skills: sharing only) | 200 object at latest |
 * | `DELETE /v2/<col>/{id}` | 200 `{}` |
 * | `GET /v2/<col>/{id}/versions` | 200 `{data: [{version, definition, notes, aliases, createdAt}]}`, newest first |
 * | `POST /v2/<col>/{id}/versions` | 200 `{version, deduplicated}` |
 * | `GET /v2/<col>/{id}/versions/{version}?fields` | 200 object at that version |
 * | `PATCH /v2/<col>/{id}/versions/{version}` (`notes`, `aliases: {values}`) | 200 object at that version |
 *
 * The spec documents only the 200 answers, so errors use the platform's shapes: 422 `{detail:[…]}`
 * for any bad input (body, query, path, page token, field mask, unknown body field); 404 for an
 * unknown or invisible object, version or alias; 409 for a name already used in the workspace;
 * 403 for a write the caller's share does not allow.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ValidationIssue } from 'parley-kit/types';
import { callerOf } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { forbidden, genericError, notFound, validationError } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { applyFieldMask, readFieldMask } from './field-mask.js';
import { PROMPTS, SKILLS, objectJson, versionJson } from './kinds.js';
import type { RegistryKindSpec } from './kinds.js';
import type { SharingScope, WorkspaceRelation } from './store.js';
import { SORT_FIELDS, decodePageToken, encodePageToken, pageSizeOf, readSort } from './list-query.js';
import type { QueryValue } from './list-query.js';
import { RegistryError, RegistryStore } from './store.js';
import type { ListCursor, VersionSelector } from './store.js';
import { issuesToDetail, readJson, validate } from '../http/validation.js';

// ---------------------------------------------------------------- request schemas

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const aliasList = z
  .array(z.string().regex(ALIAS, 'An alias is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit'))
  .max(100)
  .refine((a) => new Set(a).size === a.length, 'Aliases must be unique');
const sharingScope = z.enum(['sharing_scope_unspecified', 'private', 'workspace']);
const workspaceRelation = z.enum(['share_relation_unspecified', 'reader', 'writer']);
const text = (max: number) => z.string().max(max).nullable().optional();

/** What a create request holds once validated (skills have no title or description). */
interface CreateBody {
  name: string;
  definition: unknown;
  title?: string | null;
  description?: string | null;
  notes?: string | null;
  sharingScope?: z.output<typeof sharingScope>;
  aliases?: string[];
  workspaceRelation?: z.output<typeof workspaceRelation>;
}

interface MetadataBody {
  title?: string | null;
  description?: string | null;
  sharingScope?: z.output<typeof sharingScope>;
  workspaceRelation?: z.output<typeof workspaceRelation>;
}

const METADATA_SHAPE = { title: text(256), description: text(4096), sharingScope: sharingScope.optional(), workspaceRelation: workspaceRelation.optional() };

function createSchema(spec: RegistryKindSpec): z.ZodType<CreateBody> {
  const base = {
    name: z.string().min(1).max(256),
    definition: spec.definition,
    notes: text(4096),
    sharingScope: sharingScope.optional(),
    aliases: aliasList.optional(),
    workspaceRelation: workspaceRelation.optional(),
  };
  return (spec.metadataFields.includes('title') ? z.strictObject({ ...base, title: text(256), description: text(4096) }) : z.strictObject(base)) as z.ZodType<CreateBody>;
}

function metadataSchema(spec: RegistryKindSpec): z.ZodType<MetadataBody> {
  const shape = Object.fromEntries(spec.metadataFields.map((f) => [f, METADATA_SHAPE[f]]));
  return z.strictObject(shape) as unknown as z.ZodType<MetadataBody>;
}

const createVersionSchema = (spec: RegistryKindSpec) => z.strictObject({ definition: spec.definition, notes: text(4096), aliases: aliasList.optional() });
const updateVersionSchema = z.strictObject({ notes: text(4096), aliases: z.strictObject({ values: aliasList.optional() }).optional() });

/** Query integers (int32), as gRPC-gateway reads them. */
const int32 = z.string().trim().regex(/^[+-]?\d{1,10}$/, 'Input should be a valid integer').transform(Number).pipe(z.number().int().min(-2147483648).max(2147483647));

const scopeOf = (s: z.output<typeof sharingScope> | undefined): SharingScope | undefined => (s === 'sharing_scope_unspecified' ? undefined : s);
const relationOf = (r: z.output<typeof workspaceRelation> | undefined): WorkspaceRelation | undefined => (r === 'share_relation_unspecified' ? undefined : r);

// ---------------------------------------------------------------- request reading

/** The last value of a query parameter (gRPC-gateway keeps the last of repeated scalars). */
function lastQuery(c: Context, name: string): string | undefined {
  const all = c.req.queries(name);
  return all?.length ? all[all.length - 1] : undefined;
}

const given = (c: Context, names: string[]): QueryValue[] =>
  names.flatMap((name) => (c.req.queries(name) ?? []).map((value) => ({ name, value })));

/** Validates a query object against `schema`, collecting its issues with `issues`; throws 422 when any. */
function checkQuery<S extends z.ZodType>(schema: S, value: Record<string, string | undefined>, issues: ValidationIssue[]): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) issues.push(...issuesToDetail(result.error.issues, value, ['query']));
  if (issues.length || !result.success) throw validationError(issues);
  return result.data;
}

function pathVersion(c: Context): number {
  return validate(int32, c.req.param('version'), ['path', 'version']);
}

/** Body fields a metadata update does not accept get a message saying what it accepts. */
function checkMetadataKeys(spec: RegistryKindSpec, raw: unknown): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  const extra = Object.keys(raw).filter((k) => !(spec.metadataFields as readonly string[]).includes(k));
  if (!extra.length) return;
  const accepted = spec.metadataFields.join(', ');
  throw validationError(extra.map((key) => ({
    loc: ['body', key],
    msg: `'${key}' cannot be changed here: a ${spec.kind}'s metadata update accepts only ${accepted}${key === 'definition' || key === 'notes' || key === 'aliases' ? ' (create a version, or update a version, to change it)' : ''}`,
    type: 'extra_forbidden',
    input: (raw as Record<string, unknown>)[key],
  })));
}

// ---------------------------------------------------------------- errors

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    if (err.kind === 'name_taken') throw genericError(409, err.message, 'invalid_request_error', 'conflict', 'name');
    if (err.kind === 'forbidden') throw forbidden(err.message);
    throw notFound(err.message);
  }
}

// ---------------------------------------------------------------- routes

function kindRoutes(ctx: PlatformContext, spec: RegistryKindSpec): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const store = new RegistryStore(ctx.db, spec.kind);
  const one = `/:${spec.idParam}`;
  const idOf = (c: Context) => c.req.param(spec.idParam)!;
  const sortable = SORT_FIELDS.filter((f) => f !== 'title' || spec.fields.includes('title'));
  const create = createSchema(spec);
  const metadata = metadataSchema(spec);
  const createVersion = createVersionSchema(spec);

  app.get('/', async (c) => {
    const issues: ValidationIssue[] = [];
    const sort = readSort(given(c, ['sort.field', 'sort_by']), given(c, ['sort.direction', 'sort_direction']), sortable, issues);
    const mask = readFieldMask(c.req.queries('fields') ?? [], spec, issues);
    const alias = lastQuery(c, 'alias') || undefined;
    const token = lastQuery(c, 'pageToken');
    let after: ListCursor | undefined;
    if (token) after = decodePageToken(token, sort, alias, issues);
    const q = checkQuery(z.object({ pageSize: int32.pipe(z.number().min(0)).optional() }), { pageSize: lastQuery(c, 'pageSize') }, issues);
    const { items, next } = await store.list(callerOf(c), { alias, sort, limit: pageSizeOf(q.pageSize), after });
    return c.json({
      data: items.map((item) => applyFieldMask(objectJson(spec, item), mask)),
      nextPageToken: next ? encodePageToken(next, sort, alias) : '',
    }, 200);
  });

  app.post('/', async (c) => {
    const body = await readJson(c, create, ctx.limits.maxJsonBytes);
    const now = isoNow();
    const created = await run(() => store.create(callerOf(c), {
      id: randomUUID(),
      now,
      name: body.name,
      title: body.title,
      description: body.description,
      sharingScope: scopeOf(body.sharingScope) ?? 'private',
      workspaceRelation: relationOf(body.workspaceRelation) ?? 'reader',
      definition: body.definition,
      notes: body.notes,
      aliases: body.aliases ?? [],
    }));
    return c.json(objectJson(spec, created), 200);
  });

  app.get(one, async (c) => {
    const issues: ValidationIssue[] = [];
    const mask = readFieldMask(c.req.queries('fields') ?? [], spec, issues);
    const q = checkQuery(z.object({ version: int32.optional(), alias: z.string().optional() }), { version: lastQuery(c, 'version'), alias: lastQuery(c, 'alias') || undefined }, issues);
    if (q.version !== undefined && q.alias !== undefined) {
      throw validationError([{ loc: ['query', 'alias'], msg: 'Give either version or alias, not both', type: 'value_error', input: q.alias }]);
    }
    const selector: VersionSelector = q.version !== undefined ? { version: q.version } : q.alias !== undefined ? { alias: q.alias } : null;
    const found = await run(() => store.get(callerOf(c), idOf(c), selector));
    return c.json(applyFieldMask(objectJson(spec, found), mask), 200);
  });

  app.patch(one, async (c) => {
    const raw = await readJson(c, z.unknown(), ctx.limits.maxJsonBytes);
    checkMetadataKeys(spec, raw);
    const body = validate(metadata, raw, ['body']);
    const updated = await run(() => store.updateMetadata(callerOf(c), idOf(c), {
      title: body.title,
      description: body.description,
      sharingScope: scopeOf(body.sharingScope),
      workspaceRelation: relationOf(body.workspaceRelation),
    }, isoNow()));
    return c.json(objectJson(spec, updated), 200);
  });

  app.delete(one, async (c) => {
    await run(() => store.delete(callerOf(c), idOf(c)));
    return c.json({}, 200);
  });

  app.get(`${one}/versions`, async (c) => {
    const versions = await run(() => store.listVersions(callerOf(c), idOf(c)));
    return c.json({ data: versions.map(versionJson) }, 200);
  });

  app.post(`${one}/versions`, async (c) => {
    const body = await readJson(c, createVersion, ctx.limits.maxJsonBytes);
    const result = await run(() => store.createVersion(callerOf(c), idOf(c), { definition: body.definition, notes: body.notes, aliases: body.aliases ?? [], now: isoNow() }));
    return c.json(result, 200);
  });

  app.get(`${one}/versions/:version`, async (c) => {
    const issues: ValidationIssue[] = [];
    const mask = readFieldMask(c.req.queries('fields') ?? [], spec, issues);
    if (issues.length) throw validationError(issues);
    const version = pathVersion(c);
    const found = await run(() => store.get(callerOf(c), idOf(c), { version }));
    return c.json(applyFieldMask(objectJson(spec, found), mask), 200);
  });

  app.patch(`${one}/versions/:version`, async (c) => {
    const version = pathVersion(c);
    const body = await readJson(c, updateVersionSchema, ctx.limits.maxJsonBytes);
    const updated = await run(() => store.updateVersion(callerOf(c), idOf(c), version, {
      notes: body.notes,
      aliases: body.aliases ? body.aliases.values ?? [] : undefined,
      now: isoNow(),
    }));
    return c.json(objectJson(spec, updated), 200);
  });

  return app;
}

export function registryRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  for (const spec of [PROMPTS, SKILLS]) app.route(`/${spec.collection}`, kindRoutes(ctx, spec));
  return app;
}
