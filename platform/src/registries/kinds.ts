/**
 * The two kinds of registry object, prompts and skills, as data: what a definition holds, which
 * fields an answer carries, which fields a metadata update may set. Everything else (store, routes,
 * sorting, field masks) is written once and parameterised by a {@link RegistryKindSpec}.
 *
 * Wire format is camelCase JSON (the v2 registries are gRPC-gateway APIs). Unset optional strings
 * (`notes`, `title`, `description`) are left out of answers rather than sent as null, as proto3 JSON
 * does; the SDK declares them `string | undefined`.
 */
import { z } from 'zod';
import type { ObjectAtVersion, RegistryKind, SharingScope, VersionRecord } from './store.js';

/** A prompt or a skill at one version, as answered (fields the kind does not have are absent). */
export interface RegistryObjectJson {
  id: string;
  name: string;
  definition: unknown;
  version: number;
  notes?: string;
  aliases: string[];
  sharingScope: SharingScope;
  createdAt: string;
  updatedAt: string;
  latestVersion: number;
  title?: string;
  description?: string;
  createdBy?: string;
  versionCreatedAt?: string;
}

/** One entry of `GET …/versions`. */
export interface RegistryVersionJson {
  version: number;
  definition: unknown;
  notes?: string;
  aliases: string[];
  createdAt: string;
}

export interface RegistryKindSpec {
  kind: RegistryKind;
  /** Path segment under /v2 (`prompts`) and the path parameter naming one object (`prompt_id`). */
  collection: string;
  idParam: string;
  /** Validates a request's `definition` and normalises it (defaults filled in), so equal content compares equal. */
  definition: z.ZodType;
  /** Top-level fields of an answer, in order; also the vocabulary of field masks and of `sort_by` (`title`). */
  fields: readonly (keyof RegistryObjectJson)[];
  /** Fields of `definition` a field mask may name (`definition.content`). */
  definitionFields: readonly string[];
  /** Fields `PATCH /v2/<collection>/{id}` accepts. */
  metadataFields: readonly ('title' | 'description' | 'sharingScope' | 'workspaceRelation')[];
}

const BASE_FIELDS = ['id', 'name', 'definition', 'version', 'notes', 'aliases', 'sharingScope', 'createdAt', 'updatedAt', 'latestVersion'] as const;

/** Proto `bytes` in JSON: standard or URL-safe base64, padding optional. */
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

const PromptDefinitionSchema = z
  .strictObject({
    content: z.string(),
    variables: z.array(z.strictObject({ name: z.string().min(1).max(256).optional() })).optional(),
  })
  .transform((d) => ({ content: d.content, variables: d.variables ?? [] }));

const SkillAssetSchema = z
  .strictObject({
    rawContent: z.string().regex(BASE64, 'rawContent must be base64-encoded bytes').optional(),
    textContent: z.string().optional(),
    isExecutable: z.boolean().optional(),
  })
  .refine((a) => (a.rawContent === undefined) !== (a.textContent === undefined), 'An asset holds exactly one of rawContent or textContent')
  .transform((a) => (a.rawContent !== undefined
    ? { rawContent: a.rawContent, isExecutable: a.isExecutable ?? false }
    : { textContent: a.textContent!, isExecutable: a.isExecutable ?? false }));

/** A relative path inside the skill: no leading `/`, no empty, `.` or `..` segment. */
const assetPath = z.string().max(512).refine(
  (p) => p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'),
  'Asset paths are relative paths without empty, "." or ".." segments',
);

const SkillDefinitionSchema = z
  .strictObject({
    description: z.string().optional(),
    body: z.string().optional(),
    assets: z.record(assetPath, SkillAssetSchema).optional(),
  })
  .transform((d) => ({ description: d.description ?? '', body: d.body ?? '', assets: d.assets ?? {} }));

export const PROMPTS: RegistryKindSpec = {
  kind: 'prompt',
  collection: 'prompts',
  idParam: 'prompt_id',
  definition: PromptDefinitionSchema,
  fields: [...BASE_FIELDS, 'title', 'description', 'createdBy', 'versionCreatedAt'],
  definitionFields: ['content', 'variables'],
  metadataFields: ['title', 'description', 'sharingScope', 'workspaceRelation'],
};

export const SKILLS: RegistryKindSpec = {
  kind: 'skill',
  collection: 'skills',
  idParam: 'skill_id',
  definition: SkillDefinitionSchema,
  fields: BASE_FIELDS,
  definitionFields: ['description', 'body', 'assets'],
  metadataFields: ['sharingScope', 'workspaceRelation'],
};

/** The answer for an object at a version, with only the fields its kind has. */
export function objectJson(spec: RegistryKindSpec, { object, version }: ObjectAtVersion): RegistryObjectJson {
  const full: RegistryObjectJson = {
    id: object.id,
    name: object.name,
    definition: version.definition,
    version: version.version,
    notes: version.notes ?? undefined,
    aliases: version.aliases,
    sharingScope: object.sharingScope,
    createdAt: object.createdAt,
    updatedAt: object.updatedAt,
    latestVersion: object.latestVersion,
    title: object.title ?? undefined,
    description: object.description ?? undefined,
    createdBy: object.createdBy,
    versionCreatedAt: version.createdAt,
  };
  const out: Record<string, unknown> = {};
  for (const field of spec.fields) if (full[field] !== undefined) out[field] = full[field];
  return out as unknown as RegistryObjectJson;
}

export function versionJson(version: VersionRecord): RegistryVersionJson {
  const out: RegistryVersionJson = { version: version.version, definition: version.definition, aliases: version.aliases, createdAt: version.createdAt };
  if (version.notes !== null) out.notes = version.notes;
  return out;
}
