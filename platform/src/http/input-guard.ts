/**
 * Input rules every route shares, checked before anything recursive or the database sees the input:
 *
 * - path segments, query names and values, multipart field names and file names: no control character
 *   (U+0000–U+001F, U+007F) and no unpaired surrogate → 422;
 * - JSON bodies: valid UTF-8, nested at most {@link MAX_JSON_DEPTH} deep (scanned in the raw text, without
 *   recursion, before `JSON.parse`), no NUL (`\u0000`) and no unpaired surrogate in any key or string → 422;
 *   other control characters (newlines, tabs…) are ordinary text in a JSON string and are kept;
 * - multipart text values: no NUL and no unpaired surrogate → 422 (file contents are bytes and are not read);
 * - JSON inside other input (query filters, page tokens, JSONL lines of uploaded files): as JSON bodies,
 *   through {@link parseJsonDocument};
 * - a URL longer than {@link MAX_URL_LENGTH} or a path segment longer than {@link MAX_PATH_SEGMENT} → 414;
 * - error answers echo at most 200 characters of any value the caller sent (`boundedEcho` in errors.ts).
 *
 * Why: PostgreSQL cannot store NUL in `text` or `jsonb` (or an unpaired surrogate in `jsonb`), and a JSON
 * document nested thousands deep overflows the stack of every recursive walker (the 422 writer, the database
 * parameter serialiser, `structuredClone`).
 */
import type { Context } from 'hono';
import type { ValidationIssue } from 'parley-kit/types';
import { genericError, validationError } from './errors.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;
/** Longest URL (path and query, percent-encoded) a request may have. */
export const MAX_URL_LENGTH = 8192;
/** Longest path segment (an id, a name), decoded. */
export const MAX_PATH_SEGMENT = 1024;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** What is wrong with a name or id (path segment, query, form field or file name), or null. */
function nameProblem(value: string): string | null {
  if (CONTROL.test(value)) return 'Value should not contain control characters (U+0000–U+001F, U+007F)';
  if (LONE_SURROGATE.test(value)) return 'Value should not contain an unpaired UTF-16 surrogate';
  return null;
}

/** What is wrong with a text value (JSON string, form text field), or null: NUL and unpaired surrogates. */
function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'String should not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(value)) return 'String should not contain an unpaired UTF-16 surrogate';
  return null;
}

/** 414 for a URL or one of its path segments over the limits. */
const uriTooLong = (message: string) => genericError(414, message, 'invalid_request_error', 'uri_too_long');

/**
 * The path and query of a request checked against the input rules: 414 when too long, 422 (loc `path` with
 * the segment's position, or `query` with the name) for a control character or an unpaired surrogate.
 */
function checkUrl(url: URL): void {
  if (url.pathname.length + url.search.length > MAX_URL_LENGTH) throw uriTooLong(`The URL is longer than ${MAX_URL_LENGTH} characters`);
  const issues: ValidationIssue[] = [];
  url.pathname.split('/').forEach((raw, i) => {
    if (!raw) return;
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch { /* malformed percent-encoding: the router keeps the raw text too */ }
    if (segment.length > MAX_PATH_SEGMENT) throw uriTooLong(`A path segment is longer than ${MAX_PATH_SEGMENT} characters`);
    const problem = nameProblem(segment);
    if (problem) issues.push({ loc: ['path', i - 1], msg: problem, type: 'value_error', input: segment });
  });
  for (const [name, value] of url.searchParams) {
    const problem = nameProblem(name);
    if (problem) issues.push({ loc: ['query', name], msg: `Query parameter name: ${problem}`, type: 'value_error', input: name });
    const valueProblem = nameProblem(value);
    if (valueProblem) issues.push({ loc: ['query', name], msg: valueProblem, type: 'value_error', input: value });
  }
  if (issues.length) throw validationError(issues);
}

/** Middleware: {@link checkUrl} for every request. */
export async function urlGuard(c: Context, next: () => Promise<void>): Promise<void> {
  checkUrl(new URL(c.req.url));
  await next();
}

/**
 * Decodes a JSON body's bytes as UTF-8 and checks its nesting without recursion, before it is parsed:
 * 422 `json_invalid` for bytes that are not UTF-8 or for nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function decodeJsonText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw validationError([{ loc: ['body', 0], msg: 'JSON decode error: the body is not valid UTF-8', type: 'json_invalid' }]);
  }
  const depth = jsonDepthOver(text, MAX_JSON_DEPTH);
  if (depth !== -1) {
    throw validationError([{ loc: ['body', 0], msg: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_invalid', ctx: { max_depth: MAX_JSON_DEPTH } }]);
  }
  return text;
}

/** The offset where `text` (JSON) opens its `limit + 1`-th nested array or object, or -1; strings are skipped. */
export function jsonDepthOver(text: string, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return i;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/** Escapes of NUL and of surrogates (`\u0000`, `\ud800`…): JSON text without any cannot hold what {@link textProblem} refuses. */
const SUSPICIOUS = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|\u0000/;

/**
 * The first key or string of a parsed JSON value that breaks {@link textProblem}, as a 422 issue under
 * `locPrefix`; null when clean. `text` is the JSON it was parsed from: text without a NUL or surrogate
 * (escaped or not) is clean without walking the value. The walk is iterative and only remembers containers.
 */
export function jsonTextIssue(value: unknown, locPrefix: Array<string | number>, text?: string): ValidationIssue | null {
  if (text !== undefined && !SUSPICIOUS.test(text) && !LONE_SURROGATE.test(text)) return null;
  interface Node { v: unknown; key: string | number; parent: Node | null }
  const locOf = (node: Node | null, last?: string | number): Array<string | number> => {
    const path: Array<string | number> = last === undefined ? [] : [last];
    for (let n = node; n && n.parent; n = n.parent) path.unshift(n.key);
    return [...locPrefix, ...path];
  };
  const check = (s: string, node: Node | null, key: string | number | undefined, isKey: boolean): ValidationIssue | null => {
    const problem = textProblem(s);
    return problem ? { loc: locOf(node, key), msg: isKey ? `Key: ${problem}` : problem, type: 'value_error', input: s } : null;
  };
  if (typeof value === 'string') return check(value, null, undefined, false);
  const stack: Node[] = [{ v: value, key: '', parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const entries: Iterable<[string | number, unknown]> = Array.isArray(node.v)
      ? node.v.entries()
      : node.v !== null && typeof node.v === 'object' ? Object.entries(node.v) : [];
    for (const [key, item] of entries) {
      if (typeof key === 'string') {
        const issue = check(key, node, key, true);
        if (issue) return issue;
      }
      if (typeof item === 'string') {
        const issue = check(item, node, key, false);
        if (issue) return issue;
      } else if (item !== null && typeof item === 'object') {
        stack.push({ v: item, key, parent: node });
      }
    }
  }
  return null;
}

/** The fields of a parsed multipart form checked: names and file names as {@link nameProblem}, text values as {@link textProblem}; 422 listing every problem. */
export function checkForm(form: FormData): void {
  const issues: ValidationIssue[] = [];
  for (const [name, entry] of form) {
    const nameIssue = nameProblem(name);
    if (nameIssue) issues.push({ loc: ['body', name], msg: `Field name: ${nameIssue}`, type: 'value_error', input: name });
    if (typeof entry === 'string') {
      const problem = textProblem(entry);
      if (problem) issues.push({ loc: ['body', name], msg: problem, type: 'value_error', input: entry });
    } else {
      const problem = nameProblem(entry.name);
      if (problem) issues.push({ loc: ['body', name, 'filename'], msg: `File name: ${problem}`, type: 'value_error', input: entry.name });
    }
  }
  if (issues.length) throw validationError(issues);
}

/** A rule broken by a document that is otherwise valid JSON (thrown by {@link parseJsonDocument}). */
export class JsonRuleError extends SyntaxError {}

/**
 * `JSON.parse` under the input rules, for JSON that arrives inside something else (a JSONL line of an
 * uploaded file, a query parameter, a page token): a SyntaxError for invalid JSON as `JSON.parse`, and a
 * {@link JsonRuleError} (a SyntaxError too) for nesting deeper than {@link MAX_JSON_DEPTH}, NUL or an unpaired surrogate.
 */
export function parseJsonDocument(text: string): unknown {
  if (jsonDepthOver(text, MAX_JSON_DEPTH) !== -1) throw new JsonRuleError(`JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  const value: unknown = JSON.parse(text);
  const issue = jsonTextIssue(value, [], text);
  if (issue) throw new JsonRuleError(`${issue.loc.length ? `${issue.loc.join('.')}: ` : ''}${issue.msg}`);
  return value;
}
