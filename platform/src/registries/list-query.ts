/**
 * Reading a registry list request: sort order (`sort.field` / `sort.direction` and their REST-friendly
 * aliases `sort_by` / `sort_direction`), page size and the opaque `pageToken`.
 *
 * - Sort values are accepted in either spelling in either parameter, case-insensitively:
 *   `list_sort_field_created_at` or `created_at`, `list_sort_direction_desc` or `desc`. `…_unspecified`
 *   means "default". A parameter and its alias that disagree are a 422.
 * - Defaults: `created_at`; descending for timestamps, ascending for text (`name`, `title`).
 * - `pageSize`: absent or 0 → 50; above 1000 → 1000 (AIP-158); negative → 422.
 * - A page token is base64url JSON of the keyset position plus the sort and alias filter it was made
 *   for; a token that does not decode, or was made for another sort or filter, is a 422 at `pageToken`.
 */
import type { ValidationIssue } from 'parley-kit/types';
import type { ListCursor, SortDirection, SortField } from './store.js';
import { parseJsonDocument } from '../http/input-guard.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** Every sort field; a kind without titles cannot sort by `title`. */
export const SORT_FIELDS: readonly SortField[] = ['created_at', 'last_modified_at', 'name', 'title'];
const DIRECTIONS: readonly SortDirection[] = ['asc', 'desc'];
const TIMESTAMPS: readonly SortField[] = ['created_at', 'last_modified_at'];

export interface ListSort { field: SortField; direction: SortDirection }

/** A query parameter's name and value, as given. */
export interface QueryValue { name: string; value: string }

/**
 * One enum value from a parameter and its alias: `null` for unspecified, `undefined` for bad input
 * (an issue is pushed). `prefix` is the long spelling's prefix (`list_sort_field_`).
 */
function readEnum<T extends string>(given: QueryValue[], prefix: string, allowed: readonly T[], issues: ValidationIssue[]): T | null | undefined {
  let chosen: T | null = null;
  let chosenFrom: QueryValue | null = null;
  for (const q of given) {
    const v = q.value.trim().toLowerCase();
    const short = v.startsWith(prefix) ? v.slice(prefix.length) : v;
    if (short === 'unspecified' || short === '') continue;
    if (!(allowed as readonly string[]).includes(short)) {
      const expected = allowed.map((a) => `'${a}'`).join(', ');
      issues.push({ loc: ['query', q.name], msg: `Input should be one of ${expected} (or ${prefix}<value>)`, type: 'enum', input: q.value, ctx: { expected } });
      return undefined;
    }
    if (chosen !== null && chosen !== short) {
      issues.push({ loc: ['query', q.name], msg: `'${q.name}' disagrees with '${chosenFrom!.name}': give one of them`, type: 'value_error', input: q.value });
      return undefined;
    }
    chosen = short as T;
    chosenFrom = q;
  }
  return chosen;
}

/**
 * The sort order of a list request. `fieldParams` are `sort.field` and `sort_by`, `directionParams`
 * `sort.direction` and `sort_direction` (those present). `sortable` are the fields the kind has.
 */
export function readSort(fieldParams: QueryValue[], directionParams: QueryValue[], sortable: readonly SortField[], issues: ValidationIssue[]): ListSort {
  const field = readEnum(fieldParams, 'list_sort_field_', SORT_FIELDS, issues);
  const direction = readEnum(directionParams, 'list_sort_direction_', DIRECTIONS, issues);
  let resolved: SortField = field ?? 'created_at';
  if (field && !sortable.includes(field)) {
    const from = fieldParams.find((q) => q.value.toLowerCase().endsWith(field))!;
    issues.push({ loc: ['query', from.name], msg: `Cannot sort by '${field}': this kind of object has no ${field}`, type: 'value_error', input: from.value });
    resolved = 'created_at';
  }
  return { field: resolved, direction: direction ?? (TIMESTAMPS.includes(resolved) ? 'desc' : 'asc') };
}

/** The page size to use for a `pageSize` parameter already parsed as an integer. */
export function pageSizeOf(requested: number | undefined): number {
  if (!requested) return DEFAULT_PAGE_SIZE;
  return Math.min(requested, MAX_PAGE_SIZE);
}

interface TokenBody { v: 1; f: SortField; d: SortDirection; a: string | null; k: string; i: string }

/** An opaque token for the page after `cursor` under `sort` and the `alias` filter. */
export function encodePageToken(cursor: ListCursor, sort: ListSort, alias: string | undefined): string {
  const body: TokenBody = { v: 1, f: sort.field, d: sort.direction, a: alias ?? null, k: cursor.key, i: cursor.id };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The cursor in `token`, or undefined (with an issue) when it is not one of ours or was made for another request. */
export function decodePageToken(token: string, sort: ListSort, alias: string | undefined, issues: ValidationIssue[]): ListCursor | undefined {
  let body: Partial<TokenBody> | null = null;
  if (/^[A-Za-z0-9_-]+$/.test(token)) {
    try {
      body = parseJsonDocument(Buffer.from(token, 'base64url').toString('utf8')) as Partial<TokenBody>;
    } catch {
      body = null;
    }
  }
  if (!body || body.v !== 1 || typeof body.k !== 'string' || typeof body.i !== 'string') {
    issues.push({ loc: ['query', 'pageToken'], msg: 'Invalid page token: pass the nextPageToken of a previous answer unchanged', type: 'value_error', input: token });
    return undefined;
  }
  if (body.f !== sort.field || body.d !== sort.direction || body.a !== (alias ?? null)) {
    issues.push({ loc: ['query', 'pageToken'], msg: 'This page token was made for another sort order or alias filter: keep the other parameters of the first request', type: 'value_error', input: token });
    return undefined;
  }
  return { key: body.k, id: body.i };
}
