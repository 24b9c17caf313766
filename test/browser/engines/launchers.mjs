// Firefox and WebKit for web-test-runner (web-test-runner.engines.config.mjs), from Debian's packages, no
// browser download:
// - Firefox ESR over WebDriver BiDi, through puppeteer-core (the launcher of @web/test-runner-chrome takes
//   `browser: 'firefox'`); a fake microphone and camera from Firefox's own preferences.
// - WebKitGTK's MiniBrowser through WebKitWebDriver (WebDriver classic), driven by selenium-webdriver. It needs
//   an X display: Xvfb is started on a free display when DISPLAY is unset. Mock capture devices stand in for
//   the microphone.
// A missing browser or driver throws with the Debian install command.
import { chromeLauncher } from '@web/test-runner-chrome';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../server/free-port.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Builder, Key } from 'selenium-webdriver';

export const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH || '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER_PATH || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

function need(path, what, install) {
  if (!existsSync(path)) throw new Error(`${what} not found at ${path}. Install it with: apt-get install -y ${install}`);
}

/** Firefox ESR's preferences for the tests: a fake microphone and camera, no prompts, sound without a gesture. */
export const firefoxPrefs = {
  'media.navigator.streams.fake': true,
  'media.navigator.permission.disabled': true,
  'media.autoplay.default': 0,
  'media.autoplay.blocking_policy': 0,
  'media.autoplay.block-webaudio': false,
  'intl.accept_languages': 'en-US',
  'intl.locale.requested': 'en-US',
};

/** Firefox ESR over WebDriver BiDi. */
export function firefoxLauncher() {
  need(FIREFOX, 'Firefox ESR', 'firefox-esr');
  const launcher = chromeLauncher({
    launchOptions: { browser: 'firefox', executablePath: FIREFOX, headless: true, extraPrefsFirefox: firefoxPrefs },
  });
  launcher.name = 'Firefox';
  return launcher;
}

/** An X display for WebKitGTK: DISPLAY when set, else Xvfb started on a free display (stopped by `stop`). */
export async function xDisplay() {
  if (process.env.DISPLAY) return { display: process.env.DISPLAY, stop() {} };
  need('/usr/bin/Xvfb', 'Xvfb', 'xvfb');
  for (let n = 90; n < 140; n++) {
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    const xvfb = spawn('/usr/bin/Xvfb', [`:${n}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    let exited = false;
    xvfb.once('exit', () => { exited = true; });
    for (let i = 0; i < 50 && !exited && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(100);
    if (!exited && existsSync(`/tmp/.X11-unix/X${n}`)) return { display: `:${n}`, stop: () => xvfb.kill() };
    xvfb.kill();
  }
  throw new Error('Xvfb could not start on any display from :90 to :139');
}

/** The capabilities of a WebKitGTK MiniBrowser session for the tests. */
export function webkitCapabilities() {
  return {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': {
      binary: MINIBROWSER,
      args: [
        '--automation',
        '--enable-media-stream=true', '--enable-mock-capture-devices=true',
        '--media-playback-requires-user-gesture=false', '--autoplay-policy=allow',
      ],
    },
  };
}

/** WebKitWebDriver on a free port (its browsers get `env` too), and an X display for it; `stop()` ends both. */
export async function startWebKitDriver(env = {}) {
  need(WEBKIT_DRIVER, 'WebKitWebDriver', 'webkit2gtk-driver');
  need(MINIBROWSER, 'WebKitGTK MiniBrowser', 'webkit2gtk-driver');
  const x = await xDisplay();
  const port = await freePort();
  const child = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], { stdio: 'ignore', env: { ...process.env, ...env, DISPLAY: x.display } });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch { /* not listening yet */ }
    await sleep(100);
  }
  return { url, stop() { child.kill(); x.stop(); } };
}

/** Key names of web-test-runner's `sendKeys` (Playwright's) as WebDriver key codes. */
const KEYS = {
  Enter: Key.ENTER, Tab: Key.TAB, Escape: Key.ESCAPE, Backspace: Key.BACK_SPACE, Delete: Key.DELETE, Space: ' ',
  ArrowUp: Key.ARROW_UP, ArrowDown: Key.ARROW_DOWN, ArrowLeft: Key.ARROW_LEFT, ArrowRight: Key.ARROW_RIGHT,
  Home: Key.HOME, End: Key.END, PageUp: Key.PAGE_UP, PageDown: Key.PAGE_DOWN,
  Shift: Key.SHIFT, Control: Key.CONTROL, Alt: Key.ALT, Meta: Key.META,
};

/** One `press` (`Enter`, `Shift+Tab`, `a`, ` `): its keys, modifiers first, as WebDriver key codes. */
function chord(press) {
  const parts = press.length > 1 && press.includes('+') ? press.split('+') : [press];
  return parts.map((name) => {
    const key = KEYS[name] ?? (name.length === 1 ? name : undefined);
    if (key === undefined) throw new Error(`WebKit launcher: unknown key "${name}"`);
    return key;
  });
}

/**
 * A web-test-runner launcher: each test file is opened in a MiniBrowser of its own (a WebDriver session per
 * file, one at a time: a file's open connections and storage do not reach the next). Its type is `webdriver`, so
 * web-test-runner's `sendKeys` command calls its `sendKeys` (keys pressed in order, a chord held together).
 * `setViewport` and `emulateMedia` have no WebDriver form in web-test-runner: the window is a desktop's.
 */
export function webkitLauncher() {
  let server = null;
  const drivers = new Map();
  const urls = new Map();
  return {
    name: 'WebKit',
    type: 'webdriver',
    concurrency: 1,
    async initialize() {},
    async stop() {
      await Promise.all([...drivers.values()].map((driver) => driver.quit().catch(() => {})));
      drivers.clear();
      server?.stop();
      server = null;
    },
    async startSession(sessionId, url) {
      server ??= await startWebKitDriver();
      const driver = await new Builder().usingServer(server.url).withCapabilities(webkitCapabilities()).build();
      drivers.set(sessionId, driver);
      urls.set(sessionId, url);
      await driver.manage().window().setRect({ x: 0, y: 0, width: 1400, height: 1000 });
      await driver.get(url);
    },
    isActive: (sessionId) => drivers.has(sessionId),
    getBrowserUrl: (sessionId) => urls.get(sessionId),
    async stopSession(sessionId) {
      const driver = drivers.get(sessionId);
      drivers.delete(sessionId);
      urls.delete(sessionId);
      await driver?.quit().catch(() => {});
      return {};
    },
    /** `keys`: one `press` ([name]) or the characters of a `type`. */
    async sendKeys(sessionId, keys) {
      const actions = drivers.get(sessionId).actions({ async: true });
      if (keys.length === 1) {
        const held = chord(keys[0]);
        for (const key of held) actions.keyDown(key);
        for (const key of held.reverse()) actions.keyUp(key);
      } else {
        for (const key of keys) actions.keyDown(key).keyUp(key);
      }
      await actions.perform();
    },
    async resetMouse(sessionId) {
      await drivers.get(sessionId)?.actions({ async: true }).clear();
    },
    async startDebugSession() {
      throw new Error('WebKit: no debug sessions (run it with the display of your choice instead)');
    },
  };
}
