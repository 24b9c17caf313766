/**
 * The platform's probes, answered before the app (and before the database is open):
 *
 *   GET /healthz  200 `{"status":"ok"}`: the process answers (liveness; nothing else is asked).
 *   GET /readyz   200 `{"status":"ready","checks":{"database":"ok"}}` once the database is open and answers
 *                 `select 1` within 2 s; else 503 in the error shape, code `not_ready`, naming the check that failed.
 *                 Checked at most once per second whatever the probe rate.
 *   GET /metrics  Prometheus text format (watch.ts), with `Authorization: Bearer <admin key>` (the API key when
 *                 no admin key is set); without it 401.
 */
import { requestIdFrom } from 'parley-kit/server';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.js';
import { genericError } from './errors.js';
import type { PlatformMetrics } from './watch.js';

const CHECK_TIMEOUT_MS = 2_000;
const CHECK_REUSE_MS = 1_000;
const JSON_HEADERS = { 'content-type': 'application/json' };

export interface ProbeOptions {
  /** The database once open (undefined before). */
  db: () => Db | undefined;
  metrics: PlatformMetrics;
  /** The key `/metrics` asks for. */
  metricsKey: string;
}

/** Answers a probe path, or returns undefined for any other request. */
export function createProbes(options: ProbeOptions): (request: Request) => Promise<Response> | undefined {
  const expected = digest(options.metricsKey);
  let last: { at: number; ok: Promise<boolean> } | undefined;
  const databaseAnswers = (): Promise<boolean> => {
    const now = performance.now();
    if (last && now - last.at < CHECK_REUSE_MS) return last.ok;
    const db = options.db();
    const ok = db && !db.closed ? bounded(db.query('select 1')).then(() => true, () => false) : Promise.resolve(false);
    last = { at: now, ok };
    return ok;
  };
  return (request) => {
    const path = probePath(request.url);
    if (!path) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return Promise.resolve(errorAnswer(genericError(405, 'Method not allowed', 'invalid_request_error', 'method_not_allowed'), { allow: 'GET, HEAD' }));
    }
    if (path === '/healthz') return Promise.resolve(new Response('{"status":"ok"}', { headers: JSON_HEADERS }));
    if (path === '/readyz') {
      return databaseAnswers().then((ok) => ok
        ? new Response(JSON.stringify({ status: 'ready', checks: { database: 'ok' } }), { headers: JSON_HEADERS })
        : errorAnswer(genericError(503, 'Not ready: the database cannot be reached', 'server_error', 'not_ready'), { 'retry-after': '1' }, { checks: { database: 'failed' } }));
    }
    const token = /^Bearer +(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!token || !timingSafeEqual(digest(token), expected)) {
      return Promise.resolve(errorAnswer(genericError(401, 'The metrics need the admin key: Authorization: Bearer <key>', 'authentication_error', 'unauthorized')));
    }
    return options.metrics.registry.metrics().then((body) => new Response(body, { headers: { 'content-type': options.metrics.registry.contentType, 'cache-control': 'no-store' } }));
  };
}

/** `answer` with the request's `X-Request-Id` (its own when sane, else a new UUID), as every other answer has. */
export function withRequestId(answer: Response, request: Request): Response {
  answer.headers.set('x-request-id', requestIdFrom(request.headers.get('x-request-id')));
  return answer;
}

function probePath(url: string): string | undefined {
  // Cheap test first: most requests are not probes.
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  const path = end === -1 ? url.slice(start) : url.slice(start, end);
  return path === '/healthz' || path === '/readyz' || path === '/metrics' ? path : undefined;
}

function errorAnswer(error: ReturnType<typeof genericError>, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Response {
  return new Response(JSON.stringify({ ...error.body, ...extra }), { status: error.status, headers: { ...JSON_HEADERS, ...error.headers, ...headers } });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
