/**
 * `parley-relay`: the token relay alone, in front of a platform, for a site's backend.
 * Settings come from flags, the environment and a JSON file (config.ts); the platform key comes from
 * PLATFORM_API_KEY (or the file) and never leaves this process.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { RelayConfigError, describeRelayConfig, redactUrl, relayCliOptions, relayHelp, relayOptionsOf, resolveRelayConfig, type RelayConfig } from './config.js';
import { createRelay, type RelayOptions } from './relay.js';
import { serveRelay } from './node/node.js';
import type { RedisStateStore } from './state/redis-store.js';
import type { RelayMetrics } from './node/metrics.js';
import { startupWarnings } from './startup-checks.js';

/** The options; a mistyped one ends the process with the help text. */
function parseCommandLine(argv: string[], name: string) {
  try {
    return parseArgs({ args: argv, options: relayCliOptions(), strict: true, allowPositionals: false });
  } catch (err) {
    fail(name, `${(err as Error).message}\n\n${relayHelp(name)}`);
  }
}

/** Runs the relay command with `argv` (the arguments after the command name). */
export async function runRelayCli(argv: string[], name = 'parley-relay'): Promise<void> {
  const { values } = parseCommandLine(argv, name);
  if (values.help) {
    process.stdout.write(relayHelp(name));
    return;
  }
  let config: RelayConfig;
  let options: RelayOptions;
  try {
    config = resolveRelayConfig({ flags: values, env: process.env, readFile: (path) => readFileSync(path, 'utf8') });
    options = relayOptionsOf(config);
  } catch (err) {
    if (err instanceof RelayConfigError) fail(name, err.message);
    throw err;
  }
  const warn = (message: string) => process.stderr.write(`${name}: warning: ${message}\n`);
  for (const warning of startupWarnings(config)) warn(warning);
  // prom-client is loaded only when metrics are asked for.
  const metrics = config.metricsPort === undefined ? undefined : (await import('./node/metrics.js')).createRelayMetrics();
  const store = config.redisUrl ? await redisStore(name, config.redisUrl, metrics) : undefined;
  let relay;
  try {
    relay = createRelay({ ...options, ...(store ? { store } : {}), onWarning: warn });
  } catch (err) {
    fail(name, (err as Error).message.replace(/^relay: /, ''));
  }
  const server = await serveRelay(relay, {
    port: config.port, hostname: config.host,
    watch: { metrics, accessLog: config.accessLog ? (line) => process.stdout.write(line) : undefined, logAddresses: config.logAddresses },
  });
  const metricsServer = metrics && await serveMetricsOrFail(name, metrics, config);
  const storeLine = config.redisUrl ? `Redis ${redactUrl(config.redisUrl)} (shared by every instance on it)` : 'in memory (this process only; set --redis or REDIS_URL for several instances)';
  process.stdout.write([
    `Parley relay: ${server.url}   (sessions: POST ${server.url}/session; platform paths under ${server.url}/v1, realtime WebSocket included)`,
    ...describeRelayConfig(config, storeLine),
    config.relaySecret ? '' : '  secret         random for this process (set PARLEY_RELAY_SECRET to keep tokens valid across restarts and instances)',
    `  health         ${server.url}/healthz, ${server.url}/readyz`,
    `  metrics        ${metricsServer ? `${metricsServer.url}/metrics` : '(off: set --metrics-port to serve Prometheus metrics)'}`,
    `  access log     ${config.accessLog ? `on, one JSON line per request on stdout${config.logAddresses ? ', with client addresses' : ''}` : '(off: set --access-log)'}`,
  ].filter(Boolean).join('\n') + '\n');
  // Graceful restart (drain.ts): a second signal ends what is left at once.
  const hurry = new AbortController();
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return hurry.abort();
    stopping = true;
    process.stdout.write(`${name}: ${signal}: draining (open replies and sockets get up to ${config.drainTimeoutSeconds} s; send it again to stop at once)\n`);
    const report = await server.drain({ timeoutMs: config.drainTimeoutSeconds * 1000, signal: hurry.signal });
    await metricsServer?.close();
    await store?.close();
    process.stdout.write(`${name}: drained (${report.handedOver} repl${report.handedOver === 1 ? 'y' : 'ies'} handed over to other instances, ${report.endedAtDeadline} ended at the deadline)\n`);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** The Redis state store (redis-store.ts and `@redis/client`, loaded only when asked for); unreachable → exit 2. */
async function redisStore(name: string, url: string, metrics: RelayMetrics | undefined): Promise<RedisStateStore> {
  const { createRedisStateStore } = await import('./state/redis-store.js');
  try {
    return await createRedisStateStore({ url, ...(metrics ? { onCommandError: () => metrics.redisError() } : {}) });
  } catch (err) {
    fail(name, `cannot use Redis at ${redactUrl(url)}: ${(err as Error).message}`);
  }
}

/** The metrics port (node/metrics-server.ts); a port that cannot be bound → exit 2. */
async function serveMetricsOrFail(name: string, metrics: RelayMetrics, config: RelayConfig) {
  const { serveMetrics } = await import('./node/metrics-server.js');
  try {
    return await serveMetrics(() => metrics.scrape(), { port: config.metricsPort, hostname: config.metricsHost });
  } catch (err) {
    fail(name, `cannot serve metrics on ${config.metricsHost}:${config.metricsPort}: ${(err as Error).message}`);
  }
}

function fail(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(2);
}
