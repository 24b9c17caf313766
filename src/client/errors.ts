/**
 * One error type for everything the client can fail with: HTTP error answers (both body shapes of
 * the platform), networks that drop, and streams that break or report an error event.
 */
import type { PlatformErrorShape } from './contracts.js';
import type { ResponseErrorEvent, ValidationIssue } from './types.js';

/** `type` of errors that never reached an HTTP answer. */
export const NETWORK_ERROR = 'network_error';
/** `type` of streams that broke, sent something unreadable, or ended without a final event. */
export const STREAM_ERROR = 'stream_error';
/** `code` (type `audio_error`, status 0) of speech that cannot be heard: the AudioContext did not start after the press (src/audio/audio-start.ts). */
export const AUDIO_NOT_STARTED = 'audio_not_started';
/** `code` of the relay's refusal of a page whose origin is not on its allowed list (a 403). */
export const ORIGIN_NOT_ALLOWED = 'origin_not_allowed';

/**
 * An error from the platform (or the relay in front of it), a network failure or a broken stream.
 * Implements {@link PlatformErrorShape}, so it can be put in view state as is; `toJSON()` gives
 * the plain shape.
 */
export class PlatformError extends Error implements PlatformErrorShape {
  override readonly name = 'PlatformError';
  /** HTTP status; 0 for network failures, broken streams and error events inside a stream. */
  readonly status: number;
  /** Body `type` ('invalid_request_error', …), or 'network_error' / 'stream_error' / 'server_error'. */
  readonly type: string | null;
  readonly code: string | null;
  /** Seconds to wait before trying again (from `Retry-After`), or null. */
  readonly retryAfter: number | null;
  /** The issues of a 422 answer. */
  readonly detail?: ValidationIssue[];

  constructor(shape: PlatformErrorShape, options?: { cause?: unknown }) {
    super(shape.message, options);
    this.status = shape.status;
    this.type = shape.type;
    this.code = shape.code;
    this.retryAfter = shape.retryAfter;
    if (shape.detail) this.detail = shape.detail;
  }

  /**
   * Reads an error answer: `{detail:[…]}` (422, turned into a readable message), `{object:'error', …}`,
   * an older `{message}` body, or anything else (non-JSON text, empty body).
   */
  static async fromResponse(res: Response): Promise<PlatformError> {
    const error = await PlatformError.#read(res);
    if (error.code === ORIGIN_NOT_ALLOWED) return originRefusal(error, res.url);
    if (refusalKind(error)) reportRefusal(error, res.url);
    return error;
  }

  static async #read(res: Response): Promise<PlatformError> {
    let text = '';
    try {
      text = await res.text();
    } catch {
      // A body that fails to read still leaves the status to report.
    }
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    const fallback = `${res.status} ${res.statusText || statusText(res.status)}`.trim();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (body && typeof body === 'object') {
      const b = body as Record<string, unknown>;
      if (Array.isArray(b.detail)) {
        const detail = b.detail as ValidationIssue[];
        return new PlatformError({
          status: res.status, type: 'invalid_request_error', code: null, retryAfter, detail,
          message: validationMessage(detail) || fallback,
        });
      }
      if (b.detail && typeof b.detail === 'object') {
        const d = b.detail as Record<string, unknown>;
        return new PlatformError({
          status: res.status, type: null, code: stringOrNull(d.error_code), retryAfter,
          message: typeof d.message === 'string' ? d.message : fallback,
        });
      }
      if (typeof b.message === 'string' || typeof b.detail === 'string') {
        return new PlatformError({
          status: res.status, type: stringOrNull(b.type), code: stringOrNull(b.code), retryAfter,
          message: (typeof b.message === 'string' ? b.message : b.detail as string) || fallback,
        });
      }
    }
    const plain = text.trim();
    return new PlatformError({
      status: res.status, type: null, code: null, retryAfter,
      message: plain && plain.length <= 300 && !plain.startsWith('<') ? `${fallback}: ${plain}` : fallback,
    });
  }

  /** A request that got no HTTP answer (offline, DNS, connection reset, CORS refusal). */
  static network(cause?: unknown): PlatformError {
    const reason = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
    return new PlatformError(
      { status: 0, type: NETWORK_ERROR, code: null, retryAfter: null, message: `Could not reach the server${reason}` },
      { cause },
    );
  }

  /** A stream that broke, sent something unreadable, or ended before its final event. */
  static stream(message: string, cause?: unknown): PlatformError {
    return new PlatformError({ status: 0, type: STREAM_ERROR, code: null, retryAfter: null, message }, { cause });
  }

  /** A `conversation.response.error` event: the turn failed on the server after the stream opened. */
  static fromEvent(event: ResponseErrorEvent): PlatformError {
    return new PlatformError({
      status: 0, type: 'server_error', code: event.code == null ? null : String(event.code), retryAfter: null,
      message: event.message || 'The reply failed',
    });
  }

  /** Turns anything thrown into a PlatformError (a PlatformError is returned as is). */
  static from(error: unknown): PlatformError {
    if (error instanceof PlatformError) return error;
    if (isPlatformErrorShape(error)) return new PlatformError(error);
    return PlatformError.network(error);
  }

  /** The plain {@link PlatformErrorShape} (what `JSON.stringify` writes). */
  toJSON(): PlatformErrorShape {
    const shape: PlatformErrorShape = { status: this.status, type: this.type, code: this.code, message: this.message, retryAfter: this.retryAfter };
    if (this.detail) shape.detail = this.detail;
    return shape;
  }
}

/** The page's origin, when there is a page. */
function pageOrigin(): string | null {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return origin && origin !== 'null' ? origin : null;
}

const reportedRefusals = new Set<string>();

/**
 * The relay refused this page's origin: a mistake of the site's configuration, not of the visitor. The
 * site owner reads why in the console (once per page and relay), with the fix; the error keeps its code
 * and says the same, for `parley-error` listeners. Elements show the visitor a neutral sentence instead.
 */
function originRefusal(error: PlatformError, relayUrl: string): PlatformError {
  const origin = pageOrigin();
  let relay = 'The relay';
  try {
    relay = `The relay at ${new URL(relayUrl).origin}`;
  } catch {
    // No URL (a Response made in code): the generic wording is enough.
  }
  const allow = origin ?? '<page origin>';
  const message = `${relay} does not allow pages from ${origin ?? 'this page'} (origin_not_allowed). To allow it, add the origin `
    + `to the relay's allowed origins: \`parley-relay --allow-origin ${allow}\` (or PARLEY_ALLOWED_ORIGINS), `
    + `\`allowedOrigins: ['${allow}']\` in the relay's options (parley-kit/relay), or \`parley start --allow-origin ${allow}\`.`;
  const key = `${origin} ${relay}`;
  if (!reportedRefusals.has(key)) {
    reportedRefusals.add(key);
    console.error(`parley: ${message}`);
  }
  return new PlatformError({ status: error.status, type: error.type, code: ORIGIN_NOT_ALLOWED, retryAfter: null, message });
}

/**
 * Why a refusal cannot be helped by retrying, or null when retrying may help:
 * - `origin`: the relay does not serve this page's origin;
 * - `not-allowed`: a model, agent, scope, tool or remote file this session may not use (the relay's 403s),
 *   or a model the platform does not serve (400 `invalid_model`);
 * - `too-large`: a body or file over a limit (413);
 * - `type`: a file or body of a type the route does not take (415).
 * Elements offer no retry for these: the visitor reads a neutral sentence, the site owner a console line.
 */
export type RefusalKind = 'origin' | 'not-allowed' | 'too-large' | 'type';

/** The setting to change, by the refusal's code (the console line of {@link reportRefusal}). */
const REFUSAL_SETTINGS: Record<string, string> = {
  model_not_allowed: "list the model in the relay policy's models (`--model`, PARLEY_MODELS), or change the element's `model` attribute",
  agent_not_allowed: "list the agent in the relay policy's agents (`--agent`, PARLEY_AGENTS), or change the element's `agent-id` attribute",
  scope_not_allowed: "list the scope in the relay policy's scopes (`--scope`, PARLEY_SCOPES)",
  tool_not_allowed: 'give built-in tools to an agent (`agent-id`); pages may add function tools only',
  remote_file_not_allowed: "turn on the relay's allowRemoteFiles (`--allow-remote-files`), or send the file itself",
  invalid_model: "change the element's `model` attribute to a model the platform serves",
  413: "raise the relay's bodyLimits or attachments limits (`--max-attachment-bytes`), or send less",
  415: "send a type the route takes (attachments: the relay's attachments.types, `--attachment-type`)",
};

/** The {@link RefusalKind} of an error (or error shape), or null when retrying may help. */
export function refusalKind(error: unknown): RefusalKind | null {
  if (!error || typeof error !== 'object') return null;
  const { status, code, type } = error as { status?: unknown; code?: unknown; type?: unknown };
  if (code === ORIGIN_NOT_ALLOWED) return 'origin';
  if (status === 413) return 'too-large';
  if (status === 415) return 'type';
  if ((status === 403 && typeof code === 'string' && code in REFUSAL_SETTINGS) || (status === 400 && type === 'invalid_model')) return 'not-allowed';
  return null;
}

/** One console line per refusal (per page, relay and message) that names the setting to change. */
function reportRefusal(error: PlatformError, url: string): void {
  let where = 'the relay';
  try {
    where = new URL(url).origin;
  } catch {
    // No URL (a Response made in code).
  }
  const key = `${where} ${error.status} ${error.message}`;
  if (reportedRefusals.has(key)) return;
  reportedRefusals.add(key);
  const setting = REFUSAL_SETTINGS[error.type === 'invalid_model' ? 'invalid_model' : error.status === 403 ? error.code! : error.status];
  console.error(`parley: a request to ${where} was refused (${error.status} ${error.code ?? error.type}: ${error.message}). Retrying cannot help. To fix it, ${setting}.`);
}

/** Whether an error (or error shape) is the relay's refusal of the page's origin. */
export function isOriginRefusal(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: unknown }).code === ORIGIN_NOT_ALLOWED;
}

/** Whether a value has the {@link PlatformErrorShape} fields. */
export function isPlatformErrorShape(value: unknown): value is PlatformErrorShape {
  return !!value && typeof value === 'object' && typeof (value as PlatformErrorShape).status === 'number'
    && typeof (value as PlatformErrorShape).message === 'string' && 'type' in value && 'retryAfter' in value;
}

/** Whether an error is the rejection of an aborted fetch, read or wait. */
export function isAbortError(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { name?: unknown }).name === 'AbortError';
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value == null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** `body.inputs.0.content: Field required; body.model: …` (the `body`/`query` prefix dropped). */
function validationMessage(detail: ValidationIssue[]): string {
  return detail
    .map((issue) => {
      const loc = (issue.loc ?? []).filter((part, i) => !(i === 0 && (part === 'body' || part === 'query' || part === 'path')));
      return loc.length ? `${loc.join('.')}: ${issue.msg}` : issue.msg;
    })
    .join('; ');
}

function stringOrNull(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

function statusText(status: number): string {
  const names: Record<number, string> = {
    400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large',
    422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
    503: 'Service Unavailable', 504: 'Gateway Timeout',
  };
  return names[status] ?? '';
}
