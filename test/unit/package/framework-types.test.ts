/**
 * The generated framework types (types/react.d.ts and types/vue.d.ts, made from custom-elements.json by
 * scripts/framework-types.mjs) as an app uses them: test/types/react/react.tsx compiled by tsc with React
 * 19's types and test/types/vue/App.vue checked by vue-tsc, each with its own tsconfig.json and every
 * declaration file checked (skipLibCheck false). Both files also hold wrong values under expect-error
 * comments; a copy without those comments must fail on exactly the lines they stood before, so that the
 * test fails when the typing is lost. Needs the declarations in dist/ (`npm run build`; npm test does).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module shared with the command line (node scripts/framework-types.mjs).
import { FILES, frameworkTypes, TYPES_DIR } from '../../../scripts/framework-types.mjs';

const ROOT = join(import.meta.dirname, '../../..');
const SCRATCH = join(ROOT, '.test-results');

interface Compiled { code: number; output: string; ms: number }
interface Failure { file: string; line: number; message: string }

/** Runs tsc or vue-tsc from node_modules/.bin on a project (a tsconfig.json or its folder), offline. */
function compile(tool: 'tsc' | 'vue-tsc', project: string): Promise<Compiled> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(join(ROOT, 'node_modules/.bin', tool), ['-p', project, '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr, ms: Date.now() - started }));
  });
}

function failures(output: string): Failure[] {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/gm)].map(([, file, line, message]) => ({ file, line: Number(line), message }));
}

/**
 * Writes `source` without its lines holding `marker` into `dir`, beside a tsconfig.json extending
 * `tsconfig` (declaration files already checked by the first compile: skipLibCheck), and gives the
 * 1-based lines of the copy that each followed a removed comment.
 */
function withoutExpectations(source: string, marker: string, dir: string, tsconfig: string): number[] {
  const kept: string[] = [];
  const expected: number[] = [];
  for (const line of readFileSync(source, 'utf8').split('\n')) {
    if (line.includes(marker)) expected.push(kept.length + 1);
    else kept.push(line);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, basename(source)), kept.join('\n'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: relative(dir, tsconfig),
    compilerOptions: { skipLibCheck: true },
    files: [basename(source)],
  }, null, 2));
  return expected;
}

describe('framework types from custom-elements.json', () => {
  it('types/ is what scripts/framework-types.mjs makes of the committed custom-elements.json', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8'));
    const made = frameworkTypes(manifest, { root: ROOT }) as Record<string, string>;
    expect(Object.keys(made)).toEqual(FILES);
    for (const file of FILES) expect(readFileSync(join(ROOT, TYPES_DIR, file), 'utf8'), `${TYPES_DIR}/${file} is stale: run \`npm run analyze\``).toBe(made[file]);
  });

  const cases = [
    { name: 'React 19 (tsc, react.tsx)', tool: 'tsc', folder: 'test/types/react', source: 'react.tsx', marker: '@ts-expect-error' },
    { name: 'Vue 3 (vue-tsc, App.vue)', tool: 'vue-tsc', folder: 'test/types/vue', source: 'App.vue', marker: '@vue-expect-error' },
  ] as const;
  let scratch: string;
  const runs = new Map<string, { clean: Promise<Compiled>; broken: Promise<Compiled>; expected: number[]; copy: string }>();

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/elements/agent-chat/agent-chat.d.ts'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) first');
    mkdirSync(SCRATCH, { recursive: true });
    scratch = mkdtempSync(join(SCRATCH, 'framework-types-'));
    // All four compiles at once: they take most of the test's time, on every core there is.
    for (const c of cases) {
      const dir = join(scratch, basename(c.folder));
      const expected = withoutExpectations(join(ROOT, c.folder, c.source), c.marker, dir, join(ROOT, c.folder, 'tsconfig.json'));
      runs.set(c.name, { clean: compile(c.tool, c.folder), broken: compile(c.tool, relative(ROOT, dir)), expected, copy: join(dir, c.source) });
    }
  });

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  for (const c of cases) {
    describe(c.name, () => {
      it(`compiles ${c.folder} with no error`, async () => {
        const { code, output, ms } = await runs.get(c.name)!.clean;
        console.log(`${c.tool} -p ${c.folder}: exit ${code} in ${(ms / 1000).toFixed(1)} s`);
        expect(output.trim()).toBe('');
        expect(code).toBe(0);
      }, 180_000);

      it(`fails on each wrong value once the ${c.marker} comments are gone`, async () => {
        const { code, output, ms } = await runs.get(c.name)!.broken;
        const { expected, copy } = runs.get(c.name)!;
        console.log(`${c.tool} on ${relative(ROOT, copy)}: exit ${code} in ${(ms / 1000).toFixed(1)} s, ${failures(output).length} errors`);
        expect(code).not.toBe(0);
        expect(expected.length).toBeGreaterThanOrEqual(8);
        const found = failures(output);
        // Every error is in the copy, on a line that had an expect-error comment, and every such line fails.
        expect(found.map((f) => join(ROOT, f.file))).toEqual(found.map(() => copy));
        expect([...new Set(found.map((f) => f.line))]).toEqual(expected);
        // Named as an app's developer would read them (a union's order is the checker's).
        const sideways = found.find((f) => f.message.startsWith(`Type '"sideways"' is not assignable to type`))?.message;
        expect(sideways).toMatch(/'("inline" \| "launcher"|"launcher" \| "inline") \| undefined'/);
        expect(output).toContain(`Property 'nope' does not exist on type 'ParleyReplyFinishedDetail'`);
        expect(output).toContain(`Type '"ogg"' is not assignable to type 'SpeechFormat | undefined'`);
        expect(output).toContain(`Property 'pages' does not exist on type 'ParleyOcrDoneDetail'`);
      }, 180_000);
    });
  }
});
