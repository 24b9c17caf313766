#!/usr/bin/env node
// The `parley` command: runs the compiled CLI (npm run build makes dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('parley: dist/ is missing; run `npm run build` in the package first\n');
  process.exit(1);
}
await import(cli.href);
