/**
 * Reading requests the way the platform's FastAPI does: JSON bodies and queries validated by zod schemas,
 * failures as 422 `{detail:[…]}` (issuesToDetail), bodies capped in bytes (413).
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import type { ValidationIssue } from 'parley-kit/types';
import { invalidField, payloadTooLarge, validationError } from './errors.js';
import { BodyTooLargeError, readCapped } from 'parley-kit/server';
import { decodeJsonText, jsonTextIssue } from './input-guard.js';
import { isUuid } from './ids.js';

/** A path parameter the API declares as a UUID, lower-cased; anything else → 422 `uuid_parsing`, as FastAPI answers. */
export function pathUuid(c: Context, name: string): string {
  const value = c.req.param(name) ?? '';
  if (!isUuid(value)) throw invalidField(['path', name], 'Input should be a valid UUID', 'uuid_parsing', value);
  return value.toLowerCase();
}

/** Default cap for JSON bodies (conversations with long histories fit easily). */
export const DEFAULT_JSON_LIMIT = 10 * 1024 * 1024;

/** Reads the request body's bytes, counting while they stream; over `limit` → 413 before reading the rest. */
async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  try {
    return await readCapped(request.body, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw payloadTooLarge(limit);
    throw err;
  }
}

/**
 * Parses a JSON body and validates it; failures become 422 with FastAPI-style `detail`. The input rules
 * (input-guard.ts) run first: UTF-8 and nesting depth before parsing, NUL and unpaired surrogates after.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S, limit = DEFAULT_JSON_LIMIT): Promise<z.output<S>> {
  const text = decodeJsonText(await readBodyBytes(c.req.raw, limit));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField(['body', 0], 'JSON decode error', 'json_invalid', text.slice(0, 200));
  }
  const issue = jsonTextIssue(value, ['body'], text);
  if (issue) throw validationError([issue]);
  return validate(schema, value, ['body']);
}

/** Validates a value already parsed (query, form or JSON); `locPrefix` is `['body']`, `['query']`… */
export function validate<S extends z.ZodType>(schema: S, value: unknown, locPrefix: Array<string | number>): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(issuesToDetail(result.error.issues, value, locPrefix));
}

type ZodIssue = z.core.$ZodIssue;

function inputAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary or object'],
  record: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
  null: ['none_required', 'Input should be None'],
};

/** How deep into the input a union branch's issues reach, counting into nested unions' closest branches. */
function depth(branch: readonly ZodIssue[]): number {
  return Math.max(...branch.map((i) => {
    const nested = i.code === 'invalid_union' ? i.errors.filter((b) => b.length > 0) : [];
    return i.path.length + (nested.length ? Math.max(...nested.map(depth)) : 0);
  }));
}

/** Maps zod issues onto the FastAPI/pydantic vocabulary the platform answers with. */
export function issuesToDetail(issues: readonly ZodIssue[], root: unknown, locPrefix: Array<string | number>): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const path = issue.path as Array<string | number>;
    const loc = [...locPrefix, ...path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const input = inputAt(root, path);
    switch (issue.code) {
      case 'invalid_type': {
        if (input === undefined) {
          out.push({ loc, msg: 'Field required', type: 'missing' });
        } else {
          const [type, msg] = TYPE_NAMES[issue.expected] ?? ['type_error', issue.message];
          out.push({ loc, msg, type, input });
        }
        break;
      }
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: inputAt(input, [key]) });
        }
        break;
      case 'too_small': {
        const isString = issue.origin === 'string';
        const isArray = issue.origin === 'array';
        const type = isString ? 'string_too_short' : isArray ? 'too_short' : issue.inclusive ? 'greater_than_equal' : 'greater_than';
        const msg = isString
          ? `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`
          : isArray
            ? `List should have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'} after validation`
            : `Input should be ${issue.inclusive ? 'greater than or equal to' : 'greater than'} ${issue.minimum}`;
        out.push({ loc, msg, type, input, ctx: { [isString || isArray ? 'min_length' : issue.inclusive ? 'ge' : 'gt']: issue.minimum } });
        break;
      }
      case 'too_big': {
        const isString = issue.origin === 'string';
        const isArray = issue.origin === 'array';
        const type = isString ? 'string_too_long' : isArray ? 'too_long' : issue.inclusive ? 'less_than_equal' : 'less_than';
        const msg = isString
          ? `String should have at most ${issue.maximum} characters`
          : isArray
            ? `List should have at most ${issue.maximum} items after validation`
            : `Input should be ${issue.inclusive ? 'less than or equal to' : 'less than'} ${issue.maximum}`;
        out.push({ loc, msg, type, input, ctx: { [isString || isArray ? 'max_length' : issue.inclusive ? 'le' : 'lt']: issue.maximum } });
        break;
      }
      case 'invalid_value': {
        if (input === undefined) {
          out.push({ loc, msg: 'Field required', type: 'missing' });
          break;
        }
        const expected = issue.values.map((v) => `'${String(v)}'`).join(', ');
        out.push({ loc, msg: `Input should be ${issue.values.length > 1 ? `one of ${expected}` : expected}`, type: issue.values.length > 1 ? 'enum' : 'literal_error', input, ctx: { expected } });
        break;
      }
      case 'invalid_union': {
        // Report the closest branch's issues when there is one, else a plain union error. Closest: the branch
        // that got deepest into the input (a list with one bad item is a list, not a wrong string), then the fewest issues.
        const branches = issue.errors.filter((b) => b.length > 0).sort((a, b) => depth(b) - depth(a) || a.length - b.length);
        if (branches.length) {
          out.push(...issuesToDetail(branches[0].map((i) => ({ ...i, path: [...issue.path, ...i.path] })), root, locPrefix));
        } else {
          out.push({ loc, msg: issue.message === 'Invalid input' ? 'Input does not match any allowed shape' : issue.message, type: 'union_tag_invalid', input });
        }
        break;
      }
      default:
        out.push({ loc, msg: issue.message, type: 'value_error', input });
    }
  }
  // The same loc can be reported by several union branches; keep the first.
  const seen = new Set<string>();
  return out.filter((d) => {
    const key = `${JSON.stringify(d.loc)}|${d.type}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
