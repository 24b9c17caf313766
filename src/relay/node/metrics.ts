/**
 * `parley-kit/relay/metrics`: the relay's Prometheus metrics (prom-client), in a registry of their own, and the
 * metrics port. Apart from `parley-kit/relay` so that prom-client loads only for those who ask:
 * `serveRelay(relay, { watch: { metrics, accessLog } })`, then `serveMetrics(() => metrics.scrape(), { port })`. Labels are bounded: route names
 * come from the route table (never raw paths), statuses are HTTP codes, reasons a fixed list (watch.ts).
 * Children are cached per label set, so a request costs a few map lookups and additions.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration } from 'prom-client';
import { REFUSAL_REASONS } from '../watch.js';

export { serveMetrics, type ServedMetrics } from './metrics-server.js';

/** The relay's own time per request (until the answer's head), seconds: around Node's floor up to a slow check. */
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Time waiting for the upstream's answer head, seconds. */
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The metrics of one relay process. */
export interface RelayMetrics {
  readonly registry: Registry;
  /** One answered request: its route and status, the relay's own and the upstream's time (ms; upstream 0 = none). */
  request(route: string, status: number, ownMs: number, upstreamMs: number): void;
  refusal(reason: string): void;
  session(kind: string): void;
  resume(): void;
  redisError(): void;
  bytes(inBytes: number, outBytes: number): void;
  /** +1 when a stream (SSE answer) or realtime socket opens, -1 when it ends. */
  openStreams(delta: number): void;
  openSockets(delta: number): void;
  /** The Prometheus text format and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** Creates the metrics, with Node's process metrics (`process_*`, `nodejs_*`: memory, CPU, event-loop lag). */
export function createRelayMetrics(): RelayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>) => new Counter<L>({ ...config, registers: [registry] });
  const requests = counter({ name: 'parley_relay_requests_total', help: 'Requests answered, by route name and status', labelNames: ['route', 'status'] });
  const overhead = new Histogram({
    name: 'parley_relay_overhead_seconds', help: "The relay's own time per request until the answer's head, the upstream's wait excluded",
    labelNames: ['route'], buckets: OVERHEAD_BUCKETS, registers: [registry],
  });
  const upstream = new Histogram({
    name: 'parley_relay_upstream_seconds', help: "Time waiting for the upstream's answer head, per request that called it",
    labelNames: ['route'], buckets: UPSTREAM_BUCKETS, registers: [registry],
  });
  const refusals = counter({ name: 'parley_relay_refusals_total', help: 'Requests the relay refused by itself, by reason', labelNames: ['reason'] });
  const sessions = counter({ name: 'parley_relay_sessions_total', help: 'Session tokens minted, by kind (new, resume, refresh)', labelNames: ['kind'] });
  const resumes = counter({ name: 'parley_relay_resumes_total', help: 'Relayed replies resumed from Last-Event-ID' });
  const redisErrors = counter({ name: 'parley_relay_redis_errors_total', help: 'Redis commands that failed or timed out (each answered 503)' });
  const bytes = counter({ name: 'parley_relay_bytes_total', help: 'Bytes on client connections, in (from clients) and out (to clients), realtime sockets included', labelNames: ['direction'] });
  const streams = new Gauge({ name: 'parley_relay_open_streams', help: 'Event streams (SSE answers) open now', registers: [registry] });
  const sockets = new Gauge({ name: 'parley_relay_open_sockets', help: 'Realtime WebSockets open now', registers: [registry] });
  // Every reason and kind shows from the start (at 0), so alerts on rates see the series before the first one.
  for (const reason of REFUSAL_REASONS) refusals.labels(reason).inc(0);
  for (const kind of ['new', 'resume', 'refresh']) sessions.labels(kind).inc(0);
  const bytesIn = bytes.labels('in');
  const bytesOut = bytes.labels('out');

  const byRoute = new Map<string, { overhead: Histogram.Internal<'route'>; upstream: Histogram.Internal<'route'>; status: Map<number, Counter.Internal> }>();
  const childrenOf = (route: string) => {
    let children = byRoute.get(route);
    if (!children) {
      children = { overhead: overhead.labels(route), upstream: upstream.labels(route), status: new Map() };
      byRoute.set(route, children);
    }
    return children;
  };
  return {
    registry,
    request(route, status, ownMs, upstreamMs) {
      const children = childrenOf(route);
      let count = children.status.get(status);
      if (!count) {
        count = requests.labels(route, String(status));
        children.status.set(status, count);
      }
      count.inc();
      children.overhead.observe(ownMs / 1000);
      if (upstreamMs > 0) children.upstream.observe(upstreamMs / 1000);
    },
    refusal: (reason) => refusals.labels(reason).inc(),
    session: (kind) => sessions.labels(kind).inc(),
    resume: () => resumes.inc(),
    redisError: () => redisErrors.inc(),
    bytes(inBytes, outBytes) {
      if (inBytes > 0) bytesIn.inc(inBytes);
      if (outBytes > 0) bytesOut.inc(outBytes);
    },
    openStreams: (delta) => streams.inc(delta),
    openSockets: (delta) => sockets.inc(delta),
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
