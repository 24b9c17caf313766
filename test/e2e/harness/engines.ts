// The three browser engines of the cross-engine suites, from Debian's packages (no browser download), behind one
// small page API, so a visitor's flow is written once:
// - Chromium through playwright-core (the DevTools protocol);
// - Firefox ESR through puppeteer-core over WebDriver BiDi;
// - WebKitGTK's MiniBrowser through WebKitWebDriver (WebDriver classic), driven by selenium-webdriver, under
//   Xvfb when no display is set.
// A flow runs in the page (`run`): clicks, typing and files go through the DOM, as the elements' own tests do;
// the drivers only open, reload and resize pages. Each engine fakes the microphone its own way (Chromium: a WAV
// file of a sentence; Firefox and WebKit: a generated tone), and plays sound without a gesture.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Browser as PlaywrightBrowser } from 'playwright-core';
import type { Browser as PuppeteerBrowser } from 'puppeteer-core';
import type { WebDriver } from 'selenium-webdriver';
import { CHROMIUM, launchChromium } from './chromium.js';
import { FIREFOX, firefoxPrefs, startWebKitDriver, webkitCapabilities, WEBKIT_DRIVER } from '../../browser/engines/launchers.mjs';
import { writeFakeMicWav } from '../../browser/server/fake-mic.mjs';
import { ROOT } from './parley-start.js';

export type EngineName = 'chromium' | 'firefox' | 'webkit';
/** The engines to run: all three, or those named in PARLEY_ENGINES (comma-separated), e.g. while working on one. */
export const ENGINES: EngineName[] = (process.env.PARLEY_ENGINES?.split(',') ?? ['chromium', 'firefox', 'webkit']) as EngineName[];

/** A page in one engine. */
export interface EnginePage {
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Runs `fn(arg)` in the page (its source is sent: it may not close over anything) and returns its JSON result. */
  run<A, R>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  setSize(width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

/** An engine's browser: pages, each in a fresh profile or context. */
export interface EngineBrowser {
  name: EngineName;
  /** Whether the engine has a real microphone sentence (Chromium's WAV file) or only a tone. */
  speakingMicrophone: boolean;
  newPage(size?: { width: number; height: number }): Promise<EnginePage>;
  close(): Promise<void>;
}

const DEFAULT_SIZE = { width: 1280, height: 900 };
const source = (fn: (...args: never[]) => unknown, arg: unknown) => `(${fn.toString()})(${JSON.stringify(arg ?? null)})`;

/** The install command for an engine that is missing, or null. */
export function missingEngine(name: EngineName): string | null {
  if (name === 'chromium') return existsSync(CHROMIUM) ? null : 'apt-get install -y chromium';
  if (name === 'firefox') return existsSync(FIREFOX) ? null : 'apt-get install -y firefox-esr';
  return existsSync(WEBKIT_DRIVER) ? null : 'apt-get install -y webkit2gtk-driver xvfb';
}

/** Options of a launch: `noSound` points the engine at a sound server that is not there (no output device). */
export interface LaunchOptions { noSound?: boolean }

/** The environment of an engine without a sound device: PulseAudio's server nowhere, and no ALSA device either. */
const NO_SOUND_ENV = { PULSE_SERVER: 'unix:/nonexistent/pulse', ALSA_CONFIG_PATH: '/nonexistent/alsa.conf' };

/**
 * In a describe block: the engine launched before its tests and closed after them; returns a getter (the
 * browser exists once the block's beforeAll ran).
 */
export function useEngine(name: EngineName, options: LaunchOptions = {}): () => EngineBrowser {
  let browser: EngineBrowser | undefined;
  beforeAll(async () => {
    browser = await launchEngine(name, options);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

export async function launchEngine(name: EngineName, options: LaunchOptions = {}): Promise<EngineBrowser> {
  const missing = missingEngine(name);
  if (missing) throw new Error(`${name} is not installed: ${missing}`);
  if (name === 'chromium') return chromium();
  if (name === 'firefox') return firefox(options);
  return webkit(options);
}

async function chromium(): Promise<EngineBrowser> {
  const browser: PlaywrightBrowser = await launchChromium([
    '--autoplay-policy=no-user-gesture-required', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${writeFakeMicWav(ROOT)}`,
  ]);
  return {
    name: 'chromium',
    speakingMicrophone: true,
    async newPage(size = DEFAULT_SIZE) {
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      return {
        goto: async (url) => void (await page.goto(url)),
        reload: async () => void (await page.reload()),
        run: (fn, arg) => page.evaluate(source(fn, arg)),
        setSize: (width, height) => page.setViewportSize({ width, height }),
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function firefox({ noSound = false }: LaunchOptions): Promise<EngineBrowser> {
  const puppeteer = await import('puppeteer-core');
  const browser: PuppeteerBrowser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true, extraPrefsFirefox: firefoxPrefs,
    ...(noSound ? { env: { ...process.env, ...NO_SOUND_ENV } } : {}),
  });
  return {
    name: 'firefox',
    speakingMicrophone: false,
    async newPage(size = DEFAULT_SIZE) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(size);
      return {
        goto: async (url) => void (await page.goto(url)),
        reload: async () => void (await page.reload()),
        run: (fn, arg) => page.evaluate(source(fn, arg)) as never,
        setSize: (width, height) => page.setViewport({ width, height }),
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function webkit({ noSound = false }: LaunchOptions): Promise<EngineBrowser> {
  const { Builder } = await import('selenium-webdriver');
  const server = await startWebKitDriver(noSound ? NO_SOUND_ENV : {});
  const drivers = new Set<WebDriver>();
  return {
    name: 'webkit',
    speakingMicrophone: false,
    async newPage(size = DEFAULT_SIZE) {
      // A session per page: each is a fresh MiniBrowser with its own storage.
      const driver = await new Builder().usingServer(server.url).withCapabilities(webkitCapabilities()).build();
      drivers.add(driver);
      const setSize = async (width: number, height: number) => {
        // The window's outer size: the difference to the viewport is added once measured.
        await driver.manage().window().setRect({ width, height, x: 0, y: 0 });
        const inner = (await driver.executeScript('return [innerWidth, innerHeight]')) as [number, number];
        if (inner[0] !== width || inner[1] !== height) {
          await driver.manage().window().setRect({ width: 2 * width - inner[0], height: 2 * height - inner[1] });
        }
      };
      await setSize(size.width, size.height);
      return {
        goto: (url) => driver.get(url),
        reload: () => driver.navigate().refresh(),
        run: (fn, arg) => driver.executeScript(`return ${source(fn, arg)}`),
        setSize,
        async close() {
          drivers.delete(driver);
          await driver.quit().catch(() => {});
        },
      };
    },
    async close() {
      await Promise.all([...drivers].map((d) => d.quit().catch(() => {})));
      server.stop();
    },
  };
}
