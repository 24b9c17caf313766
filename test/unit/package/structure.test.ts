/**
 * The budgets that keep the code easy to change (issue 23; the rules are `architecture.md`'s "Imports run down"):
 * no source file over 700 lines, imports that run down the layers of `src/` and of the local platform, no import
 * circle inside `src/`, and a manifest that describes the four elements and nothing internal. Imports are read
 * with TypeScript's own pre-processor (comments and strings are not imports), from the files on disk, so a new
 * file is checked before it is committed.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAX_LINES = 700;
const CODE = /\.(?:ts|tsx|js|mjs|cjs)$/;
/** Never source: dependencies, build output, tests, the bench, and the framework typings generated from the manifest. */
const NOT_SOURCE = /(?:^|\/)(?:node_modules|dist|\.git|\.parley|\.test-results|coverage)(?:\/|$)|^(?:test|bench|platform\/test|types)\//;

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (NOT_SOURCE.test(path)) continue;
    if (entry.isDirectory()) walk(path, out);
    else if (CODE.test(entry.name)) out.push(path);
  }
  return out;
}

const sourceFiles = walk('');
const lineCount = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length;

interface Import { from: string; specifier: string; dynamic: boolean; target: string | null }

/** A relative specifier as the file it names (`./x.js` is `./x.ts` in the source), or null for a package. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = relative(ROOT, resolve(ROOT, dirname(from), specifier)).split(sep).join('/');
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.d.ts'), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => existsSync(join(ROOT, c)) && CODE.test(c)) ?? base;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName, pos }) => {
    // `import('…')` is a lazy edge: it breaks no layering rule by itself, but does not close a circle at load.
    const dynamic = /import\s*\(\s*['"`]?$/.test(text.slice(Math.max(0, pos - 20), pos));
    return { from: file, specifier: fileName, dynamic, target: resolveSpecifier(file, fileName) };
  });
}

const kitFiles = sourceFiles.filter((f) => f.startsWith('src/') && /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
const platformFiles = sourceFiles.filter((f) => f.startsWith('platform/src/') && f.endsWith('.ts') && !f.endsWith('.d.ts'));
const kitImports = kitFiles.flatMap(importsOf);
const platformImports = platformFiles.flatMap(importsOf);

/** `src/<layer>/…` → layer; `src/index.ts` is the browser entry. */
const layer = (file: string) => (file === 'src/index.ts' ? 'entry' : file.split('/')[1]);
const BROWSER = new Set(['entry', 'elements', 'client', 'audio', 'store', 'vendor']);
const SERVER = new Set(['relay', 'server']);
/** Packages that only run on a server: a browser module importing one would ship it (or fail) in a page. */
const SERVER_PACKAGE = /^(?:node:|ws$|hono(?:\/|$)|@hono\/|@redis\/|eventsource-parser$|jose$|valibot$)/;

const show = (list: Import[]) => list.map((i) => `${i.from} → ${i.specifier}`);

describe('the code’s budgets (issue 23)', () => {
  it(`no source file passes ${MAX_LINES} lines (test/, bench/ and generated files aside)`, () => {
    expect(sourceFiles.length, 'source files found').toBeGreaterThan(300);
    const over = sourceFiles.map((file) => ({ file, lines: lineCount(file) })).filter((f) => f.lines > MAX_LINES);
    expect(over, 'split these by behaviour (controllers, sessions, modules)').toEqual([]);
  });

  it('src/client, src/audio and src/store import nothing from src/elements or src/relay', () => {
    const upward = kitImports.filter((i) => ['client', 'audio', 'store'].includes(layer(i.from)) && i.target && ['elements', 'relay', 'server'].includes(layer(i.target)));
    expect(show(upward)).toEqual([]);
  });

  it('the client layer imports no audio, store or element code (the elements bring them together)', () => {
    const sideways = kitImports.filter((i) => layer(i.from) === 'client' && i.target?.startsWith('src/') && !['client'].includes(layer(i.target)));
    expect(show(sideways)).toEqual([]);
  });

  it('no browser module imports a server module, a Node built-in or a server-only package', () => {
    const wrong = kitImports.filter((i) => BROWSER.has(layer(i.from)) && (i.target ? SERVER.has(layer(i.target)) : SERVER_PACKAGE.test(i.specifier)));
    expect(show(wrong)).toEqual([]);
  });

  it('src/server (parley-kit/server, what the platform imports) imports nothing from the relay', () => {
    const back = kitImports.filter((i) => layer(i.from) === 'server' && i.target && layer(i.target) === 'relay');
    expect(show(back)).toEqual([]);
  });

  it('no import circle inside src/ (lazy import() aside)', () => {
    const edges = new Map<string, string[]>();
    for (const i of kitImports) {
      if (i.dynamic || !i.target?.startsWith('src/')) continue;
      edges.set(i.from, [...(edges.get(i.from) ?? []), i.target]);
    }
    const circles = new Set<string>();
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.add([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    expect([...circles]).toEqual([]);
  });

  it('the local platform reaches the kit only through its package exports', () => {
    const outside = platformImports.filter((i) => i.target && !i.target.startsWith('platform/'));
    expect(show(outside)).toEqual([]);
    const kitSubpaths = new Set(platformImports.filter((i) => i.specifier.startsWith('parley-kit')).map((i) => i.specifier));
    const exported = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports).map((k) => k.replace(/^\./, 'parley-kit'));
    expect([...kitSubpaths].filter((s) => !exported.includes(s))).toEqual([]);
  });

  it('the platform’s ground floors (store/, engines/) import nothing above them', () => {
    const floor = (file: string) => file.split('/')[2];
    const upward = platformImports.filter((i) => ['store', 'engines'].includes(floor(i.from)) && i.target?.startsWith('platform/src/') && floor(i.target) !== floor(i.from));
    expect(show(upward)).toEqual([]);
  });

  it('custom-elements.json describes the four elements and nothing internal', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8'));
    const declarations = manifest.modules.flatMap((m: { path: string; declarations?: { kind: string; name: string; tagName?: string; customElement?: boolean }[] }) =>
      (m.declarations ?? []).map((d) => ({ path: m.path, ...d })));
    const elements = declarations.filter((d: { customElement?: boolean }) => d.customElement).map((d: { tagName?: string }) => d.tagName).sort();
    expect(elements).toEqual(['agent-chat', 'audio-transcriber', 'doc-ocr-viewer', 'speech-player']);
    const internal = declarations.filter((d: { path: string }) => /\/(?:controllers|internal)\//.test(d.path) && !/parley-element\.ts$/.test(d.path));
    expect(internal.map((d: { path: string; name: string }) => `${d.path} ${d.name}`)).toEqual([]);
  });
});
