#!/usr/bin/env node
// `npm run bench`: every benchmark, each printing its figures and ratios measured in this one run.
import { benchPlatform } from './platform.mjs';

const benches = [['local platform on loopback', benchPlatform]];
for (const [name, run] of benches) {
  process.stdout.write(`\n## ${name}\n`);
  const figures = await run();
  for (const [k, v] of Object.entries(figures)) process.stdout.write(`${k.padEnd(52)} ${v}\n`);
}
