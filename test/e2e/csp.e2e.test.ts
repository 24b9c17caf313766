// The four elements on one page under a strict Content-Security-Policy with Trusted Types (scripts/csp-check.mjs:
// the policy, a loopback server that sends it with every response in front of `parley start`, and the page's
// flows), in Chromium, Firefox ESR and WebKitGTK: a markdown reply streamed, speech played, a PDF read and its
// character references rendered, the fake microphone recorded. No securitypolicyviolation may fire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: an untyped .mjs (the manual check script, shared with this test)
import { startCspStack } from '../../scripts/csp-check.mjs';
import { ENGINES, useEngine } from './harness/engines.js';

interface Violation { directive: string; blocked: string; source: string; line: number; sample: string }

let stack: { page: string; csp: string; close(): Promise<void> };

beforeAll(async () => {
  stack = await startCspStack();
}, 90_000);

afterAll(async () => {
  await stack?.close();
});

describe.each(ENGINES)('%s', (engine) => {
  const engineBrowser = useEngine(engine);

  it('runs all four elements with no violation: chat, speech, a PDF, character references, the microphone', async () => {
    expect(stack.csp).toContain("require-trusted-types-for 'script'");
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(stack.page);
      const ready = await page.run(async () => {
        for (let i = 0; i < 300 && !(window as unknown as { cspFlows?: unknown }).cspFlows; i++) await new Promise((r) => setTimeout(r, 50));
        return Boolean((window as unknown as { cspFlows?: unknown }).cspFlows);
      });
      expect(ready, 'the check page loaded its flows').toBe(true);
      const results: string[] = [];
      for (const flow of ['chat', 'speech', 'pdf', 'entities'] as const) {
        results.push(await page.run((name: string) => (window as unknown as { cspFlows: Record<string, () => Promise<string>> }).cspFlows[name]!(), flow));
      }
      // Chromium's fake microphone says a sentence; Firefox's and WebKit's are a tone: recorded for a while.
      results.push(await page.run(
        (words: boolean) => (window as unknown as { cspFlows: { mic(o: { words: boolean }): Promise<string> } }).cspFlows.mic({ words }),
        browser.speakingMicrophone,
      ));
      expect(results).toHaveLength(5);
      const violations = await page.run(() => (window as unknown as { cspViolations: Violation[] }).cspViolations);
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  }, 240_000);
});
