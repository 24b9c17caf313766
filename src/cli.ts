/**
 * `parley start | platform` — what `npm start` runs.
 *   parley platform [--port 8788] [--host 127.0.0.1] [--data .parley] [--token-delay 0]
 *   parley start    [--port 8787] [--host 127.0.0.1] [--data .parley] [--token-delay 25]
 * Keys: PARLEY_API_KEY, PARLEY_ADMIN_KEY (dev defaults printed when unset).
 * Chat: PARLEY_CHAT_URL (+ PARLEY_CHAT_MODEL, PARLEY_CHAT_API_KEY) adds an OpenAI-compatible server as a model.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { Hono } from 'hono';
import { createPlatform, type Platform } from './platform/app.js';
import { serveFetch } from './platform/node.js';
import { demoPage } from './demo-page.js';

const DEV_API_KEY = 'parley-dev-key';
const DEV_ADMIN_KEY = 'parley-dev-admin-key';

const HELP = `Usage: parley <command> [options]

Commands:
  start      local platform and demo page on one port (what npm start runs)
  platform   the local platform only: the platform HTTP API under /v1, for offline development and SDK tests

Options:
  --port <n>          port to listen on (start: 8787, platform: 8788; 0 picks a free one)
  --host <addr>       address to bind (default 127.0.0.1)
  --data <dir>        database directory (default .parley/)
  --token-delay <ms>  pause between streamed tokens of the local model (start: 25, platform: 0)
  -h, --help          this text

Environment:
  PARLEY_API_KEY      API key callers must send (default ${DEV_API_KEY})
  PARLEY_ADMIN_KEY    admin key for /v1/admin (default ${DEV_ADMIN_KEY})
  PARLEY_CHAT_URL     an OpenAI-compatible server (Ollama, llama.cpp) to serve as an extra chat model
  PARLEY_CHAT_MODEL   that server's model name; PARLEY_CHAT_API_KEY its key
`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: '.parley' },
      'token-delay': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help || !command) {
    process.stdout.write(HELP);
    process.exitCode = command || values.help ? 0 : 1;
    return;
  }
  if (command !== 'start' && command !== 'platform') {
    process.stderr.write(`parley: unknown command '${command}'\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  const port = parseNumber('--port', values.port ?? (command === 'start' ? '8787' : '8788'));
  const tokenDelayMs = parseNumber('--token-delay', values['token-delay'] ?? (command === 'start' ? '25' : '0'));
  const apiKey = process.env.PARLEY_API_KEY || DEV_API_KEY;
  const adminKey = process.env.PARLEY_ADMIN_KEY || DEV_ADMIN_KEY;
  const dataDir = resolve(values.data!);

  const platform = createPlatform({
    apiKey, adminKey, dataDir, tokenDelayMs,
    chatUrl: process.env.PARLEY_CHAT_URL || undefined,
    chatModel: process.env.PARLEY_CHAT_MODEL || undefined,
    chatApiKey: process.env.PARLEY_CHAT_API_KEY || undefined,
  });
  await platform.ready();

  const handler = command === 'start' ? startApp(platform, apiKey).fetch : platform.fetch;
  const server = await serveFetch(handler, { port, hostname: values.host });

  const lines = [
    command === 'start' ? `Parley is running: ${server.url}/` : `Parley local platform: ${server.url}/v1`,
    `  API base URL   ${server.url}   (SDK: new Mistral({ serverURL: '${server.url}', apiKey }))`,
    `  data           ${dataDir}`,
  ];
  if (!process.env.PARLEY_API_KEY) lines.push(`  API key        ${apiKey}   (dev default; set PARLEY_API_KEY to change)`);
  if (!process.env.PARLEY_ADMIN_KEY) lines.push(`  admin key      ${adminKey}   (dev default; set PARLEY_ADMIN_KEY to change)`);
  process.stdout.write(lines.join('\n') + '\n');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await platform.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** `parley start`: the platform's API under /v1 and a page that says what is running. */
function startApp(platform: Platform, apiKey: string): Hono {
  const app = new Hono();
  app.all('/v1/*', (c) => platform.fetch(c.req.raw));
  app.get('/', async (c) => {
    const models = await platform.fetch(new Request(new URL('/v1/models', c.req.url), { headers: { authorization: `Bearer ${apiKey}` } }));
    const { data } = (await models.json()) as { data: Array<{ id: string; description: string | null }> };
    return c.html(demoPage({ origin: new URL(c.req.url).origin, models: data }));
  });
  return app;
}

function parseNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`parley: ${flag} needs a whole number, got '${value}'\n`);
    process.exit(2);
  }
  return n;
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`parley: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
