// Key chords for web-test-runner's sendKeys in every engine: Chromium and Firefox (puppeteer) hold a modifier
// with `down` / `up`; the WebKit launcher (a `webdriver` launcher) takes only `press`, a chord written
// `Shift+Enter` (test/browser/engines/launchers.mjs).
import { sendKeys } from '@web/test-runner-commands';

/** Presses `key` with `modifier` held (`Shift`, `Control`, `Alt`, `Meta`). */
export async function pressWith(modifier: string, key: string): Promise<void> {
  try {
    await sendKeys({ down: modifier });
  } catch (error) {
    if (/supported by webdriver/.test((error as Error).message)) return sendKeys({ press: `${modifier}+${key}` });
    throw error;
  }
  try {
    await sendKeys({ press: key });
  } finally {
    await sendKeys({ up: modifier });
  }
}
