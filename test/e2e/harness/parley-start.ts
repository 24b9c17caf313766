// `parley start` (the compiled CLI `npm start` runs) on a free port with a fresh data directory, and Debian's
// Chromium driven by playwright-core: what an end-to-end test of a visitor of the demo pages needs. Stop both with
// the returned `close`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './chromium.js';

export const ROOT = join(import.meta.dirname, '../../..');

export interface ParleyStart {
  /** The server's URL, without a trailing slash. */
  url: string;
  /** What it printed up to the URL (the banner: the API key, the feedback dataset, …). */
  banner: string;
  browser: Browser;
  close(): Promise<void>;
}

/** The URL `parley start` prints once it is up (and what it printed up to it: the banner is one write). */
export function parleyStartUrl(child: ChildProcess): Promise<{ url: string; banner: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    // On a loaded machine (shared CI runners) the first start (database, demo agents, library) takes over a minute.
    const timer = setTimeout(() => reject(new Error(`parley start did not come up: ${out}`)), 150_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(/Parley is running: (http:\/\/\S+?)\/?\s/);
      if (m) { clearTimeout(timer); resolve({ url: m[1]!, banner: out }); }
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`parley start exited ${code}: ${out}`)); });
  });
}

/** Starts `parley start --port 0 --token-delay 2` (with `extraArgs`) and Chromium (`--lang=en-US`). */
export async function startParley(extraArgs: string[] = []): Promise<ParleyStart> {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  const child = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '2', ...extraArgs], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { url, banner } = await parleyStartUrl(child);
    browser = await launchChromium();
    return { url, banner, browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}
