/** The platform's error answers as values: generic bodies, 422 `{detail:[…]}` lists, and caps on what they echo back. */
import type { GenericErrorBody, ValidationIssue } from 'parley-kit/types';

/** Most characters of a caller's value an error answer repeats. */
export const ECHO_LIMIT = 200;
/** Longest error message (messages that quote a caller's value are cut here). */
const MESSAGE_LIMIT = 1000;
/** Most issues a 422 lists (a body with thousands of unknown keys gets the first ones and a count of the rest). */
const MAX_ISSUES = 50;

/** An error message cut to 1,000 characters (messages that quote a caller's value). */
export const boundedMessage = (message: string) => truncate(message, MESSAGE_LIMIT);

/** A string cut to {@link ECHO_LIMIT} characters (never between the halves of a surrogate pair), marked with `…`. */
export function truncate(value: string, limit = ECHO_LIMIT): string {
  if (value.length <= limit) return value;
  let end = limit;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

const ECHO_NODES = 100;
const ECHO_DEPTH = 8;

/**
 * A caller's value as an error answer may repeat it: unchanged when small, else strings cut to
 * {@link ECHO_LIMIT} characters and arrays/objects cut to a few levels and items (the cut marked `…`).
 */
export function boundedEcho(value: unknown): unknown {
  let budget = ECHO_NODES;
  const copy = (v: unknown, depth: number): unknown => {
    budget -= 1;
    if (typeof v === 'string') return truncate(v);
    if (typeof v === 'bigint') return truncate(String(v));
    if (v === null || typeof v !== 'object') return v;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v; // Date, File…: written by their toJSON
    if (depth >= ECHO_DEPTH) return '…';
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) {
        if (budget <= 0) { out.push('…'); break; }
        out.push(copy(item, depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(v)) {
      if (budget <= 0) { out['…'] = '…'; break; }
      out[truncate(key)] = copy(item, depth + 1);
    }
    return out;
  };
  return copy(value, 0);
}

/**
 * An HTTP answer that is an error, carried as a value until the app's error handler writes it.
 * Bodies are the platform's real shapes: 422 `{detail:[…]}` or `{object:"error", …}`.
 */
export class PlatformHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: GenericErrorBody | { detail: ValidationIssue[] },
    readonly headers: Record<string, string> = {},
  ) {
    super('message' in body ? body.message : body.detail.map((d) => d.msg).join('; '));
  }
}

export function genericError(
  status: number,
  message: string,
  type: GenericErrorBody['type'] = 'invalid_request_error',
  code: string | null = null,
  param: string | null = null,
): PlatformHttpError {
  return new PlatformHttpError(status, { object: 'error', message: truncate(message, MESSAGE_LIMIT), type, param, code });
}

export const notFound = (message: string) => genericError(404, message, 'invalid_request_error', 'not_found');
export const badRequest = (message: string, param: string | null = null) =>
  genericError(400, message, 'invalid_request_error', 'bad_request', param);
export const unauthorized = (message = 'Unauthorized: a valid API key is required in the Authorization header') =>
  genericError(401, message, 'authentication_error', 'unauthorized');
export const forbidden = (message: string) => genericError(403, message, 'invalid_request_error', 'forbidden');
export const payloadTooLarge = (limit: number) =>
  genericError(413, `Request body is larger than the limit of ${limit} bytes`, 'invalid_request_error', 'request_too_large');

/** 503 for an engine that cannot run on this install (e.g. an optional dependency is missing). */
export const engineUnavailable = (message: string) => genericError(503, message, 'server_error', 'engine_unavailable');
/** 503 with `Retry-After: 1` for an engine with too many requests waiting. */
export const engineBusy = (message: string) =>
  new PlatformHttpError(503, genericError(503, message, 'server_error', 'engine_busy').body, { 'retry-after': '1' });

/** 422 with a FastAPI-style detail list; echoed inputs and messages are bounded ({@link boundedEcho}). */
export function validationError(detail: ValidationIssue[]): PlatformHttpError {
  const listed = detail.length > MAX_ISSUES ? [
    ...detail.slice(0, MAX_ISSUES - 1),
    { loc: detail[MAX_ISSUES - 1].loc.slice(0, 1), msg: `${detail.length - MAX_ISSUES + 1} more problems are not listed`, type: 'too_many_errors' },
  ] : detail;
  return new PlatformHttpError(422, {
    detail: listed.map((issue) => {
      const loc = issue.loc.map((part) => (typeof part === 'string' ? truncate(part) : part));
      const bounded: ValidationIssue = { ...issue, loc, msg: truncate(issue.msg, MESSAGE_LIMIT) };
      if ('input' in issue) bounded.input = boundedEcho(issue.input);
      return bounded;
    }),
  });
}

/** 422 for one field, e.g. `invalidField(['body','from_entry_id'], 'Entry not found in conversation', 'value_error')`. */
export function invalidField(loc: Array<string | number>, msg: string, type = 'value_error', input?: unknown): PlatformHttpError {
  const issue: ValidationIssue = { loc, msg, type };
  if (input !== undefined) issue.input = input;
  return validationError([issue]);
}

/** What a model-taking route expected, for {@link invalidModel}. */
export interface ModelExpectation {
  /** What the route takes, e.g. `an OCR model`; omitted: any model the platform serves. */
  kind?: string;
  /** The `capabilities` flag of `GET /v1/models` cards that marks the right models, e.g. `ocr`. */
  capability?: string;
  /** A more precise reason, one sentence without a final period (replaces "It is not <kind> of this platform"). */
  why?: string;
  /** The request field that named the model (default `model`). */
  param?: string;
}

/** The message of {@link invalidModel}, also sent by the realtime WebSocket's `error` event. */
export function invalidModelMessage(model: string, expected: ModelExpectation = {}): string {
  const why = expected.why ?? (expected.kind ? `It is not ${expected.kind} of this platform` : undefined);
  const listed = expected.capability ? `the models with capabilities.${expected.capability}` : 'the models this platform serves';
  return `Invalid model: ${truncate(model)}. ${why ? `${why}; ` : ''}GET /v1/models lists ${listed}`;
}

/** 400 `invalid_model` (code `1500`, as the real service) for a model the route cannot serve: unknown or of another kind. */
export function invalidModel(model: string, expected: ModelExpectation = {}): PlatformHttpError {
  return genericError(400, invalidModelMessage(model, expected), 'invalid_model', '1500', expected.param ?? 'model');
}

/**
 * The answer to a caller that went away mid-request (nginx's 499 "client closed request"): nobody reads
 * it, but the request is logged as the caller's doing, not as a server error.
 */
export function callerClosedRequest(): Response {
  return new Response(null, { status: 499 });
}
