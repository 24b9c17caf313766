/**
 * `parley-relay`: the token relay alone, in front of a platform, for a site's backend.
 * The platform key comes from PLATFORM_API_KEY and never leaves this process.
 */
import { parseArgs } from 'node:util';
import { createRelay } from './relay.js';
import { serveRelay } from './node.js';

const HELP = `Usage: parley-relay [options]

The token relay: pages get short-lived session tokens from POST /session and reach the platform's
allowed paths under /v1 (realtime WebSocket included); the platform key stays on this server.

Options:
  --port <n>            port (default 8789; 0 picks a free one)
  --host <addr>         address to bind (default 127.0.0.1)
  --upstream <url>      the platform base URL (default PLATFORM_BASE_URL or https://api.mistral.ai)
  --allow-origin <url>  a page origin allowed to open sessions (repeatable)
  -h, --help            this text

Environment:
  PLATFORM_API_KEY      the platform's key (required)
  PLATFORM_BASE_URL     the platform's base URL
  PARLEY_RELAY_SECRET   token signing secret, 32+ bytes (default: random for this process)
`;

/** The options; a mistyped one ends the process with the help text. */
function parseCommandLine(argv: string[], name: string) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '8789' },
        host: { type: 'string', default: '127.0.0.1' },
        upstream: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail(name, `${(err as Error).message}\n\n${HELP}`);
  }
}

/** Runs the relay command with `argv` (the arguments after the command name). */
export async function runRelayCli(argv: string[], name = 'parley-relay'): Promise<void> {
  const { values } = parseCommandLine(argv, name);
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const apiKey = process.env.PLATFORM_API_KEY;
  if (!apiKey) fail(name, 'the relay needs the platform key in PLATFORM_API_KEY (it stays on this server)');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(name, `--port needs a whole number from 0 to 65535, got '${values.port}'`);
  const baseUrl = values.upstream || process.env.PLATFORM_BASE_URL || 'https://api.mistral.ai';
  const secret = process.env.PARLEY_RELAY_SECRET || undefined;
  const origins = values['allow-origin'] ?? [];
  const relay = createRelay({ upstream: { baseUrl, apiKey }, secret, allowedOrigins: origins, basePath: '' });
  const server = await serveRelay(relay, { port, hostname: values.host });
  process.stdout.write([
    `Parley relay: ${server.url}   (sessions: POST ${server.url}/session; platform paths under ${server.url}/v1, realtime WebSocket included)`,
    `  upstream       ${baseUrl}`,
    `  origins        ${origins.join(' ') || '(none: only same-origin pages; add --allow-origin)'}`,
    secret ? '' : '  secret         random for this process (set PARLEY_RELAY_SECRET to keep tokens valid across restarts)',
  ].filter(Boolean).join('\n') + '\n');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function fail(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(2);
}
