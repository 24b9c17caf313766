#!/usr/bin/env node
// Fails when custom-elements.json differs from what the analyzer makes of the elements' JSDoc now.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// The analyzer takes --outdir relative to the working directory.
const out = '.test-results/cem';
mkdirSync(out, { recursive: true });
try {
  // Globs and options come from custom-elements-manifest.config.mjs, as for `npm run analyze`.
  execFileSync('npx', ['custom-elements-manifest', 'analyze', '--outdir', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const fresh = JSON.parse(readFileSync(join(out, 'custom-elements.json'), 'utf8'));
  const committed = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
  // Modules compared by path, whatever order the analyzer read the files in.
  const byPath = (manifest) => new Map(manifest.modules.map((m) => [m.path, JSON.stringify(m)]));
  const [a, b] = [byPath(fresh), byPath(committed)];
  const stale = [...new Set([...a.keys(), ...b.keys()])].filter((path) => a.get(path) !== b.get(path));
  if (stale.length) {
    console.error(`custom-elements.json is stale (${stale.join(', ')}): run \`npm run analyze\` and commit the result`);
    process.exit(1);
  }
  const tags = fresh.modules.flatMap((m) => (m.declarations ?? []).filter((d) => d.customElement).map((d) => d.tagName ?? d.name));
  console.log(`custom-elements.json is fresh (${tags.join(', ')})`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
