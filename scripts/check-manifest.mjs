#!/usr/bin/env node
// Fails when custom-elements.json differs from what the analyzer makes of the elements' JSDoc now, or the
// framework types made from it (types/react.d.ts, types/vue.d.ts: the analyzer's plugin in
// custom-elements-manifest.config.mjs writes them beside the manifest) differ from the committed ones.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FILES, TYPES_DIR } from './framework-types.mjs';

/** A committed file that differs from what the analyzer makes now. */
class Stale extends Error {}

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
    throw new Stale(`custom-elements.json is stale (${stale.join(', ')}): run \`npm run analyze\` and commit the result`);
  }
  const staleTypes = FILES.map((file) => join(TYPES_DIR, file)).filter((file) => {
    const made = join(out, file);
    if (!existsSync(made)) throw new Error(`the analyzer wrote no ${made}: is frameworkTypesPlugin in custom-elements-manifest.config.mjs?`);
    return !existsSync(file) || readFileSync(made, 'utf8') !== readFileSync(file, 'utf8');
  });
  if (staleTypes.length) {
    throw new Stale(`${staleTypes.join(', ')} ${staleTypes.length > 1 ? 'are' : 'is'} stale: run \`npm run analyze\` and commit the result`);
  }
  const tags = fresh.modules.flatMap((m) => (m.declarations ?? []).filter((d) => d.customElement).map((d) => d.tagName ?? d.name));
  console.log(`custom-elements.json and ${FILES.map((file) => join(TYPES_DIR, file)).join(', ')} are fresh (${tags.join(', ')})`);
} catch (err) {
  if (!(err instanceof Stale)) throw err;
  console.error(err.message);
  process.exitCode = 1;
} finally {
  // Reached on every outcome (a process.exit() in the try would skip it and leave the scratch copy).
  rmSync(out, { recursive: true, force: true });
}
