/**
 * `${textField()}` on a `<textarea>` or text `<input>`, after its `.value` binding:
 *
 * - Direction: while the box is empty it has no `dir`, so it follows the element's direction (an
 *   `<html dir="rtl">` page puts the placeholder and caret on the right); once it holds text it is
 *   `dir="auto"`, the text's first strong character deciding. (`dir="auto"` on an empty box resolves
 *   left to right.)
 * - Height: where `field-sizing: content` is missing (WebKit, older Firefox), a textarea grows with its text:
 *   its height is set from `scrollHeight` through the CSSOM (no `style=` attribute, so a strict
 *   Content-Security-Policy allows it), capped by the `max-height` its CSS gives it.
 *
 * Both are applied after each render of the template that holds the box and on each `input` event.
 * `textFieldSizing.fallback` says whether the height fallback runs; a test may set it to true in an engine
 * that has `field-sizing` to run the fallback path.
 */
import { noChange, nothing } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

type Field = HTMLTextAreaElement | HTMLInputElement;

/** Whether textareas are sized by script (true where `CSS.supports('field-sizing', 'content')` is false). */
export const textFieldSizing = {
  fallback: typeof CSS === 'undefined' || !CSS.supports?.('field-sizing', 'content'),
};

/** Applies the direction and, in the fallback, the height of `field` (see the module comment). */
export function fitTextField(field: Field): void {
  if (field.value) field.dir = 'auto';
  else field.removeAttribute('dir');
  if (!textFieldSizing.fallback || !(field instanceof HTMLTextAreaElement)) return;
  const style = field.style;
  style.removeProperty('height');
  if (!field.scrollHeight) return; // not laid out (a closed panel): the CSS size stands until it is shown
  const box = getComputedStyle(field);
  const borders = box.boxSizing === 'border-box' ? parseFloat(box.borderTopWidth) + parseFloat(box.borderBottomWidth) : -(parseFloat(box.paddingTop) + parseFloat(box.paddingBottom));
  if (field.scrollHeight > field.clientHeight) style.setProperty('height', `${field.scrollHeight + borders}px`);
}

const onInput = (event: Event) => fitTextField(event.target as Field);

class TextField extends Directive {
  #field: Field | null = null;

  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('textField() goes on a <textarea> or <input>');
  }

  render() {
    return nothing;
  }

  override update(part: ElementPart) {
    const field = part.element as Field;
    if (this.#field !== field) {
      this.#field = field;
      field.addEventListener('input', onInput);
    }
    // After the render has committed (and inserted a first render): the value is the one shown.
    queueMicrotask(() => fitTextField(field));
    return noChange;
  }
}

/** A text box that follows the element's direction while empty and grows with its text (module comment). */
export const textField = directive(TextField);
