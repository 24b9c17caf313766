/**
 * `cssProps({ transform: 'scaleX(0.5)' })` on an element: sets those style properties through the CSSOM
 * (`element.style.setProperty`) on every render, first render included. Lit's `styleMap` writes a
 * `style="…"` attribute on the first render, which a Content-Security-Policy without `'unsafe-inline'`
 * styles blocks (a `style-src-attr` violation); the CSSOM is not governed by `style-src`.
 */
import { noChange, nothing } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

class CssProps extends Directive {
  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('cssProps() goes on an element: <span ${cssProps({…})}>');
  }

  render(_props: Readonly<Record<string, string>>) {
    return nothing;
  }

  override update(part: ElementPart, [props]: [Readonly<Record<string, string>>]) {
    const style = (part.element as HTMLElement).style;
    for (const name in props) style.setProperty(name, props[name]!);
    return noChange;
  }
}

/** Style properties set through the CSSOM (CSP-safe), see the module comment. */
export const cssProps = directive(CssProps);
