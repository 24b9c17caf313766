/**
 * Registers `<doc-ocr-viewer>`. Importing this module defines the tag once; a second copy of the kit
 * on the page finds it defined and leaves it alone. To use another tag name, do not import this module:
 * `customElements.define('my-ocr-viewer', class extends DocOcrViewer {})`.
 */
import { DocOcrViewer } from './doc-ocr-viewer.js';
import { defineOnce } from '../internal/define-once.js';

export { DocOcrViewer };
/** For pages loading the CDN build: `import { registerLocale, loadLocale } from '…/doc-ocr-viewer.js'` adds a language, or fetches a shipped one ahead of time. */
export { registerLocale, loadLocale } from '../internal/locale.js';

/** Registers `DocOcrViewer` as `doc-ocr-viewer` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineDocOcrViewer(): void {
  defineOnce('doc-ocr-viewer', DocOcrViewer);
}

defineDocOcrViewer();

declare global {
  interface HTMLElementTagNameMap {
    'doc-ocr-viewer': DocOcrViewer;
  }
}
