// `parley start` (the compiled CLI that `npm start` runs after building) on a free port with a throwaway data
// directory, and Debian Chromium through playwright-core: what an end-to-end test of a visitor needs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const ROOT = join(import.meta.dirname, '../../..');
const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';

export interface ParleyStart {
  /** The printed URL (no trailing slash). */
  url: string;
  /** What it printed up to the URL (the banner). */
  banner: string;
  stop(): Promise<void>;
}

/** Starts `parley start --port 0` on the local platform and waits for its URL. */
export async function startParley(extraArgs: string[] = []): Promise<ParleyStart> {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '2', ...extraArgs], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { url, banner } = await new Promise<{ url: string; banner: string }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`parley start did not come up: ${out}`)), 60_000);
      child.stdout!.on('data', (d) => {
        out += d;
        const m = out.match(/Parley is running: (http:\/\/\S+?)\/?\s/);
        if (m) { clearTimeout(timer); resolve({ url: m[1]!, banner: out }); }
      });
      child.stderr!.on('data', (d) => { out += d; });
      child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`parley start exited ${code}: ${out}`)); });
    });
    return { url, banner, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Headless Chromium as the e2e tests run it. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic', ...args],
  });
}
