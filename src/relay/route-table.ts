/**
 * The route table: exact (method, path template) pairs, each mapped to a fixed upstream path built
 * from validated parameters. Nothing else is routable. Paths are checked before matching: any
 * percent-encoding, backslash, `;`, empty or dot segment, or character outside a small set makes
 * the path unknown (404), so encoded tricks never reach a template. Matching is case-sensitive.
 */
import type { RelayScope } from './policy.js';

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
  /** Body fields checked against the token: `agent_id` against agents, `model` against models. */
  checkBody?: { agent?: string; model?: string };
  /** Path parameter checked against the token's agents or models. */
  checkParam?: { agent?: string; model?: string };
  /** Whether the body's `stream: true` asks for an SSE answer (counts against the stream cap). */
  streamFromBody?: boolean;
  /** Built-in behaviour instead of plain forwarding. */
  special?: 'list-conversations' | 'list-models';
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

/** Default body caps: conversations 1 MB, speech 64 KB, transcription 25 MB, OCR 50 MB. */
export const DEFAULT_BODY_LIMITS: BodyLimits = {
  conversations: 1 * MB,
  speech: 64 * KB,
  transcription: 25 * MB,
  ocr: 50 * MB,
};

/**
 * The default route table. Transcription and OCR are already listed (the local platform answers
 * them 404 today); further operations are added by passing more rows to `createRelay({ routes })`.
 */
export function defaultRoutes(limits: BodyLimits = DEFAULT_BODY_LIMITS): RelayRoute[] {
  const conversationBody = { kind: 'json' as const, maxBytes: limits.conversations };
  return [
    { name: 'conversations.start', method: 'POST', path: '/v1/conversations', scope: 'conversations', body: conversationBody,
      conversation: 'creates', checkBody: { agent: 'agent_id', model: 'model' }, streamFromBody: true, streamErrorEvent: 'conversation' },
    { name: 'conversations.list', method: 'GET', path: '/v1/conversations', scope: 'conversations',
      query: ['page', 'page_size', 'metadata'], special: 'list-conversations' },
    { name: 'conversations.get', method: 'GET', path: '/v1/conversations/{conversation_id}', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.delete', method: 'DELETE', path: '/v1/conversations/{conversation_id}', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.append', method: 'POST', path: '/v1/conversations/{conversation_id}', scope: 'conversations', body: conversationBody,
      conversation: 'owned', streamFromBody: true, streamErrorEvent: 'conversation' },
    { name: 'conversations.restart', method: 'POST', path: '/v1/conversations/{conversation_id}/restart', scope: 'conversations', body: conversationBody,
      conversation: 'owned+creates', streamFromBody: true, streamErrorEvent: 'conversation' },
    { name: 'conversations.history', method: 'GET', path: '/v1/conversations/{conversation_id}/history', scope: 'conversations', conversation: 'owned' },
    { name: 'conversations.messages', method: 'GET', path: '/v1/conversations/{conversation_id}/messages', scope: 'conversations', conversation: 'owned' },
    { name: 'agents.get', method: 'GET', path: '/v1/agents/{agent_id}', scope: 'agents:read', query: ['agent_version'], checkParam: { agent: 'agent_id' } },
    { name: 'models.list', method: 'GET', path: '/v1/models', scope: 'models:read', query: ['provider', 'model'], special: 'list-models' },
    { name: 'models.get', method: 'GET', path: '/v1/models/{model_id}', scope: 'models:read', checkParam: { model: 'model_id' } },
    { name: 'voices.list', method: 'GET', path: '/v1/audio/voices', scope: 'speech', query: ['limit', 'offset', 'type'] },
    // Extension rows: transcription and OCR are answered 404 by the local platform today.
    { name: 'speech.create', method: 'POST', path: '/v1/audio/speech', scope: 'speech', body: { kind: 'json', maxBytes: limits.speech },
      checkBody: { model: 'model' }, streamFromBody: true },
    { name: 'transcription.create', method: 'POST', path: '/v1/audio/transcriptions', scope: 'transcription',
      body: { kind: 'multipart', maxBytes: limits.transcription } },
    { name: 'ocr.process', method: 'POST', path: '/v1/ocr', scope: 'ocr', body: { kind: 'json', maxBytes: limits.ocr }, checkBody: { model: 'model' } },
  ];
}

/** Path parameters: letters, digits, `_`, `-`, and (for model names) `.` and `:`; must start with a letter or digit. */
const PARAM_PATTERNS: Record<string, RegExp> = {
  conversation_id: /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/,
  agent_id: /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/,
  model_id: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/,
};
const DEFAULT_PARAM_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

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
  segments: Array<{ literal: string } | { param: string }>;
}

/** A matcher over a route table. */
export interface RouteTable {
  readonly routes: readonly RelayRoute[];
  /** Matches a clean path (see {@link isCleanPath}) under the base path, e.g. `/v1/conversations`. */
  match(method: string, path: string): RouteMatch;
  /** Methods routable on a path (for CORS preflight and 405), empty when the path is unknown. */
  methodsFor(path: string): string[];
}

/** Compiles a route table into a matcher. */
export function createRouteTable(routes: RelayRoute[]): RouteTable {
  const compiled: CompiledRoute[] = routes.map((route) => ({
    route,
    segments: route.path.split('/').slice(1).map((s) => {
      const m = /^\{([a-z_]+)\}$/.exec(s);
      return m ? { param: m[1]! } : { literal: s };
    }),
  }));

  const matchPath = (path: string) => {
    if (!isCleanPath(path)) return [];
    const parts = path.split('/').slice(1);
    const found: Array<{ route: RelayRoute; params: Record<string, string> }> = [];
    for (const c of compiled) {
      if (c.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = c.segments.every((seg, i) => {
        const part = parts[i]!;
        if ('literal' in seg) return seg.literal === part;
        if (!(PARAM_PATTERNS[seg.param] ?? DEFAULT_PARAM_PATTERN).test(part)) return false;
        params[seg.param] = part;
        return true;
      });
      if (ok) found.push({ route: c.route, params });
    }
    return found;
  };

  return {
    routes,
    match(method, path) {
      const found = matchPath(path);
      if (!found.length) return { kind: 'none' };
      // A literal segment beats a parameter (e.g. `/v1/models` vs a future `/v1/models/{id}`): prefer fewer params.
      const forMethod = found
        .filter((f) => f.route.method === method)
        .sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length)[0];
      if (forMethod) return { kind: 'route', route: forMethod.route, params: forMethod.params };
      return { kind: 'wrong-method', allow: [...new Set(found.map((f) => f.route.method))] };
    },
    methodsFor(path) {
      return [...new Set(matchPath(path).map((f) => f.route.method))];
    },
  };
}

/** The upstream URL of a matched route: the fixed base plus the template filled with encoded parameters and the allowed query. */
export function upstreamUrl(baseUrl: string, route: RelayRoute, params: Record<string, string>, query: URLSearchParams): URL {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  url.pathname = prefix + path;
  url.search = '';
  url.hash = '';
  for (const name of route.query ?? []) {
    for (const value of query.getAll(name)) url.searchParams.append(name, value);
  }
  return url;
}
