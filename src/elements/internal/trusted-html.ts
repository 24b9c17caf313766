/**
 * The kit's one Trusted Types policy, named `parley-kit` (docs/guides/embedding.md, "Content Security Policy"), created on
 * first use and then reused. Its only job is decoding character references: `createHTML` escapes every
 * `<` itself, so what it returns can hold text and references but never a tag. A page whose
 * `trusted-types` directive does not list `parley-kit` (or has no Trusted Types) gets null here, and the
 * caller decodes without the HTML parser.
 */
interface TrustedTypesLike {
  createPolicy(name: string, rules: { createHTML(input: string): string }): { createHTML(input: string): unknown };
}

/** The policy's name, for a page's `trusted-types` directive. */
export const TRUSTED_TYPES_POLICY = 'parley-kit';

let policy: { createHTML(input: string): unknown } | null | undefined;

/** `text` with every `<` escaped, as TrustedHTML when the page enforces Trusted Types; null if the policy is refused. */
export function escapedHtml(text: string): unknown {
  const escaped = text.replace(/</g, '&lt;');
  const tt = (globalThis as { trustedTypes?: TrustedTypesLike }).trustedTypes;
  if (!tt) return escaped;
  if (policy === undefined) {
    try {
      policy = tt.createPolicy(TRUSTED_TYPES_POLICY, { createHTML: (input) => input.replace(/</g, '&lt;') });
    } catch {
      policy = null; // the page's trusted-types directive does not allow this name
    }
  }
  return policy ? policy.createHTML(escaped) : null;
}
