/**
 * Watching the platform: every request gets a request id (a caller's sane `X-Request-Id`, the relay's for
 * instance, or a new UUID) answered as `X-Request-Id`, is counted in the Prometheus metrics by route pattern
 * (never the raw path), method and status with its duration, and, with `accessLog`, written as one JSON line.
 * The line holds no path, query, header value, key or body.
 *
 *   {"time":"…","request_id":"…","method":"POST","route":"/v1/conversations","status":200,"duration_ms":35.2}
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { requestIdFrom } from 'parley-kit/server';

/** The platform's metrics registry and what the middleware records in it. */
export interface PlatformMetrics {
  readonly registry: Registry;
  request(route: string, method: string, status: number, seconds: number): void;
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A registry of its own per platform (several platforms may share a process: tests). */
export function createPlatformMetrics(): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'parley_platform_requests_total', help: 'Requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'], registers: [registry],
  });
  const duration = new Histogram({
    name: 'parley_platform_request_duration_seconds', help: "Time until the answer's head, by route pattern and method",
    labelNames: ['route', 'method'], buckets: DURATION_BUCKETS, registers: [registry],
  });
  return {
    registry,
    request(route, method, status, seconds) {
      requests.labels(route, method, String(status)).inc();
      duration.labels(route, method).observe(seconds);
    },
  };
}

/** The middleware (first of all, so refusals by the auth middleware are counted too). */
export function watchRequests(metrics: PlatformMetrics, accessLog?: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    // The admin API's alias dispatches to `/v1/admin/…` again: counted and logged there.
    if (c.req.path.startsWith('/api/admin/')) return next();
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header('x-request-id'));
    await next();
    setHeader(c, 'x-request-id', requestId);
    const seconds = (performance.now() - started) / 1000;
    const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const route = routeOf(c);
    metrics.request(route, method, c.res.status, seconds);
    if (accessLog) {
      accessLog(`${JSON.stringify({
        time: new Date().toISOString(), request_id: requestId, method, route, status: c.res.status, duration_ms: Math.round(seconds * 100_000) / 100,
      })}\n`);
    }
  };
}

/** The matched route's pattern (`/v1/conversations/:conversation_id`), or `unmatched` when only middleware matched. */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  const last = routes[routes.length - 1];
  if (!last || (c.res.status === 404 && last.method === 'ALL')) return 'unmatched';
  return last.path;
}

/** Sets a header on the answer, copying it first when its headers are immutable (a fetched response). */
function setHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}
