/**
 * The `parley` command (what `npm start` runs):
 *   parley start     local platform + relay + demo pages on one port
 *   parley platform  the local platform only (offline development, SDK tests)
 *   parley relay     the token relay only (the same as parley-kit's `parley-relay`)
 */
import { parseArgs } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { createPlatform, type Platform } from './app.js';
import { redactDatabaseUrl } from './store/pg.js';
import { createAssetHandler } from './demo/assets.js';
import { REALTIME_TRANSCRIPTION_PATH } from './realtime/endpoint.js';
import { serveFetch, within, type NodeIncoming } from 'parley-kit/server';
import type { Relay, RelayPolicy } from 'parley-kit/relay';
import { DEFAULT_MODELS, DEFAULT_REALTIME_MODEL } from 'parley-kit/client';
import { ensureAgentLibrary, ensureDemoAgents, ensureDemoConnector } from './demo/agents.js';
import { DEMO_LIBRARY_NAME, ensureDemoLibrary, readShopPages, shopPage } from './demo/library.js';
import { ensureFeedbackDataset } from './demo/feedback-dataset.js';
import type { DemoMcpServer } from './demo-mcp/server.js';
import { SERVER_LIMIT_SETTINGS, serverLimitsFrom, servingOptions } from './http/server-limits.js';

const DEV_API_KEY = 'parley-dev-key';
const DEV_ADMIN_KEY = 'parley-dev-admin-key';
/** parley-kit's package folder: its browser bundle (dist/browser) and demo pages are what `start` serves. */
const KIT_ROOT = dirname(createRequire(import.meta.url).resolve('parley-kit/package.json'));

const HELP = `Usage: parley <command> [options]

Commands:
  start      local platform, relay (/api), demo pages on one port, and the demo MCP server (what npm start runs)
  platform   the local platform only: the platform HTTP API under /v1
  relay      the token relay only, in front of a platform (parley-kit's parley-relay; see parley relay --help)

Options:
  --port <n>            port (start: PORT or 8787, platform: 8788; 0 picks a free one)
  --host <addr>         address to bind (default 127.0.0.1)
  --data <dir>          local platform database directory (default .parley/)
  --database-url <url>  run the local platform on a PostgreSQL server (postgres://user:password@host:5432/db) instead
                        of the embedded database in --data; several processes on one database share one platform
  --token-delay <ms>    pause between streamed tokens of the local model (start: 25, platform: 0)
  --max-file-bytes <n>  largest file POST /v1/files takes (default 536870912, 512 MB as the real service); it
                        streams to storage, so a large cap costs no memory
  --headers-timeout <s> time to receive a request's headers (default 20)
  --body-idle-timeout <s>  a request body that sends no byte for this long gets a 408 and is closed (default 30)
  --request-timeout <s> a request body still arriving after this long at under 16 KiB/s gets a 408 (default 300;
                        an upload that keeps sending is never cut, nor an answer that has started)
  --allow-origin <url>  start: a page origin (https://shop.example) that may use the relay from another site
                        (repeatable; the server's own pages always may; the /assets bundles load from anywhere)
  --public-origin <url> start: the origin visitors use to reach this server when it is not localhost or an IP
                        address (e.g. http://devbox.lan:8787); its own pages are judged same-origin against it
  --access-log          platform: one JSON line per request on stdout (request id, route, status, duration)
  --drain-timeout <s>   on SIGTERM or SIGINT, seconds open requests and replies get to end before the process
                        stops (default 10; a second signal stops at once)
  -h, --help            this text

Environment:
  PLATFORM_API_KEY      the real platform's key: start and relay use the real platform instead of the local one
  PLATFORM_BASE_URL     the real platform's base URL (default https://api.mistral.ai)
  PARLEY_API_KEY        key of the local platform (default ${DEV_API_KEY})
  PARLEY_ADMIN_KEY      admin key of the local platform (default ${DEV_ADMIN_KEY})
  DATABASE_URL          like --database-url (the option wins)
  PARLEY_ALLOWED_ORIGINS start: more origins like --allow-origin, comma-separated
  PARLEY_PUBLIC_ORIGIN  start: like --public-origin
  PARLEY_ACCESS_LOG     platform: like --access-log (true or false)
  PARLEY_RELAY_SECRET   relay token signing secret, 32+ bytes (start keeps one in the data dir; relay makes one per process)
  PARLEY_AGENT_ID       start with a real platform: the agent the demo talks to (else PARLEY_MODEL or mistral-small-latest)
  PARLEY_CHAT_URL       an OpenAI-compatible server (Ollama, llama.cpp) served as an extra local chat model
  PARLEY_CHAT_MODEL     that server's model name; PARLEY_CHAT_API_KEY its key
  PARLEY_HEADERS_TIMEOUT, PARLEY_BODY_IDLE_TIMEOUT, PARLEY_REQUEST_TIMEOUT  like the flags (seconds)
  PARLEY_MAX_FILE_BYTES like --max-file-bytes
  PARLEY_DRAIN_TIMEOUT  like --drain-timeout
`;

type Values = { port?: string; host: string; data: string; 'database-url'?: string; 'token-delay'?: string; 'allow-origin'?: string[]; 'public-origin'?: string; 'access-log'?: boolean; help?: boolean; [timeout: string]: unknown };

/** The options and the command; a mistyped option ends the process with the help text. */
function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string', default: '.parley' },
        'database-url': { type: 'string' },
        'token-delay': { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'public-origin': { type: 'string' },
        'access-log': { type: 'boolean' },
        'max-file-bytes': { type: 'string' },
        'drain-timeout': { type: 'string' },
        ...Object.fromEntries(SERVER_LIMIT_SETTINGS.map((s) => [s.flag, { type: 'string' as const }])),
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n\n${HELP}`);
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'relay') {
    const { runRelayCli } = await import('parley-kit/relay-cli');
    return runRelayCli(argv.slice(1), 'parley relay');
  }
  const { values, positionals } = parseCommandLine(argv);
  const command = positionals[0];
  if (values.help || !command) {
    process.stdout.write(HELP);
    process.exitCode = command || values.help ? 0 : 1;
    return;
  }
  if (command === 'platform') return runPlatform(values);
  if (command === 'start') return runStart(values);
  process.stderr.write(`parley: unknown command '${command}'\n\n${HELP}`);
  process.exitCode = 2;
}

function localPlatform(values: Values, defaultDelay: number): { platform: Platform; apiKey: string; notes: string[]; dataDir: string } {
  const apiKey = process.env.PARLEY_API_KEY || DEV_API_KEY;
  const adminKey = process.env.PARLEY_ADMIN_KEY || DEV_ADMIN_KEY;
  const dataDir = resolve(values.data);
  const databaseUrl = values['database-url'] || process.env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) fail(`--database-url needs a postgres:// or postgresql:// URL, got '${redactDatabaseUrl(databaseUrl)}'`);
  const platform = createPlatform({
    apiKey, adminKey, dataDir, databaseUrl,
    // The CLI says why the database could not be opened itself (see ready below).
    onError: (e) => { if (!isOpenError(e)) console.error('[parley platform]', e); },
    tokenDelayMs: parseNumber('--token-delay', values['token-delay'] ?? String(defaultDelay)),
    maxFileBytes: maxFileBytes(values),
    chatUrl: process.env.PARLEY_CHAT_URL || undefined,
    chatModel: process.env.PARLEY_CHAT_MODEL || undefined,
    chatApiKey: process.env.PARLEY_CHAT_API_KEY || undefined,
    ...(values['access-log'] || /^(true|1|yes)$/i.test(process.env.PARLEY_ACCESS_LOG ?? '') ? { accessLog: (line: string) => process.stdout.write(line) } : {}),
  });
  const notes = [databaseUrl ? `  database       ${redactDatabaseUrl(databaseUrl)}` : `  data           ${dataDir}`];
  if (!process.env.PARLEY_API_KEY) notes.push(`  API key        ${apiKey}   (dev default; set PARLEY_API_KEY to change)`);
  if (!process.env.PARLEY_ADMIN_KEY) notes.push(`  admin key      ${adminKey}   (dev default; set PARLEY_ADMIN_KEY to change)`);
  return { platform, apiKey, notes, dataDir };
}

async function runPlatform(values: Values): Promise<void> {
  const drain = drainSeconds(values);
  const { platform, notes } = localPlatform(values, 0);
  await readyOrExit(platform);
  const server = await serveFetch(platform.fetch, { port: parseNumber('--port', values.port ?? '8788'), hostname: values.host, upgrade: [platform.handleUpgrade], ...serving(values) });
  process.stdout.write([
    `Parley local platform: ${server.url}/v1`,
    `  realtime       ${server.url.replace(/^http/, 'ws')}${REALTIME_TRANSCRIPTION_PATH}?model=${DEFAULT_REALTIME_MODEL}`,
    `  API base URL   ${server.url}   (SDK: new Mistral({ serverURL: '${server.url}', apiKey }))`,
    `  health         ${server.url}/healthz, ${server.url}/readyz; Prometheus metrics at ${server.url}/metrics with the admin key`,
    ...notes,
  ].join('\n') + '\n');
  // Graceful stop: no new connections; requests under way (a streamed reply, an upload) get the drain time to end.
  onStop(drain, async (timeoutMs, hurry) => {
    const ended = await within(server.stopListening(), timeoutMs, hurry);
    await server.close();
    await platform.close();
    return ended ? 'every open request ended' : 'requests still open at the deadline were cut';
  });
}

async function runStart(values: Values): Promise<void> {
  const drain = drainSeconds(values);
  const port = parseNumber('--port', values.port ?? process.env.PORT ?? '8787');
  const browserDir = join(KIT_ROOT, 'dist/browser');
  if (!existsSync(join(browserDir, 'agent-chat.js'))) fail(`the browser bundle is missing (${browserDir}); run \`npm run build\` first`);

  // Loaded here, not at the top: `parley platform` runs without them (its memory at rest, issue 26).
  const { createRelay, drainServed, nodeRelayEnv, upgradeUnlessDraining } = await import('parley-kit/relay');
  const { startDemoMcpServer } = await import('./demo-mcp/server.js');
  const { playgroundConfig } = await import('./demo/playground.js'); // it reads parley-kit/relay's scopes: not for `parley platform`
  const allowedOrigins = allowOrigins(values);
  const publicOrigin = publicOriginOf(values);
  const realKey = process.env.PLATFORM_API_KEY;
  // The relay reaches the local platform's WebSocket over loopback, at this server's own URL (known once listening).
  let ownUrl = '';
  let platform: Platform | undefined;
  let localKey = '';
  let demoMcp: DemoMcpServer | undefined;
  let relay: Relay;
  let demo: { agentId?: string; model?: string; ordersAgentId?: string };
  const lines: string[] = [];
  if (realKey) {
    const baseUrl = process.env.PLATFORM_BASE_URL || 'https://api.mistral.ai';
    const agentId = process.env.PARLEY_AGENT_ID || undefined;
    demo = agentId ? { agentId } : { model: process.env.PARLEY_MODEL || 'mistral-small-latest' };
    relay = createRelay({
      upstream: { baseUrl, apiKey: realKey }, basePath: '/api', secret: relaySecret(resolve(values.data)), allowedOrigins, publicOrigin,
      policy: demoPolicy(demo.agentId ? [demo.agentId] : [], demo.model ? [demo.model] : []),
      // The demo's document viewer reads pasted https URLs: the platform fetches them (its own allowlist decides).
      allowRemoteFiles: true,
      // Visitors' ratings go to this dataset of the real platform when it is named.
      ...(process.env.PARLEY_FEEDBACK_DATASET ? { feedback: { datasetId: process.env.PARLEY_FEEDBACK_DATASET } } : {}),
    });
    lines.push(`  upstream       ${baseUrl} (PLATFORM_API_KEY is set; the key stays in this process)`);
  } else {
    const local = localPlatform(values, 25);
    platform = local.platform;
    localKey = local.apiKey;
    await readyOrExit(platform);
    const agents = await ensureDemoAgents(platform.fetch, local.apiKey);
    // The order-status MCP server behind the demo connector: loopback, a free port each start.
    demoMcp = await startDemoMcpServer({ port: 0, hostname: '127.0.0.1' });
    const orders = await ensureDemoConnector(platform.fetch, local.apiKey, demoMcp.url);
    const feedbackDataset = await ensureFeedbackDataset(platform.fetch, local.apiKey);
    demo = { agentId: agents.shopAgentId, ordersAgentId: orders.ordersAgentId };
    relay = createRelay({
      upstream: { baseUrl: 'http://local-platform', apiKey: local.apiKey, fetch: platform.fetch, webSocketBaseUrl: () => ownUrl.replace(/^http/, 'ws') },
      basePath: '/api', secret: relaySecret(local.dataDir), allowedOrigins, publicOrigin,
      policy: demoPolicy([agents.shopAgentId, agents.billingAgentId, orders.ordersAgentId], ['parley-local', 'parley-espeak', 'parley-pocketsphinx', 'parley-ocr']),
      allowRemoteFiles: true,
      feedback: { datasetId: feedbackDataset },
    });
    lines.push('  upstream       the local platform (in this process)', ...local.notes,
      `  feedback       ratings of replies become records of dataset "Chat feedback" ${feedbackDataset}`,
      `  platform API   http://${values.host}:<port>/v1 (for the SDK, with the API key above)`,
      `  demo agents    "Lumen assistant" ${agents.shopAgentId}   "Billing" ${agents.billingAgentId}   "Order tracker" ${orders.ordersAgentId}`,
      `                 (<agent-chat agent-id="…"> on these pages; the relay's policy allows these three)`,
      `  demo MCP       ${demoMcp.url}   (connector lumen_orders ${orders.connectorId}; agent "Order tracker" ${orders.ordersAgentId})`);
  }

  const app = new Hono<{ Bindings: { incoming: NodeIncoming } }>();
  app.all('/api/*', (c) => relay.fetch(c.req.raw, nodeRelayEnv(c.env.incoming)));
  if (platform) {
    const p = platform;
    app.all('/v1/*', (c) => p.fetch(c.req.raw));
  }
  // Probes at the root too, where load balancers ask: the relay's, which also ask the platform behind it.
  for (const probe of ['healthz', 'readyz']) {
    app.get(`/${probe}`, (c) => relay.fetch(new Request(new URL(`/api/${probe}`, c.req.url), { headers: c.req.raw.headers }), { clientIp: c.env.incoming.socket.remoteAddress }));
  }
  app.get('/demo-config.json', (c) => c.json(demo));
  // The playground (demo/playground.html) builds its controls from the manifest and writes a runnable relay command.
  const manifest = readFileSync(join(KIT_ROOT, 'custom-elements.json'), 'utf8');
  app.get('/custom-elements.json', (c) => c.body(manifest, 200, { 'content-type': 'application/json; charset=utf-8' }));
  app.get('/playground-config.json', (c) => c.json(playgroundConfig({
    version: (JSON.parse(readFileSync(join(KIT_ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    ...(realKey ? { real: { baseUrl: process.env.PLATFORM_BASE_URL || 'https://api.mistral.ai' } } : {}),
    serverUrl: publicOrigin ?? ownUrl, devKey: localKey === DEV_API_KEY ? DEV_API_KEY : undefined, demo,
  })));
  app.get('/playground', serveStatic({ path: relativeToCwd(join(KIT_ROOT, 'demo/playground.html')) }));
  // The shop's pages (what the shop agent's library holds and its replies cite), as text.
  const pages = readShopPages(join(KIT_ROOT, 'demo/shop-pages'));
  app.get('/shop/:page', (c) => {
    const page = shopPage(pages, c.req.param('page'));
    return page ? c.text(page.markdown, 200, { 'content-type': 'text/plain; charset=utf-8' }) : c.notFound();
  });
  const assets = createAssetHandler({ root: browserDir });
  app.all('/assets/*', (c) => assets(c.req.raw, new URL(c.req.url).pathname.slice('/assets/'.length)));
  // The reference site `npm run docs` writes into dist/docs (its element pages load the bundles from ../assets/).
  app.get('/docs', (c) => c.redirect('/docs/'));
  app.use('/docs/*', serveStatic({ root: relativeToCwd(join(KIT_ROOT, 'dist')) }));
  app.use('/*', serveStatic({ root: relativeToCwd(join(KIT_ROOT, 'demo')) }));

  // While draining (SIGTERM), the relay refuses new realtime sockets with 503 as it refuses requests.
  let draining = false;
  const relayUpgrade = upgradeUnlessDraining(relay.handleUpgrade, () => draining);
  const server = await serveFetch(app.fetch, { port, hostname: values.host, upgrade: platform ? [relayUpgrade, platform.handleUpgrade] : [relayUpgrade], ...serving(values) });
  ownUrl = server.url;
  if (platform && demo.agentId) {
    // The shop's pages as the shop agent's library, linked at this server's address (loaded once, kept in step).
    const libraryId = await ensureDemoLibrary(platform.fetch, localKey, pages, publicOrigin ?? server.url);
    await ensureAgentLibrary(platform.fetch, localKey, demo.agentId, libraryId);
    lines.push(`  shop library   "${DEMO_LIBRARY_NAME}" ${libraryId}   (${pages.map((p) => `/shop/${p.slug}`).join(', ')}; the shop agent's document_library)`);
  }
  process.stdout.write([`Parley is running: ${server.url}/`, `  shop demo      ${server.url}/shop.html`, `  documents      ${server.url}/documents.html`, `  playground     ${server.url}/playground   (try the elements' settings; copy the embed code and relay command)`, ...(demo.ordersAgentId ? [`  order tracker  ${server.url}/orders.html   (tools over MCP)`] : []), `  relay          ${server.url}/api`,
    `  origins        ${[publicOrigin ?? server.url, ...allowedOrigins].join(', ')}   (pages that may use the relay; --allow-origin adds one${publicOrigin ? '' : '; by a host name other than localhost, set --public-origin'})`,
    `  CDN-style tag  <script type="module" src="${server.url}/assets/agent-chat.js"></script>`,
    ...lines.map((l) => l.replace('<port>', String(server.port)))].join('\n') + '\n');
  // Graceful stop, as parley-relay's (drain.ts): new relay requests get 503, replies under way get the drain time.
  onStop(drain, async (timeoutMs, hurry) => {
    draining = true;
    const report = await drainServed(server, relay, { timeoutMs, signal: hurry });
    await platform?.close();
    await demoMcp?.close();
    return report.endedAtDeadline ? `${report.endedAtDeadline} repl${report.endedAtDeadline === 1 ? 'y' : 'ies'} ended at the deadline` : 'every open reply ended';
  });
}

/** `--public-origin` or `PARLEY_PUBLIC_ORIGIN`, checked like an allowed origin; undefined when unset. */
function publicOriginOf(values: Values): string | undefined {
  const value = values['public-origin'] ?? (process.env.PARLEY_PUBLIC_ORIGIN?.trim() || undefined);
  return value === undefined ? undefined : originOf(value, '--public-origin', 'http://devbox.lan:8787');
}

/** `--allow-origin` values and `PARLEY_ALLOWED_ORIGINS`, checked: each must be a bare origin. */
function allowOrigins(values: Values): string[] {
  const fromEnv = (process.env.PARLEY_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  const origins = [...(values['allow-origin'] ?? []), ...fromEnv];
  return [...new Set(origins.map((origin) => originOf(origin, '--allow-origin', 'https://shop.example or http://localhost:3000')))];
}

/** `value` as a canonical origin; anything else (a path, another scheme) ends the process naming `flag`. */
function originOf(value: string, flag: string, example: string): string {
  if (!/^https?:\/\/[^/?#\s]+$/i.test(value) || !URL.canParse(value)) {
    fail(`${flag} needs an origin like ${example} (scheme, host, optional port; no path), got '${value}'`);
  }
  return new URL(value).origin;
}

/**
 * The demo relay's policy: the demo's agents, `models`, and every model the elements ask for when a page
 * names none (DEFAULT_MODELS, from the client itself, so the gallery's elements work as shipped).
 */
function demoPolicy(agents: string[], models: string[]): Partial<RelayPolicy> {
  // A chat turn costs several requests (stream, history sync, page tools, speech), so the demo's
  // per-session bucket is wider than the relay's default of 30 a minute.
  return {
    agents, models: [...new Set([...models, ...DEFAULT_MODELS])], scopes: ['conversations', 'agents:read', 'models:read', 'speech', 'transcription', 'ocr'],
    limits: { requestsPerMinute: 120, burst: 40, concurrentStreams: 4 },
  };
}

/** The relay secret of `parley start`: from the environment, else kept in the data dir so sessions survive a restart. */
function relaySecret(dataDir: string): string {
  if (process.env.PARLEY_RELAY_SECRET) return process.env.PARLEY_RELAY_SECRET;
  const file = join(dataDir, 'relay-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** serveStatic resolves `root` against the working directory. */
function relativeToCwd(path: string): string {
  const rel = path.startsWith(process.cwd()) ? path.slice(process.cwd().length + 1) : path;
  return rel || '.';
}

/**
 * On SIGTERM or SIGINT: `stop` gets the drain time (`--drain-timeout`, `PARLEY_DRAIN_TIMEOUT`, default 10 s) and a
 * signal that a second SIGTERM or SIGINT aborts (stop at once); then the process exits 0.
 */
function onStop(seconds: number, stop: (timeoutMs: number, hurry: AbortSignal) => Promise<string>): void {
  const hurry = new AbortController();
  let stopping = false;
  const handler = async (signal: NodeJS.Signals) => {
    if (stopping) return hurry.abort();
    stopping = true;
    process.stdout.write(`parley: ${signal}: stopping (open replies get up to ${seconds} s; send it again to stop at once)\n`);
    const said = await stop(seconds * 1000, hurry.signal);
    process.stdout.write(`parley: stopped (${said})\n`);
    process.exit(0);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** `--drain-timeout` or `PARLEY_DRAIN_TIMEOUT` in seconds (default 10); anything else than 0–3600 ends the process. */
function drainSeconds(values: Values): number {
  const raw = (values['drain-timeout'] as string | undefined) ?? (process.env.PARLEY_DRAIN_TIMEOUT?.trim() || '10');
  const seconds = parseNumber('--drain-timeout', raw);
  if (seconds > 3600) fail(`--drain-timeout needs a whole number of seconds from 0 to 3600, got '${raw}'`);
  return seconds;
}

/** `--max-file-bytes` or `PARLEY_MAX_FILE_BYTES`: the cap of `POST /v1/files` (undefined: the default, 512 MB). */
function maxFileBytes(values: Values): number | undefined {
  const raw = (values['max-file-bytes'] as string | undefined) ?? (process.env.PARLEY_MAX_FILE_BYTES?.trim() || undefined);
  if (raw === undefined) return undefined;
  const n = parseNumber('--max-file-bytes', raw);
  if (n < 1) fail(`--max-file-bytes needs a whole number of bytes above 0, got '${raw}'`);
  return n;
}

/** `--headers-timeout`, `--body-idle-timeout`, `--request-timeout` and their variables as serveFetch options (http/server-limits.ts). */
function serving(values: Values) {
  const limits = serverLimitsFrom(values, process.env);
  if (typeof limits === 'string') fail(limits);
  return servingOptions(limits);
}

function parseNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`${flag} needs a whole number, got '${value}'`);
  return n;
}

/** Waits for the database; one that cannot be opened (unreachable server, bad credentials) ends the process with why. */
async function readyOrExit(platform: Platform): Promise<void> {
  try {
    await platform.ready();
  } catch (err) {
    process.stderr.write(`parley: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

function isOpenError(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('Cannot connect to PostgreSQL');
}

function fail(message: string): never {
  process.stderr.write(`parley: ${message}\n`);
  process.exit(2);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`parley: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
