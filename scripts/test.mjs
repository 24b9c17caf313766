#!/usr/bin/env node
// `npm test`: build, then every suite — unit (vitest), browser (web-test-runner in Chromium, then the main
// flows' suites in Firefox and WebKit),
// end-to-end (playwright-core driving `parley start`), manifest freshness — and one closing line
// `N passed, N failed` summing them all. Exits non-zero if any suite failed or crashed.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';

const results = [];

function run(name, cmd, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    process.stdout.write(`\n=== ${name}: ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
      child.stderr.on('data', (d) => { out += d; process.stderr.write(d); });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Counts of a vitest JSON report; a file that failed to load counts as one failure. */
function vitestCounts(file, exitCode) {
  let passed = 0, failed = 0;
  if (existsSync(file)) {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed = report.numPassedTests ?? 0;
    failed = report.numFailedTests ?? 0;
    failed += (report.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed')).length;
  }
  if (exitCode !== 0 && failed === 0) failed = 1;
  return { passed, failed };
}

mkdirSync('.test-results', { recursive: true });
for (const f of ['vitest.json', 'e2e.json']) rmSync(`.test-results/${f}`, { force: true });

const build = await run('build', 'npm', ['run', 'build', '--silent']);
if (build.code !== 0) {
  results.push({ name: 'build', passed: 0, failed: 1 });
} else {
  const unit = await run('unit', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=.test-results/vitest.json']);
  results.push({ name: 'unit', ...vitestCounts('.test-results/vitest.json', unit.code) });

  const browser = await run('browser', 'npx', ['web-test-runner', '--config', 'web-test-runner.config.mjs', '--static-logging'], { capture: true });
  const m = [...browser.out.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
  let bp = m ? Number(m[1]) : 0, bf = m ? Number(m[2]) : 0;
  if (browser.code !== 0 && bf === 0) bf = 1;
  results.push({ name: 'browser', passed: bp, failed: bf });

  // The suites of each element's main flows again in Firefox ESR and WebKitGTK (web-test-runner.engines.config.mjs).
  for (const engine of ['firefox', 'webkit']) {
    process.env.PARLEY_ENGINES = engine;
    const run_ = await run(`browser ${engine}`, 'npx', ['web-test-runner', '--config', 'web-test-runner.engines.config.mjs', '--static-logging'], { capture: true });
    delete process.env.PARLEY_ENGINES;
    const em = [...run_.out.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
    let ep = em ? Number(em[1]) : 0, ef = em ? Number(em[2]) : 0;
    if (run_.code !== 0 && ef === 0) ef = 1;
    results.push({ name: `browser ${engine}`, passed: ep, failed: ef });
  }


  const e2e = await run('e2e', 'npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts', '--reporter=default', '--reporter=json', '--outputFile.json=.test-results/e2e.json']);
  results.push({ name: 'e2e', ...vitestCounts('.test-results/e2e.json', e2e.code) });

  // custom-elements.json is generated from the elements' JSDoc; the committed one must be fresh.
  const manifest = await run('manifest', 'node', ['scripts/check-manifest.mjs']);
  results.push({ name: 'manifest', passed: manifest.code === 0 ? 1 : 0, failed: manifest.code === 0 ? 0 : 1 });
}

process.stdout.write('\n');
for (const r of results) process.stdout.write(`${r.name}: ${r.passed} passed, ${r.failed} failed\n`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
