#!/usr/bin/env node
// The `parley-relay` command: the token relay alone (compiled into dist/ by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/relay/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('parley-relay: dist/ is missing; run `npm run build` in the package first\n');
  process.exit(1);
}
const { runRelayCli } = await import(cli.href);
await runRelayCli(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`parley-relay: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
