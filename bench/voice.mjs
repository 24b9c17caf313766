// Voice input in Debian Chromium: the time from the end of speech to the final text in the element.
// Chromium's fake microphone plays a Flite sentence then 2.5 s of silence (test/browser/server/fake-mic.mjs);
// the page runs the built <agent-chat voice-input> (dist/browser) against the relay and the local platform
// in this process, over real loopback HTTP and WebSocket. Each run presses the microphone button and reads
// the User Timing marks of the voice input ('parley-voice:speech-end': the last voiced audio captured;
// 'parley-voice:speechend': the voice activity detector's decision, 800 ms of silence later) against the
// moment `parley-voice-final` reaches the page. Run after `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createPlatform } from '@parley-kit/platform';
import { serveFetch } from 'parley-kit/server';
import { ALL_SCOPES, createRelay } from '../dist/relay/index.js';
import { writeFakeMicWav } from '../test/browser/server/fake-mic.mjs';
import { ASSETS, servePage } from './page-server.mjs';
import { percentile } from './platform.mjs';

const ROOT = join(import.meta.dirname, '..');
const RUNS = 5;

const PAGE = `<!doctype html><html lang="en"><body><agent-chat relay-url="/api" model="parley-local" resume="none" voice-input voice-autosend="false"></agent-chat>
<script type="module" src="/assets/agent-chat.js"></script></body></html>`;

/** Runs in the page: one utterance through the microphone button; times in ms. */
async function measure() {
  await customElements.whenDefined('agent-chat');
  const chat = document.querySelector('agent-chat');
  await chat.updateComplete;
  performance.clearMarks();
  let button = null;
  for (let waited = 0; !(button = chat.shadowRoot.querySelector('[part~="mic-button"]:not([disabled])')); waited += 50) {
    if (waited > 20_000) return { error: 'the microphone button never became usable' };
    await new Promise((r) => setTimeout(r, 50));
  }
  const final = new Promise((resolve) => {
    setTimeout(() => resolve({ error: 'no final text within 60 s' }), 60_000);
    chat.addEventListener('parley-voice-final', (e) => resolve({ at: performance.now(), text: e.detail.text }), { once: true });
    chat.addEventListener('parley-error', (e) => resolve({ error: e.detail?.error?.message ?? 'error' }), { once: true });
  });
  const pressed = performance.now();
  button.click();
  const result = await final;
  if (result.error) return { error: result.error };
  const mark = (name) => performance.getEntriesByName(name).at(-1)?.startTime ?? NaN;
  return {
    text: result.text,
    pressToFinal: result.at - pressed,
    speechEndToFinal: result.at - mark('parley-voice:speech-end'),
    vadToFinal: result.at - mark('parley-voice:speechend'),
  };
}

export async function benchVoice() {
  if (!existsSync(join(ASSETS, 'agent-chat.js'))) throw new Error('dist/browser/agent-chat.js is missing: run `npm run build` first');
  const apiKey = 'bench-voice-key';
  const platform = createPlatform({ apiKey, onError: () => {} });
  await platform.ready();
  const upstream = await serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] });
  const { server, origin } = await servePage(PAGE, (pageOrigin) =>
    createRelay({ upstream: { baseUrl: upstream.url, apiKey }, basePath: '/api', allowedOrigins: [pageOrigin], policy: { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'] } }));
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-quic',
      '--autoplay-policy=no-user-gesture-required', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${writeFakeMicWav(ROOT)}`],
  });
  const runs = [];
  let text = '';
  try {
    for (let i = 0; i < RUNS; i++) {
      // A new page each time: the fake microphone starts its file from the beginning when capture opens.
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      const r = await page.evaluate(measure);
      await page.close();
      if (r.error) throw new Error(`voice input failed: ${r.error}`);
      runs.push(r);
      text = r.text;
    }
  } finally {
    await browser.close();
    await server.close();
    await upstream.close();
    await platform.close();
  }
  const p50 = (key) => percentile(runs.map((r) => r[key]).sort((a, b) => a - b), 50).toFixed(0);
  return {
    'runs (new page each, 3.0 s sentence, 800 ms end-of-utterance silence)': RUNS,
    'end of speech → final text in <agent-chat>, p50 (ms)': p50('speechEndToFinal'),
    'VAD end of utterance → final text, p50 (ms)': p50('vadToFinal'),
    'mic button pressed → final text, p50 (ms)': p50('pressToFinal'),
    'text heard': JSON.stringify(text),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [k, v] of Object.entries(await benchVoice())) process.stdout.write(`${k.padEnd(64)} ${v}\n`);
}
