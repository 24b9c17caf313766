/**
 * The explorer's search filters (`search_params` of event search and campaigns): `{filters: null}` keeps
 * every event; a condition `{field, op, value}` tests one field; a group `{AND: […]}` or `{OR: […]}` (or
 * both, all of which must hold) combines conditions and groups. Filters are checked in memory against
 * each event of the caller's workspace.
 */
import { z } from 'zod';
import type { CompletionEvent } from './events.js';

export const FILTER_OPS = [
  'lt', 'lte', 'gt', 'gte', 'startswith', 'istartswith', 'endswith', 'iendswith', 'contains', 'icontains', 'matches',
  'notcontains', 'inotcontains', 'eq', 'neq', 'isnull', 'includes', 'excludes', 'len_eq',
] as const;

export type FilterOp = (typeof FILTER_OPS)[number];
export interface FilterCondition { field: string; op: FilterOp; value?: unknown }
export interface FilterGroup { AND?: Filter[] | null; OR?: Filter[] | null }
export type Filter = FilterCondition | FilterGroup;

const ConditionSchema = z.object({ field: z.string().min(1), op: z.enum(FILTER_OPS), value: z.unknown() });
export const FilterSchema: z.ZodType<Filter> = z.lazy(() =>
  z.union([ConditionSchema, z.strictObject({ AND: z.array(FilterSchema).nullish(), OR: z.array(FilterSchema).nullish() })]),
);
export const FilterPayloadSchema = z.object({ filters: FilterSchema.nullable() });
export type FilterPayload = z.infer<typeof FilterPayloadSchema>;

/** Fields a filter can name: the event's own, and its extra fields (also as `extra_fields.<name>`). */
export const EVENT_FIELDS = {
  event_id: 'string', correlation_id: 'string', created_at: 'timestamp', nb_input_tokens: 'int', nb_output_tokens: 'int', nb_messages: 'int',
  model: 'string', agent_id: 'string', endpoint: 'string', stream: 'bool', conversation_id: 'string', user_id: 'string', finish_reason: 'string',
} as const;

const fieldName = (field: string) => field.replace(/^extra_fields\./, '');

/** The first field the filter names that events do not have, or undefined. */
export function unknownField(filter: Filter | null): string | undefined {
  if (!filter) return undefined;
  if ('field' in filter) return fieldName(filter.field) in EVENT_FIELDS ? undefined : filter.field;
  for (const f of [...(filter.AND ?? []), ...(filter.OR ?? [])]) {
    const found = unknownField(f);
    if (found) return found;
  }
  return undefined;
}

function valueOf(event: CompletionEvent, field: string): unknown {
  const name = fieldName(field);
  if (name in event && name !== 'extra_fields') return (event as unknown as Record<string, unknown>)[name];
  return event.extra_fields[name] ?? null;
}

/** Numbers compare as numbers, anything else as text (ISO timestamps order correctly as text). */
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

function holds(event: CompletionEvent, { field, op, value }: FilterCondition): boolean {
  const actual = valueOf(event, field);
  if (op === 'isnull') return (actual === null || actual === undefined) === (value !== false);
  if (actual === null || actual === undefined) return op === 'neq' || op === 'notcontains' || op === 'inotcontains' || op === 'excludes';
  const list = Array.isArray(value) ? value : [value];
  switch (op) {
    case 'eq': return compare(actual, value) === 0;
    case 'neq': return compare(actual, value) !== 0;
    case 'lt': return compare(actual, value) < 0;
    case 'lte': return compare(actual, value) <= 0;
    case 'gt': return compare(actual, value) > 0;
    case 'gte': return compare(actual, value) >= 0;
    case 'startswith': return text(actual).startsWith(text(value));
    case 'istartswith': return text(actual).toLowerCase().startsWith(text(value).toLowerCase());
    case 'endswith': return text(actual).endsWith(text(value));
    case 'iendswith': return text(actual).toLowerCase().endsWith(text(value).toLowerCase());
    case 'contains': return text(actual).includes(text(value));
    case 'icontains': return text(actual).toLowerCase().includes(text(value).toLowerCase());
    case 'notcontains': return !text(actual).includes(text(value));
    case 'inotcontains': return !text(actual).toLowerCase().includes(text(value).toLowerCase());
    case 'matches': {
      try {
        return new RegExp(text(value)).test(text(actual));
      } catch {
        return false;
      }
    }
    // The field's value is one of the given values (or, for a list field, holds one of them).
    case 'includes': return Array.isArray(actual) ? actual.some((a) => list.some((v) => compare(a, v) === 0)) : list.some((v) => compare(actual, v) === 0);
    case 'excludes': return Array.isArray(actual) ? !actual.some((a) => list.some((v) => compare(a, v) === 0)) : !list.some((v) => compare(actual, v) === 0);
    case 'len_eq': return (Array.isArray(actual) ? actual.length : text(actual).length) === Number(value);
  }
}

/** Whether the event passes the filter (null passes everything). */
export function matches(event: CompletionEvent, filter: Filter | null): boolean {
  if (!filter) return true;
  if ('field' in filter) return holds(event, filter);
  const all = filter.AND ?? [];
  const any = filter.OR ?? [];
  return all.every((f) => matches(event, f)) && (any.length === 0 || any.some((f) => matches(event, f)));
}
