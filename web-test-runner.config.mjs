// Browser tests in Debian's Chromium (no browser download): test/browser/**/*.test.ts.
// The dev server also hosts the real relay in front of the local platform at /api, its realtime
// WebSocket included (from dist/: run `npx tsc -p tsconfig.json` first; `npm test` does), and a
// probe that records requests.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { probeMiddleware } from './test/browser/server/probe-middleware.mjs';
import { micWorkletMiddleware } from './test/browser/server/mic-worklet-middleware.mjs';
import { createRelayServer } from './test/browser/server/relay-middleware.mjs';
import { writeFakeMicWav } from './test/browser/server/fake-mic.mjs';
// A port free now, so the relay can be told the page origin before the server starts.
import { freePort } from './test/browser/server/free-port.mjs';

const executablePath = process.env.CHROME_PATH || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  throw new Error(`Chromium not found at ${executablePath}. Install it with: apt-get install -y chromium (or set CHROME_PATH)`);
}

const rootDir = fileURLToPath(new URL('.', import.meta.url));

// The microphone is a WAV file: a Flite sentence, then silence, looped (see test/browser/server/fake-mic.mjs).
// --lang pins the browser's language: pages without a lang attribute follow navigator.language.
export const chromiumFlags = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic',
  '--autoplay-policy=no-user-gesture-required',
  '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${writeFakeMicWav(rootDir)}`,
];


/** Chromium's environment: no sound server (its headless audio needs none), as before PulseAudio was installed. */
export const chromiumEnv = { ...process.env, PULSE_SERVER: 'unix:/nonexistent/pulse' };

const hostname = 'localhost';
const port = Number(process.env.WTR_PORT) || await freePort();
const origin = `http://${hostname}:${port}`;
const relay = await createRelayServer({ rootDir, origin, tokenDelayMs: 5 });

/**
 * `executeServerCommand('parley-forced-colors', { active })`: Windows-style forced colours in the test's page
 * (puppeteer's emulateMediaFeatures does not take `forced-colors`, so the DevTools protocol is asked directly).
 */
const forcedColorsPlugin = {
  name: 'parley-forced-colors',
  async executeCommand({ command, payload, session }) {
    if (command !== 'parley-forced-colors') return undefined;
    const page = session.browser.getPage(session.id);
    // The override lives as long as the protocol session that set it: one per page, kept.
    let cdp = forcedColorsSessions.get(page);
    if (!cdp) forcedColorsSessions.set(page, (cdp = await page.createCDPSession()));
    await cdp.send('Emulation.setEmulatedMedia', { features: [{ name: 'forced-colors', value: payload?.active ? 'active' : 'none' }] });
    return true;
  },
};
const forcedColorsSessions = new WeakMap();

export default {
  files: 'test/browser/**/*.test.ts',
  nodeResolve: true,
  concurrency: 1,
  hostname,
  port,
  // A whole file's budget: the real-microphone files run several tests of up to 60 s each.
  testsFinishTimeout: 600_000,
  testFramework: { config: { timeout: 15_000 } },
  middleware: [probeMiddleware(), micWorkletMiddleware(), relay.middleware],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }), relay.plugin, forcedColorsPlugin],
  // Chromium without the PulseAudio server CI starts for Firefox (chromiumEnv): with it, Chromium's fake microphone
  // starts its looping sentence at another point, and the suites that expect the whole sentence fail.
  browsers: [chromeLauncher({ launchOptions: { executablePath, headless: true, args: chromiumFlags, env: chromiumEnv } })],
};
