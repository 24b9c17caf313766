/**
 * The route table: exact (method, path template) pairs, each mapped to a fixed upstream path built
 * from validated parameters. Nothing else is routable. Paths are checked before matching: any
 * percent-encoding, backslash, `;`, empty or dot segment, or character outside a small set makes
 * the path unknown (404), so encoded tricks never reach a template. Matching is case-sensitive.
 */
import type { RelayScope } from '../sessions/policy.js';
import { DEFAULT_ATTACHMENT_LIMITS, base64Length } from '../uploads/attachments.js';

/** Which body a route takes. `json` bodies are read whole (capped) and inspected; `multipart` bodies stream through, counted. */
export type BodyKind = 'json' | 'multipart';

/** How a route relates to conversation ownership. */
export type ConversationRole =
  /** The path's `{conversation_id}` must belong to the caller's session. */
  | 'owned'
  /** The answer creates a conversation, owned by the caller's session from then on. */
  | 'creates'
  /** Both: an owned conversation is read and a new one is created (restart). */
  | 'owned+creates';

/** One row of the route table. */
export interface RelayRoute {
  /** Product name of the operation, e.g. `conversations.start`. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path under the relay's `{base}`, also the upstream path: `/v1/conversations/{conversation_id}`. */
  path: string;
  scope: RelayScope;
  body?: { kind: BodyKind; maxBytes: number };
  /** Query parameters passed upstream (others are dropped). */
  query?: string[];
  conversation?: ConversationRole;
  /**
   * Body fields checked against the token: `agent` (e.g. `agent_id`) against agents, `model` against models,
   * and `entries` (e.g. `inputs`): an array whose `agent.handoff` entries name a `next_agent_id`, also checked
   * against agents (a handoff entry the caller writes into the history decides who speaks after a restart),
   * and `agentVersion` (e.g. `agent_version`) against agents pinned to a version (`ag_…@3`).
   */
  checkBody?: { agent?: string; model?: string; entries?: string; agentVersion?: string };
  /** Path parameter checked against the token's agents or models. */
  checkParam?: { agent?: string; model?: string };
  /** Whether the body's `stream: true` asks for an SSE answer (counts against the stream cap). */
  streamFromBody?: boolean;
  /**
   * How the relay checks the uploaded content (upload.ts): `audio-form` — a multipart form whose `file`
   * must be audio and whose `model` must be allowed; `ocr-document` — a JSON `document` that must be a
   * PDF or an image; `attachments` — the `image_url`/`document_url` chunks of `inputs` or `messages` must fit the
   * relay's attachment policy (uploads/attachments.ts).
   */
  upload?: 'audio-form' | 'ocr-document' | 'attachments';
  /** Built-in behaviour instead of plain forwarding. */
  special?: 'list-conversations' | 'list-models' | 'client-session' | 'feedback';
  /** Event written when the upstream breaks mid-stream at an event boundary; omitted → plain `event: error`. */
  streamErrorEvent?: 'conversation';
}

/** Byte units for body caps. */
export const KB = 1024;
export const MB = 1024 * KB;

/** Body caps of the default routes, by operation group. */
export interface BodyLimits {
  conversations: number;
  speech: number;
  transcription: number;
  ocr: number;
}

/** Bytes a conversation body may take besides its attachments (its text, history and tools). */
export const CONVERSATION_TEXT_BYTES = 1 * MB;

/**
 * Default body caps: conversations 1 MB plus the base64 size of the attachments they may carry (the attachment
 * policy's `maxTotalBytes`, 20 MB by default: 27.7 MB in all), speech 64 KB, transcription 25 MB, OCR 50 MB.
 */
export const DEFAULT_BODY_LIMITS: BodyLimits = {
  conversations: CONVERSATION_TEXT_BYTES + base64Length(DEFAULT_ATTACHMENT_LIMITS.maxTotalBytes),
  speech: 64 * KB,
  transcription: 25 * MB,
  ocr: 50 * MB,
};

/**
 * The default route table; further operations are added by passing more rows to `createRelay({ routes })`.
 * The realtime WebSocket is not a row: the relay's `handleUpgrade` serves exactly one path (realtime.ts).
 */
export function defaultRoutes(limits: BodyLimits = DEFAULT_BODY_LIMITS): RelayRoute[] {
  const conversationBody = { kind: 'json' as const, maxBytes: limits.conversations };
  // Append and restart bodies name no agent or model in the API, but any such field is checked all the same.
  const conversationChecks = { agent: 'agent_id', model: 'model', entries: 'inputs', agentVersion: 'agent_version' };
  return [
    { name: 'conversations.start', method: 'POST', path: '/v1/conversations', scope: 'conversations', body: conversationBody,
      conversation: 'creates', checkBody: conversationChecks, streamFromBody: true, streamErrorEvent: 'conversation', upload: 'attachments' },
    { name: 'conversations.list', method: 'GET', path: '/v1/conversations', scope: 'conversations',
      query: ['page', 'page_size', 'metadata'], special: 'list-conversations' },
    { name: 'conversations.get', method: 'GET', path: '/v1/conversations/{conversation_id}', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.delete', method: 'DELETE', path: '/v1/conversations/{conversation_id}', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.append', method: 'POST', path: '/v1/conversations/{conversation_id}', scope: 'conversations', body: conversationBody,
      conversation: 'owned', checkBody: conversationChecks, streamFromBody: true, streamErrorEvent: 'conversation', upload: 'attachments' },
    { name: 'conversations.restart', method: 'POST', path: '/v1/conversations/{conversation_id}/restart', scope: 'conversations', body: conversationBody,
      conversation: 'owned+creates', checkBody: conversationChecks, streamFromBody: true, streamErrorEvent: 'conversation', upload: 'attachments' },
    // Answered by the relay with the `feedback` option (a record of the owner's dataset, feedback.ts); 404 without it.
    { name: 'conversations.feedback', method: 'POST', path: '/v1/conversations/{conversation_id}/feedback', scope: 'conversations',
      body: { kind: 'json', maxBytes: 16 * KB }, conversation: 'owned', special: 'feedback' },
    { name: 'conversations.history', method: 'GET', path: '/v1/conversations/{conversation_id}/history', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.messages', method: 'GET', path: '/v1/conversations/{conversation_id}/messages', scope: 'conversations', conversation: 'owned' },
    { name: 'agents.get', method: 'GET', path: '/v1/agents/{agent_id}', scope: 'agents:read', query: ['agent_version'], checkParam: { agent: 'agent_id' } },
    { name: 'models.list', method: 'GET', path: '/v1/models', scope: 'models:read', query: ['provider', 'model'], special: 'list-models' },
    { name: 'models.get', method: 'GET', path: '/v1/models/{model_id}', scope: 'models:read', checkParam: { model: 'model_id' } },
    { name: 'voices.list', method: 'GET', path: '/v1/audio/voices', scope: 'speech', query: ['limit', 'offset', 'type'] },
    { name: 'speech.create', method: 'POST', path: '/v1/audio/speech', scope: 'speech', body: { kind: 'json', maxBytes: limits.speech },
      checkBody: { model: 'model' }, streamFromBody: true },
    { name: 'transcription.create', method: 'POST', path: '/v1/audio/transcriptions', scope: 'transcription',
      body: { kind: 'multipart', maxBytes: limits.transcription }, upload: 'audio-form' },
    // Answered by the relay (a one-time ticket for its realtime WebSocket route), never forwarded.
    { name: 'client_sessions.create', method: 'POST', path: '/v1/client/sessions', scope: 'transcription',
      body: { kind: 'json', maxBytes: 16 * KB }, special: 'client-session' },
    { name: 'ocr.process', method: 'POST', path: '/v1/ocr', scope: 'ocr', body: { kind: 'json', maxBytes: limits.ocr }, checkBody: { model: 'model' },
      upload: 'ocr-document' },
  ];
}

/** Path parameters: letters, digits, `_`, `-`, and (for model names) `.` and `:`; must start with a letter or digit. */
const PARAM_PATTERNS: Record<string, RegExp> = {
  conversation_id: /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/,
  agent_id: /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/,
  model_id: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/,
};
const DEFAULT_PARAM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Whether `value` is a valid path parameter `name` (the pattern route matching uses). */
export function isValidParam(name: string, value: string): boolean {
  return (PARAM_PATTERNS[name] ?? DEFAULT_PARAM_PATTERN).test(value);
}

/**
 * Whether a raw path is clean enough to match: `/`-separated non-empty segments, each starting with
 * a letter or digit, made only of letters, digits and `_ - . :`. This rejects `%xx` escapes (so
 * `%2F`, `%5C`, `%2e`, `%00` and double encoding), `\`, `;params`, `//`, `.`/`..` segments and a
 * trailing `/`.
 */
export function isCleanPath(path: string): boolean {
  return path.length <= 512 && /^(\/[A-Za-z0-9][A-Za-z0-9_.:-]*)+$/.test(path);
}

/** Result of matching a method and path against the table. */
export type RouteMatch =
  | { kind: 'route'; route: RelayRoute; params: Record<string, string> }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: RelayRoute;
  /** Per segment: the literal to equal, or the parameter's name and pattern. */
  segments: Array<{ literal: string } | { param: string; pattern: RegExp }>;
  paramCount: number;
}

/** A matcher over a route table. */
export interface RouteTable {
  readonly routes: readonly RelayRoute[];
  /** Matches a clean path (see {@link isCleanPath}) under the base path, e.g. `/v1/conversations`. */
  match(method: string, path: string): RouteMatch;
  /** Methods routable on a path (for CORS preflight and 405), empty when the path is unknown. */
  methodsFor(path: string): string[];
}

/** Compiles a route table into a matcher; routes are grouped by segment count so a path is only tried against templates of its length. */
export function createRouteTable(routes: RelayRoute[]): RouteTable {
  const bySegmentCount = new Map<number, CompiledRoute[]>();
  for (const route of routes) {
    const segments = route.path.split('/').slice(1).map((s) => {
      const m = /^\{([a-z_]+)\}$/.exec(s);
      return m ? { param: m[1]!, pattern: PARAM_PATTERNS[m[1]!] ?? DEFAULT_PARAM_PATTERN } : { literal: s };
    });
    const compiled: CompiledRoute = { route, segments, paramCount: segments.filter((s) => 'param' in s).length };
    const group = bySegmentCount.get(segments.length);
    if (group) group.push(compiled);
    else bySegmentCount.set(segments.length, [compiled]);
  }

  /** Routes whose template the path's segments fit, in table order. */
  const matchParts = (path: string, parts: string[]): CompiledRoute[] => {
    if (!isCleanPath(path)) return [];
    const found: CompiledRoute[] = [];
    for (const c of bySegmentCount.get(parts.length) ?? []) {
      let fits = true;
      for (let i = 0; fits && i < c.segments.length; i++) {
        const seg = c.segments[i]!;
        fits = 'literal' in seg ? seg.literal === parts[i] : seg.pattern.test(parts[i]!);
      }
      if (fits) found.push(c);
    }
    return found;
  };
  const matchPath = (path: string): CompiledRoute[] => matchParts(path, path.split('/').slice(1));

  const paramsOf = (c: CompiledRoute, parts: string[]): Record<string, string> => {
    const params: Record<string, string> = {};
    for (let i = 0; i < c.segments.length; i++) {
      const seg = c.segments[i]!;
      if ('param' in seg) params[seg.param] = parts[i]!;
    }
    return params;
  };

  return {
    routes,
    match(method, path) {
      const parts = path.split('/').slice(1);
      const found = matchParts(path, parts);
      if (!found.length) return { kind: 'none' };
      // A literal segment beats a parameter (e.g. `/v1/models` vs a future `/v1/models/{id}`): prefer fewer params.
      let best: CompiledRoute | undefined;
      for (const c of found) if (c.route.method === method && (!best || c.paramCount < best.paramCount)) best = c;
      if (best) return { kind: 'route', route: best.route, params: paramsOf(best, parts) };
      return { kind: 'wrong-method', allow: [...new Set(found.map((c) => c.route.method))] };
    },
    methodsFor(path) {
      return [...new Set(matchPath(path).map((c) => c.route.method))];
    },
  };
}

/** The upstream URL of a matched route: the fixed base plus the template filled with encoded parameters and the allowed query. */
export function upstreamUrl(baseUrl: string, route: RelayRoute, params: Record<string, string>, query: URLSearchParams): string {
  let path = route.path;
  if (path.includes('{')) path = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  let search = '';
  if (route.query?.length && query.size) {
    const kept = new URLSearchParams();
    for (const name of route.query) {
      for (const value of query.getAll(name)) kept.append(name, value);
    }
    search = kept.size ? `?${kept}` : '';
  }
  return upstreamBaseOf(baseUrl) + path + search;
}

const bases = new Map<string, string>();

/** `baseUrl` without query, fragment and trailing slashes (what route paths are appended to), parsed once per base. */
function upstreamBaseOf(baseUrl: string): string {
  let base = bases.get(baseUrl);
  if (base === undefined) {
    const url = new URL(baseUrl);
    base = url.origin + url.pathname.replace(/\/+$/, '');
    if (bases.size < 64) bases.set(baseUrl, base);
  }
  return base;
}
