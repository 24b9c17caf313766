/** Headless Debian Chromium as the end-to-end suites launch it (CHROME_PATH overrides the path). */
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';

/** Flags for a quiet, reproducible headless run (no sandbox, GPU, background network or first-run work). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

/** Chromium with {@link CHROMIUM_ARGS} and `extraArgs`. */
export function launchChromium(extraArgs: string[] = [], options: LaunchOptions = {}): Promise<Browser> {
  // No sound server (as the browser suites run Chromium): with the PulseAudio CI starts for Firefox, Chromium's fake
  // microphone starts its looping sentence at another point.
  const env = { ...process.env, PULSE_SERVER: 'unix:/nonexistent/pulse' } as Record<string, string>;
  return chromium.launch({ executablePath: CHROMIUM, headless: true, env, ...options, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
