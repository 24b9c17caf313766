/**
 * The files attached to the message being written in `<agent-chat>`: checked against the element's limits
 * (attachment-rules.ts) as they come, shown as removable chips above the message box (a thumbnail for an
 * image, from an object URL revoked when the chip goes), and read into the message's content chunks when it
 * is sent; and the files sent with messages, in the transcript. Loaded with `import()` on the visitor's first
 * attachment, or for the first message shown with files; its styles come with it.
 *
 * Content: an image becomes an `image_url` chunk and a PDF a `document_url` chunk (with `document_name`),
 * each a base64 `data:` URL of the file's bytes under the media type the rules found, after the text chunk.
 * `data:` URLs, not an upload through the files API: the relay checks them in the request body (count,
 * bytes, magic numbers against the declared type) and a page session has no files scope; the history
 * store keeps them with the message, so a reload shows them again.
 */
import { css, html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { InputContentChunk } from '../../client/types.js';
import type { MessageAttachment } from './transcript.js';
import type { ShownStrings } from './strings.js';
import { attachmentTrayEnglish } from './attachment-tray.strings.js';
import { checkAttachments, typeLabel } from './attachment-rules.js';
import { safeFileName } from './file-names.js';
import type { AttachmentLimits, AttachmentRefusal } from './attachment-rules.js';

export { parseTypes } from './attachment-rules.js';

/** The element's words with this module's English. */
type Words = ShownStrings & typeof attachmentTrayEnglish;

/** What the tray needs of the element. */
export interface TrayHost {
  readonly renderRoot: HTMLElement | DocumentFragment;
  readonly updateComplete: Promise<boolean>;
  requestUpdate(): void;
}

/** What the tray reads and does through the element. */
export interface TrayOptions {
  limits(): AttachmentLimits;
  words(): ShownStrings;
  /** Says a sentence in the element's polite live region. */
  announce(text: string): void;
}

/** The element's words with the tray's English under them (a catalogue's or the host's still win). */
const withEnglish = (t: ShownStrings): Words => ({ ...attachmentTrayEnglish, ...t });

/** One attached file, as taken. */
interface Held {
  id: number;
  file: File;
  /** Its name made safe to show and send. */
  name: string;
  type: string;
  /** Object URL of an image's thumbnail (revoked when removed), else null. */
  preview: string | null;
}

/** The sentence that says why a file was not attached. */
export function refusalText(refusal: AttachmentRefusal, t: Words): string {
  switch (refusal.kind) {
    case 'too-large':
      return t.attachmentTooLarge(refusal.name, refusal.size, refusal.limit);
    case 'type':
      return t.attachmentWrongType(refusal.name, refusal.types);
    case 'too-many':
      return t.attachmentTooMany(refusal.name, refusal.limit);
  }
}

/** A file's bytes as a base64 `data:` URL under `type` (the browser's own encoder, off the main thread's JS). */
export function readDataUrl(file: Blob, type: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(`data:${type};base64,${url.slice(url.indexOf(',') + 1)}`);
    };
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

/** The content chunks of a message: its text (when any), then each file as `image_url` or `document_url`. */
export async function contentOf(text: string, files: ReadonlyArray<{ file: Blob; name: string; type: string }>): Promise<InputContentChunk[]> {
  const chunks: InputContentChunk[] = text ? [{ type: 'text', text }] : [];
  for (const { file, name, type } of files) {
    const url = await readDataUrl(file, type);
    chunks.push(type.startsWith('image/') ? { type: 'image_url', image_url: url } : { type: 'document_url', document_url: url, document_name: name });
  }
  return chunks;
}

/** A `data:` URL of an image kind a browser shows without running anything (no SVG). */
const SHOWN_IMAGE = /^data:image\/(?:png|jpeg|gif|webp|avif|bmp);base64,/i;

/**
 * The files sent with a user message, in the transcript: images as thumbnails (only the page's own `data:` URLs are loaded;
 * a remote image shows its alternative text), documents by name. Names are text (`<bdi>`: a right-to-left
 * name does not reorder the line).
 */
export function renderSentAttachments(attachments: readonly MessageAttachment[], shown: ShownStrings): TemplateResult {
  const t = withEnglish(shown);
  return html`<ul part="sent-attachments" class="sent-attachments" aria-label=${t.attachmentsLabel}>${attachments.map((a) => html`<li>${
    a.kind === 'image'
      ? SHOWN_IMAGE.test(a.url) ? html`<img src=${a.url} alt=${t.attachedImage} />` : html`<span class="file">${t.attachedImage}</span>`
      : html`<span class="file"><bdi>${safeFileName(a.name || 'PDF')}</bdi></span>`
  }</li>`)}</ul>`;
}

/** See the module comment. */
export class AttachmentTray {
  readonly #host: TrayHost;
  readonly #options: TrayOptions;
  #items: Held[] = [];
  /** Why the last files offered were refused (shown under the chips), or ''. */
  #notice = '';
  #nextId = 0;

  constructor(host: TrayHost, options: TrayOptions) {
    this.#host = host;
    this.#options = options;
    // The chips' styles join the element's own, in its shadow root.
    const root = host.renderRoot as ShadowRoot;
    const sheet = trayStyles.styleSheet;
    if (sheet && Array.isArray(root.adoptedStyleSheets)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  /** The files attached now, in order. */
  get files(): File[] {
    return this.#items.map((item) => item.file);
  }

  /** Takes the files that pass the limits; says (shows and announces) why the others were refused. Returns whether all were taken. */
  add(files: readonly File[]): boolean {
    const t = withEnglish(this.#options.words());
    const { accepted, refused } = checkAttachments(files, this.#items.length, this.#options.limits(), safeFileName);
    for (const { file, name, type } of accepted) {
      this.#items.push({ id: this.#nextId++, file, name, type, preview: type.startsWith('image/') ? URL.createObjectURL(file) : null });
    }
    this.#notice = refused.map((r) => refusalText(r, t)).join(' ');
    const said = [...accepted.map((a) => t.attachmentAdded(a.name)), this.#notice].filter(Boolean).join(' ');
    if (said) this.#options.announce(said);
    this.#host.requestUpdate();
    return !refused.length;
  }

  /**
   * The content chunks of a message of `text` with `files`, or null when a file is refused or cannot be read
   * (then said, as {@link add} says it). The files are checked again: a host may call `send` with any.
   */
  async content(text: string, files: readonly File[]): Promise<InputContentChunk[] | null> {
    const t = withEnglish(this.#options.words());
    const { accepted, refused } = checkAttachments(files, 0, this.#options.limits(), safeFileName);
    let notice = refused.map((r) => refusalText(r, t)).join(' ');
    let chunks: InputContentChunk[] | null = null;
    if (!notice) {
      try {
        chunks = await contentOf(text, accepted);
      } catch {
        notice = t.attachmentUnreadable(accepted.map((a) => a.name).join(', '));
      }
    }
    if (notice) {
      this.#notice = notice;
      this.#options.announce(notice);
      this.#host.requestUpdate();
    }
    return chunks;
  }

  /** Removes the attachment `id` (its thumbnail's URL revoked), says so, and moves focus to the next chip's button, else to the attach button. */
  remove(id: number): void {
    const index = this.#items.findIndex((item) => item.id === id);
    const item = this.#items[index];
    if (!item) return;
    if (item.preview) URL.revokeObjectURL(item.preview);
    this.#items.splice(index, 1);
    this.#notice = '';
    this.#options.announce(withEnglish(this.#options.words()).attachmentRemoved(item.name));
    this.#host.requestUpdate();
    void this.#host.updateComplete.then(() => {
      const root = this.#host.renderRoot;
      const buttons = root.querySelectorAll<HTMLButtonElement>('[part~="remove-attachment-button"]');
      (buttons[Math.min(index, buttons.length - 1)] ?? root.querySelector<HTMLElement>('[part="attach-button"]'))?.focus();
    });
  }

  /** Drops every attachment and the notice (after a send, or a new conversation). */
  clear(): void {
    for (const item of this.#items) if (item.preview) URL.revokeObjectURL(item.preview);
    this.#items = [];
    this.#notice = '';
    this.#host.requestUpdate();
  }

  /** The chips and the refusal notice; nothing while both are empty. */
  render(shown: ShownStrings): TemplateResult | typeof nothing {
    if (!this.#items.length && !this.#notice) return nothing;
    const t = withEnglish(shown);
    return html`${this.#items.length
        ? html`<ul part="attachments" class="attachments" aria-label=${t.attachmentsLabel}>
            ${this.#items.map((item) => html`<li part="attachment" class="attachment">
              ${item.preview ? html`<img class="thumb" src=${item.preview} alt="" />` : html`<span class="thumb doc" aria-hidden="true">${typeLabel(item.type)}</span>`}
              <span class="about"><bdi class="name" title=${item.name}>${item.name}</bdi>
                <span class="meta">${t.fileSize(item.file.size)} · ${typeLabel(item.type)}</span></span>
              <button part="remove-attachment-button" class="quiet remove" type="button" aria-label=${t.removeAttachment(item.name)} @click=${() => this.remove(item.id)}>✕</button>
            </li>`)}
          </ul>`
        : nothing}
      ${this.#notice ? html`<p part="attachment-notice" class="attachment-notice">${this.#notice}</p>` : nothing}`;
  }
}

/** The styles of the chips and of the files sent with messages: they come with this module, not with the element's first load. */
const trayStyles = css`
  .sent-attachments {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 0.25rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .sent-attachments img {
    display: block;
    max-width: 10rem;
    max-height: 10rem;
    border-radius: var(--_radius-control);
  }
  .file {
    display: inline-block;
    max-width: 14rem;
    padding: 0.3rem 0.6rem;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
  }
  .attachments {
    display: flex;
    flex-wrap: wrap;
    gap: 0.4rem;
    margin: 0;
    padding: 0.5rem var(--_gap) 0;
    list-style: none;
  }
  .attachment {
    display: flex;
    align-items: center;
    gap: 0.4rem;
    max-width: 100%;
    padding: 0.25rem 0.25rem 0.25rem 0.35rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius-control);
    background: var(--_surface);
  }
  .thumb {
    flex: none;
    width: 2.25rem;
    height: 2.25rem;
    object-fit: cover;
    border-radius: 4px;
  }
  .doc {
    display: grid;
    place-items: center;
    font-size: 0.65rem;
    font-weight: 600;
    background: var(--_bg);
  }
  .about {
    display: flex;
    flex-direction: column;
    min-width: 0;
    font-size: 0.85em;
  }
  .name {
    max-width: 12rem;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .meta {
    color: var(--_muted);
  }
  .remove {
    flex: none;
    padding: 0.3rem 0.5rem;
  }
  .attachment-notice {
    margin: 0;
    padding: 0.4rem var(--_gap) 0;
    color: var(--_error);
  }
`;
