/**
 * Field masks (`fields` query parameter, a read mask as in AIP-157): an answer keeps only the named
 * fields. Paths are top-level fields (`name`) or fields of the definition (`definition.content`),
 * in camelCase or snake_case (`sharing_scope`), repeated (`fields=a&fields=b`) or comma-separated
 * (`fields=a,b`, the FieldMask JSON form). An empty mask keeps everything; an unknown path is a 422.
 */
import type { ValidationIssue } from 'parley-kit/types';
import type { RegistryKindSpec } from './kinds.js';

/** Validated paths, each split into segments. */
export type FieldMask = string[][];

const camel = (segment: string) => segment.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The mask given by the raw `fields` values; unknown paths push issues at `query.fields.<i>`. */
export function readFieldMask(values: readonly string[], spec: RegistryKindSpec, issues: ValidationIssue[]): FieldMask {
  const known = new Set<string>([...spec.fields, ...spec.definitionFields.map((f) => `definition.${f}`)]);
  const paths = values.flatMap((v) => v.split(',')).map((p) => p.trim()).filter((p) => p !== '');
  const mask: FieldMask = [];
  paths.forEach((raw, i) => {
    const path = raw.split('.').map(camel).join('.');
    if (known.has(path)) mask.push(path.split('.'));
    else {
      issues.push({ loc: ['query', 'fields', i], msg: `Unknown field '${raw}': fields are ${[...known].join(', ')}`, type: 'value_error', input: raw });
    }
  });
  return mask;
}

/** `value` with only the masked paths kept (all of it for an empty mask). */
export function applyFieldMask<T extends object>(value: T, mask: FieldMask): Partial<T> {
  if (!mask.length) return value;
  const out: Record<string, unknown> = {};
  for (const path of mask) copyPath(value as Record<string, unknown>, out, path);
  return out as Partial<T>;
}

function copyPath(from: Record<string, unknown>, to: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  const value = from[head];
  if (value === undefined) return;
  if (!rest.length || value === null || typeof value !== 'object') {
    to[head] = value;
    return;
  }
  const child = (to[head] ??= {}) as Record<string, unknown>;
  copyPath(value as Record<string, unknown>, child, rest);
}
