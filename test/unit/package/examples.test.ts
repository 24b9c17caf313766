/**
 * The projects in examples/ as a site owner starts from them: each copied into an empty folder with parley-kit
 * installed from the packed tarball (offline, from npm's cache; test/package/install.mjs), then type-checked and
 * built with its own scripts' tools. Needs `npm run build` first (npm test does).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module shared with the command line (node test/package/install.mjs).
import { installPackedKit } from '../../package/install.mjs';
// @ts-expect-error -- a plain ES module shared with npm run docs.
import { elementModels } from '../../../scripts/manifest-model.mjs';

const ROOT = join(import.meta.dirname, '../../..');
const KIT = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const chat = (elementModels() as { tag: string; attributes: { name: string }[]; properties: { name: string; readonly: boolean }[]; events: { name: string }[] }[])
  .find((e) => e.tag === 'agent-chat')!;

/** Runs a tool of the project's node_modules/.bin; a failure throws with what the tool printed. */
function run(project: string, tool: string, args: string[]): string {
  try {
    return execFileSync(join(project, 'node_modules/.bin', tool), args, { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${tool} ${args.join(' ')} failed in ${project}:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

interface Built { scripts: Record<string, string>; javascript: string; html: string }

/** Installs the example, runs its type-check and `vite build`, and returns what the build wrote. */
function buildExample(name: string, typecheck: string): Built {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
  return installPackedKit(ROOT, (project: string) => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    run(project, typecheck, ['--noEmit', '-p', 'tsconfig.json']);
    run(project, 'vite', ['build', '--logLevel', 'warn']);
    const assets = join(project, 'dist/assets');
    const javascript = readdirSync(assets).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(assets, f), 'utf8')).join('\n');
    return { scripts: pkg.scripts, javascript, html: readFileSync(join(project, 'dist/index.html'), 'utf8') };
  }, { example: join(ROOT, 'examples', name) }).checked as Built;
}

describe('examples/ built against the packed parley-kit', () => {
  it.each([
    ['react-vite', 'tsc'],
    ['vue-vite', 'vue-tsc'],
  ])('%s installs from the tarball, type-checks (%s) and builds with <agent-chat>, its tool and its event handler', (name, typecheck) => {
    const built = buildExample(name, typecheck);
    // Its own build script runs the same two steps.
    expect(built.scripts.build).toBe(`${typecheck} --noEmit && vite build`);
    expect(built.html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    // The element is bundled from parley-kit (its definition), used with a tool and an event handler.
    expect(built.javascript).toMatch(/customElements\.define\(\s*["'`]agent-chat["'`]|["'`]agent-chat["'`]/);
    expect(built.javascript).toContain('parley-reply-finished');
    expect(built.javascript).toContain('get_order_status');
  }, 600_000);

  it('plain-html: the CDN tag is pinned to this version and names a bundle the package ships; the markup and script use the manifest\'s members', () => {
    const dir = join(ROOT, 'examples/plain-html');
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const script = readFileSync(join(dir, 'app.js'), 'utf8');
    const cdn = /<script type="module" src="https:\/\/cdn\.jsdelivr\.net\/npm\/parley-kit@([^/]+)\/(dist\/browser\/[\w-]+\.js)"><\/script>/.exec(html);
    expect(cdn, 'the CDN script tag').not.toBeNull();
    expect(cdn![1]).toBe(KIT.version);
    // No inline script: a strict CSP needs none.
    expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g) ?? []).toEqual([]);
    const files = installPackedKit(ROOT, (project: string) => {
      const shipped = existsSync(join(project, 'node_modules/parley-kit', cdn![2]!));
      // The page's script parses as a module.
      execFileSync(process.execPath, ['--check', '--input-type=module'], { input: script, cwd: project });
      return { shipped };
    }, { example: dir }) as { checked: { shipped: boolean } };
    expect(files.checked.shipped).toBe(true);
    const tag = /<agent-chat\s([^>]*)><\/agent-chat>/.exec(html);
    expect(tag).not.toBeNull();
    const attributes = [...tag![1]!.matchAll(/([\w-]+)=/g)].map((m) => m[1]!).filter((a) => a !== 'id');
    expect(attributes.length).toBeGreaterThan(0);
    for (const a of attributes) expect(chat.attributes.map((x) => x.name), a).toContain(a);
    const set = [...script.matchAll(/chat\.(\w+) =/g)].map((m) => m[1]!);
    expect(set).toEqual(['tools', 'toolDefinitions']);
    for (const p of set) expect(chat.properties.filter((x) => !x.readonly).map((x) => x.name)).toContain(p);
    const events = [...script.matchAll(/addEventListener\('([\w-]+)'/g)].map((m) => m[1]!);
    expect(events).toEqual(['parley-reply-finished']);
    for (const e of events) expect(chat.events.map((x) => x.name)).toContain(e);
  }, 300_000);
});
