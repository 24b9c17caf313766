// The kit's Trusted Types policy (parley-kit): created once, under its documented name, and only ever
// producing HTML without tags; null when the page refuses the name; plain escaped text without Trusted Types.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

type Rules = { createHTML(input: string): string };
const g = globalThis as { trustedTypes?: unknown };

async function fresh() {
  vi.resetModules();
  return import('../../../src/elements/internal/trusted-html.js');
}

describe('escapedHtml', () => {
  beforeEach(() => { delete g.trustedTypes; });
  afterEach(() => { delete g.trustedTypes; });

  test('without Trusted Types: the text with < escaped', async () => {
    const { escapedHtml } = await fresh();
    expect(escapedHtml('a &amp; <b>x</b>')).toBe('a &amp; &lt;b>x&lt;/b>');
  });

  test('with Trusted Types: one policy named parley-kit, created once; its rule escapes < whatever it is given', async () => {
    const created: { name: string; rules: Rules }[] = [];
    g.trustedTypes = { createPolicy: (name: string, rules: Rules) => { created.push({ name, rules }); return { createHTML: (s: string) => ({ trusted: rules.createHTML(s) }) }; } };
    const { escapedHtml, TRUSTED_TYPES_POLICY } = await fresh();
    expect(TRUSTED_TYPES_POLICY).toBe('parley-kit');
    expect(escapedHtml('x <img src=y onerror=z> &#x61;')).toEqual({ trusted: 'x &lt;img src=y onerror=z> &#x61;' });
    expect(escapedHtml('second')).toEqual({ trusted: 'second' });
    expect(created.map((c) => c.name)).toEqual(['parley-kit']);
    expect(created[0]!.rules.createHTML('<script>')).toBe('&lt;script>');
  });

  test('a page that refuses the name: null, and the policy is not asked for again', async () => {
    let asked = 0;
    g.trustedTypes = { createPolicy: () => { asked++; throw new TypeError('Policy "parley-kit" disallowed.'); } };
    const { escapedHtml } = await fresh();
    expect(escapedHtml('a &amp; b')).toBeNull();
    expect(escapedHtml('c &amp; d')).toBeNull();
    expect(asked).toBe(1);
  });
});

describe('safeUrl without the HTML parser (no DOM, or the policy refused)', () => {
  test('numeric and named references are decoded before the protocol is checked', async () => {
    const { safeUrl } = await import('../../../src/elements/internal/markdown.js');
    expect(safeUrl('jav&#x61;script&colon;alert(1)')).toBeNull();
    expect(safeUrl('javascript&#58;alert(1)')).toBeNull();
    expect(safeUrl('https://example.com/menu?a=1&amp;b=2')?.href).toBe('https://example.com/menu?a=1&b=2');
    expect(safeUrl('mailto:shop&#64;example.com')?.href).toBe('mailto:shop@example.com');
  });
});
