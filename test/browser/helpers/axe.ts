// axe-core is a UMD script: importing it for its side effect defines `window.axe`.
import 'axe-core/axe.min.js';
import type { AxeResults, RunOptions } from 'axe-core';

interface Axe { run(context: Element, options?: RunOptions): Promise<AxeResults> }

/** Whether this is Chromium (the engine that judges colour contrast where another engine's axe cannot: see its callers). */
export const isChromium = navigator.userAgent.includes('Chrome/');

/** axe violations in an element's shadow root content (WCAG 2.x A/AA and best practices), but for `skipRules`. */
export async function axeViolations(element: Element, skipRules: string[] = []): Promise<string[]> {
  const axe = (window as unknown as { axe: Axe }).axe;
  const results = await axe.run(element, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    rules: Object.fromEntries(skipRules.map((id) => [id, { enabled: false }])),
  });
  return results.violations.map((v) => `${v.id}: ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
