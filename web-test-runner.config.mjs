// Browser tests in Debian's Chromium (no browser download): test/browser/**/*.test.ts.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { existsSync } from 'node:fs';

const executablePath = process.env.CHROME_PATH || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  throw new Error(`Chromium not found at ${executablePath}. Install it with: apt-get install -y chromium (or set CHROME_PATH)`);
}

export const chromiumFlags = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic',
  '--autoplay-policy=no-user-gesture-required',
];

export default {
  files: 'test/browser/**/*.test.ts',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 120_000,
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' })],
  browsers: [chromeLauncher({ launchOptions: { executablePath, headless: true, args: chromiumFlags } })],
};
