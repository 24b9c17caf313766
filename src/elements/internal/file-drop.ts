/**
 * A panel's way in for files: the drop zone (a button that opens the file picker and takes dropped
 * files), its hidden `<input type="file">`, the `dragging` highlight (a class on the zone while a file is
 * dragged over it, set on the zone itself: no render needed), and optionally paste (a file, or a URL pasted
 * outside the fields). `<audio-transcriber>` and `<doc-ocr-viewer>` had each written it; its
 * CSS is {@link fileDropStyles}, which only those two add to their styles (after controlStyles).
 */
import { css, html } from 'lit';
import type { ReactiveController, ReactiveControllerHost, TemplateResult } from 'lit';

type Host = ReactiveControllerHost & HTMLElement & { renderRoot: HTMLElement | DocumentFragment };

/** The `.drop-zone` (each element sets its size) and its `.hint`. */
export const fileDropStyles = css`
  .drop-zone {
    min-height: 3.5rem;
    border: 2px dashed var(--_border);
    background: var(--_surface);
  }
  .drop-zone.dragging {
    border-color: var(--_accent);
  }
  .hint {
    color: var(--_muted);
  }
`;

/** What the host takes, and when. */
export interface FileDropOptions {
  /** Whether a file is taken now (the host is not disabled and not busy). */
  accepting(): boolean;
  /** A picked, dropped or pasted file. */
  file(file: File): void;
  /** A dropped or pasted http(s) URL; without it, dropped text is ignored. */
  url?(url: string): void;
  /** Also take what is pasted into the host: a file, or a URL pasted anywhere but in its fields. */
  paste?: boolean;
}

/** See the module comment. */
export class FileDropController implements ReactiveController {
  readonly #host: Host;
  readonly #options: FileDropOptions;

  constructor(host: Host, options: FileDropOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#options.paste) this.#host.addEventListener('paste', this.#onPaste);
  }

  hostDisconnected(): void {
    this.#host.removeEventListener('paste', this.#onPaste);
  }

  /** Opens the browser's file picker (when a file is taken now). */
  readonly pick = (): void => {
    if (this.#options.accepting()) this.#host.renderRoot.querySelector<HTMLInputElement>('input[type="file"]')?.click();
  };

  /** The drop zone, labelled `label` with a `hint`, and the file input taking the types `accept` lists. */
  render(label: string, hint: string, accept: string): TemplateResult {
    return html`<button
        part="drop-zone"
        class="drop-zone"
        type="button"
        aria-disabled=${this.#options.accepting() ? 'false' : 'true'}
        @click=${this.pick}
        @dragenter=${this.#onDragOver}
        @dragover=${this.#onDragOver}
        @dragleave=${this.#onDragLeave}
        @drop=${this.#onDrop}
      >${label} <span class="hint">${hint}</span></button>
      <input type="file" accept=${accept} hidden tabindex="-1" aria-hidden="true" @change=${this.#onChange} />`;
  }

  readonly #onChange = (event: Event): void => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = ''; // the same file can be picked again
    if (file) this.#options.file(file);
  };

  readonly #onDragOver = (event: DragEvent): void => {
    event.preventDefault(); // always: a file dropped next to the zone must not navigate the page away
    const accepting = this.#options.accepting();
    if (event.dataTransfer) event.dataTransfer.dropEffect = accepting ? 'copy' : 'none';
    (event.currentTarget as HTMLElement).classList.toggle('dragging', accepting);
  };

  readonly #onDragLeave = (event: DragEvent): void => {
    (event.currentTarget as HTMLElement).classList.remove('dragging');
  };

  readonly #onDrop = (event: DragEvent): void => {
    event.preventDefault();
    this.#onDragLeave(event);
    if (!this.#options.accepting()) return;
    const file = event.dataTransfer?.files[0];
    if (file) this.#options.file(file);
    else if (this.#options.url) {
      const url = (event.dataTransfer?.getData('text/uri-list') || event.dataTransfer?.getData('text/plain') || '').trim();
      if (/^https?:\/\//i.test(url)) this.#options.url(url);
    }
  };

  readonly #onPaste = (event: ClipboardEvent): void => {
    if (!this.#options.accepting()) return;
    const file = event.clipboardData?.files?.[0];
    if (file) {
      event.preventDefault();
      this.#options.file(file);
      return;
    }
    // A URL pasted anywhere but in the fields is read at once.
    const text = event.clipboardData?.getData('text/plain')?.trim() ?? '';
    const target = event.composedPath()[0];
    if (this.#options.url && !(target instanceof HTMLInputElement) && /^https?:\/\/\S+$/i.test(text)) {
      event.preventDefault();
      this.#options.url(text);
    }
  };
}
