/**
 * Registers `element` as `tag` unless the name is taken: a second copy of the kit on the page (another
 * bundle) finds it defined and leaves it alone instead of throwing, with a warning if another class holds it.
 */
export function defineOnce(tag: string, element: CustomElementConstructor): void {
  if (typeof customElements === 'undefined') return; // server-side rendering: nothing to register
  const existing = customElements.get(tag);
  if (!existing) customElements.define(tag, element);
  else if (existing !== element) console.warn(`[parley] <${tag}> is already defined by another class (another copy of parley-kit?); keeping that one.`);
}
