#!/usr/bin/env node
// Manual check: the four elements on one page under a strict Content-Security-Policy with Trusted Types.
//
//   npm run build && node scripts/csp-check.mjs [--firefox | --webkit] [--headed]
//   (CSP_CHECK_POLICY='…' replaces the policy below)
//
// Starts `parley start` (the real relay and local platform, a fresh data directory) and, in front of it, a
// loopback server whose every response carries the policy (CSP below): it serves the check page
// (/csp-check/page.html, from scripts/csp-check/) and a PDF (/csp-check/doc.pdf), and passes everything
// else (/assets/ bundles, /api relay calls and WebSockets) through to `parley start`. Chromium
// (playwright-core, a fake microphone saying "the quick brown fox…") or, with --firefox, Firefox ESR
// (puppeteer-core over WebDriver BiDi; its fake microphone is a tone) or, with --webkit, WebKitGTK's MiniBrowser
// (selenium-webdriver and WebKitWebDriver, DISPLAY set to an X display such as Xvfb's; mock microphone)
// opens the page and runs its flows
// (window.cspFlows: chat, speech, pdf, entities, mic); the page records every securitypolicyviolation in
// window.cspViolations. Prints the flows' results and each violation; exits 1 on a violation or a failed flow.
//
// `startCspStack()` is exported for a test to reuse with its own driver: it returns `{ url, close }`, the
// page being `${url}/csp-check/page.html`.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import PDFDocument from 'pdfkit';

const ROOT = join(import.meta.dirname, '..');
const PAGES = join(import.meta.dirname, 'csp-check');

/**
 * The policy of issue 25, word for word: nothing more is needed. The microphone's AudioWorklet module is the file
 * parley-mic-worklet.js beside the bundles (`script-src 'self'`), and pdf.js runs its worker code on the page.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "require-trusted-types-for 'script'",
].join('; ');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** A one-page text PDF ("Quarterly report …"), made with pdfkit. */
function pdf() {
  const doc = new PDFDocument({ size: 'A5', margin: 48 });
  const chunks = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.font('Helvetica-Bold').fontSize(22).text('Quarterly Report');
  doc.font('Helvetica').fontSize(12).text('Revenue grew by twelve percent in the third quarter.');
  doc.end();
  return done;
}

/** `parley start --port 0 --allow-origin <origin>` on a fresh data directory; resolves with its URL. */
function startParley(origin, dataDir) {
  const child = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '2', '--allow-origin', origin], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/Parley is running: (http:\/\/\S+?)\/?\s/);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code) => reject(new Error(`parley start exited ${code}: ${out}`)));
  });
  return { child, ready };
}

/** The loopback server in front of `parley start` (see the top of this file) and `parley start` itself. */
export async function startCspStack({ csp = CSP } = {}) {
  if (!existsSync(join(ROOT, 'dist/browser/agent-chat.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const pdfBytes = await pdf();
  let upstream = null;
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/favicon.ico') { res.writeHead(204, { 'content-security-policy': csp }); res.end(); return; }
    if (path.startsWith('/csp-check/')) {
      const name = path.slice('/csp-check/'.length);
      const body = name === 'doc.pdf' ? pdfBytes : /^[a-z-]+\.(html|js|css)$/.test(name) && existsSync(join(PAGES, name)) ? readFileSync(join(PAGES, name)) : null;
      if (!body) { res.writeHead(404, { 'content-security-policy': csp }); res.end('not found'); return; }
      const type = name === 'doc.pdf' ? 'application/pdf' : TYPES[name.slice(name.lastIndexOf('.'))];
      res.writeHead(200, { 'content-type': type, 'content-security-policy': csp, 'cache-control': 'no-store' });
      res.end(body);
      return;
    }
    const target = new URL(upstream);
    const proxied = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers } }, (up) => {
      res.writeHead(up.statusCode ?? 502, { ...up.headers, 'content-security-policy': csp });
      up.pipe(res);
    });
    proxied.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(proxied);
  });
  // WebSockets (the microphone's realtime transcription): the raw upgrade request, then bytes both ways.
  server.on('upgrade', (req, socket, head) => {
    const target = new URL(upstream);
    const up = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-csp-'));
  const parley = startParley(url, dataDir);
  const close = async () => {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    if (parley.child.exitCode === null) {
      parley.child.kill('SIGTERM');
      await new Promise((r) => parley.child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    upstream = await parley.ready;
  } catch (error) {
    await close();
    throw error;
  }
  return { url, page: `${url}/csp-check/page.html`, csp, close };
}

/** Chromium through playwright-core; `evaluate(fn, arg)` and `close()` like the Firefox driver below. */
async function openChromium(url, headed) {
  const { chromium } = await import('playwright-core');
  const { writeFakeMicWav } = await import(pathToFileURL(join(ROOT, 'test/browser/server/fake-mic.mjs')).href);
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: !headed,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US', '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${writeFakeMicWav(ROOT)}`],
  });
  const page = await browser.newPage();
  const log = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => log.push(`pageerror: ${e}`));
  page.on('response', (r) => { if (r.status() >= 400) log.push(`HTTP ${r.status()} ${r.url()}`); });
  await page.goto(url);
  await page.locator('body').click(); // a user gesture, so audio may start
  return { log, evaluate: (fn, arg) => page.evaluate(fn, arg), close: () => browser.close() };
}

/** Firefox ESR through puppeteer-core over WebDriver BiDi (its fake microphone is a tone, not words). */
async function openFirefox(url, headed) {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr', headless: !headed,
    extraPrefsFirefox: { 'media.navigator.streams.fake': true, 'media.navigator.permission.disabled': true, 'media.autoplay.default': 0, 'media.autoplay.blocking_policy': 0 },
  });
  const page = await browser.newPage();
  const log = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') log.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => log.push(`pageerror: ${e}`));
  await page.goto(url);
  await page.click('body');
  return { log, evaluate: (fn, arg) => page.evaluate(fn, arg), close: () => browser.close() };
}

/**
 * WebKitGTK's MiniBrowser through WebKitWebDriver (selenium-webdriver), on the X display in DISPLAY (start
 * `Xvfb :99 &` and set DISPLAY=:99 first); mock capture devices stand in for the microphone.
 */
async function openWebKit(url) {
  const { Builder } = await import('selenium-webdriver');
  const port = await new Promise((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const driverProcess = spawn(process.env.WEBKIT_DRIVER_PATH || '/usr/bin/WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], { stdio: 'ignore' });
  const server = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(`${server}/status`)).ok) break; } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  let driver;
  try {
    driver = await new Builder().usingServer(server).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': {
        binary: process.env.MINIBROWSER_PATH || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
        args: ['--automation', '--enable-media-stream=true', '--enable-mock-capture-devices=true', '--media-playback-requires-user-gesture=false', '--autoplay-policy=allow'],
      },
    }).build();
    await driver.manage().setTimeouts({ script: 120_000 });
    await driver.get(url);
    for (let i = 0; i < 100 && !(await driver.executeScript('return !!window.cspFlows')); i++) await new Promise((r) => setTimeout(r, 200));
  } catch (error) {
    await driver?.quit().catch(() => {});
    driverProcess.kill();
    throw error;
  }
  return {
    log: [],
    // A rejection comes back as a string: WebDriver's async scripts have no rejection of their own.
    evaluate: async (fn, arg) => {
      const result = await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
        Promise.resolve((${fn})(${JSON.stringify(arg)})).then(done, (e) => done({ rejected: String(e) }));`);
      if (result && typeof result === 'object' && 'rejected' in result) throw new Error(result.rejected);
      return result;
    },
    close: async () => { await driver.quit().catch(() => {}); driverProcess.kill(); },
  };
}

async function main() {
  const headed = process.argv.includes('--headed');
  const engine = process.argv.includes('--firefox') ? 'firefox' : process.argv.includes('--webkit') ? 'webkit' : 'chromium';
  const stack = await startCspStack(process.env.CSP_CHECK_POLICY ? { csp: process.env.CSP_CHECK_POLICY } : {});
  let failed = 0;
  try {
    console.log(`engine: ${engine}\npolicy: ${stack.csp}\npage:   ${stack.page}`);
    const browser = engine === 'firefox' ? await openFirefox(stack.page, headed) : engine === 'webkit' ? await openWebKit(stack.page) : await openChromium(stack.page, headed);
    try {
      for (const flow of ['chat', 'speech', 'pdf', 'entities', 'mic']) {
        try {
          const options = flow === 'mic' && engine !== 'chromium' ? { words: false } : {};
          console.log(`ok    ${await browser.evaluate(([f, o]) => window.cspFlows[f](o), [flow, options])}`);
        } catch (error) {
          failed++;
          console.log(`FAIL  ${flow}: ${String(error).split('\n')[0]}`);
        }
      }
      const violations = await browser.evaluate(() => window.cspViolations);
      console.log(`\n${violations.length} securitypolicyviolation event(s)`);
      for (const v of violations) console.log(`  ${v.directive}  blocked=${v.blocked}  ${v.source}:${v.line}:${v.column}  ${v.sample ?? ''}`);
      const other = browser.log.filter((l) => !l.includes('[csp-check]'));
      if (other.length) console.log(`\nconsole errors and warnings:\n  ${other.join('\n  ')}`);
      failed += violations.length;
    } finally {
      await browser.close();
    }
  } finally {
    await stack.close();
  }
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
