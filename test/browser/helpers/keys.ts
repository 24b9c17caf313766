// Key chords for web-test-runner's sendKeys in every engine: Chromium and Firefox (puppeteer) hold a modifier
// with `down` / `up`; the WebKit launcher (a `webdriver` launcher, test/browser/engines/launchers.mjs) takes
// only `press`, and reads a chord written `Shift+Enter`.
import { sendKeys } from '@web/test-runner-commands';

const webdriver = !/Chrome\/|Firefox\//.test(navigator.userAgent);

/** Presses `key` with `modifier` held (`Shift`, `Control`, `Alt`, `Meta`). */
export async function pressWith(modifier: string, key: string): Promise<void> {
  if (webdriver) return sendKeys({ press: `${modifier}+${key}` });
  await sendKeys({ down: modifier });
  try {
    await sendKeys({ press: key });
  } finally {
    await sendKeys({ up: modifier });
  }
}
