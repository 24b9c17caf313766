#!/usr/bin/env node
// `npm test`: build, unit tests (vitest), browser tests (web-test-runner in Chromium), then one
// closing line `N passed, N failed` summing every suite. Exits non-zero if any suite failed or crashed.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';

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

mkdirSync('.test-results', { recursive: true });

const build = await run('build', 'npx', ['tsc', '-p', 'tsconfig.json']);
if (build.code !== 0) {
  results.push({ name: 'build', passed: 0, failed: 1 });
} else {
  const unitJson = '.test-results/vitest.json';
  const unit = await run('unit', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${unitJson}`]);
  let passed = 0, failed = 0;
  if (existsSync(unitJson)) {
    const report = JSON.parse(readFileSync(unitJson, 'utf8'));
    passed = report.numPassedTests ?? 0;
    failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0 ? 0 : 0);
    // A file that failed to load counts as a failure even when it reported no test.
    const brokenFiles = (report.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed')).length;
    failed += brokenFiles;
  }
  if (unit.code !== 0 && failed === 0) failed = 1;
  results.push({ name: 'unit', passed, failed });

  const browser = await run('browser', 'npx', ['web-test-runner', '--config', 'web-test-runner.config.mjs', '--static-logging'], { capture: true });
  const m = [...browser.out.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
  let bp = m ? Number(m[1]) : 0, bf = m ? Number(m[2]) : 0;
  if (browser.code !== 0 && bf === 0) bf = 1;
  results.push({ name: 'browser', passed: bp, failed: bf });
}

process.stdout.write('\n');
for (const r of results) process.stdout.write(`${r.name}: ${r.passed} passed, ${r.failed} failed\n`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || results.some((r) => r.failed > 0) ? 1 : 0);
