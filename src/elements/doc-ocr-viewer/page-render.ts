/**
 * One OCR page as DOM: its markdown through the kit's sanitising renderer (markdown.ts: no raw HTML,
 * remote images blocked), then the page's own images (`![img-0.jpeg](img-0.jpeg)`) pointed at the
 * inline `data:image/…;base64` URLs the answer carried, and search matches wrapped in `<mark>`.
 * Everything happens in an inert template before it reaches the page, so nothing loads on the way.
 */
import type { OcrPage } from '../../client/index.js';
import { renderMarkdownFragment } from '../internal/markdown.js';

/**
 * The host that stands for "an image of this page" while the markdown is rendered: the renderer
 * only keeps images of allowed hosts, and this one is swapped for the data URL before insertion
 * (`.invalid` never resolves, should one ever escape).
 */
const PAGE_IMAGE_HOST = 'page-image.parley.invalid';
const INLINE_IMAGE = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/]+=*$/;

/** Renders a page into an inert fragment (see the module comment); `imageUnavailable` names a missing image. */
export function renderOcrPage(ownerDocument: Document, page: OcrPage, imageUnavailable: (alt: string) => string): DocumentFragment {
  const images = new Map<string, string>();
  let text = page.markdown;
  for (const image of page.images ?? []) {
    if (typeof image.image_base64 === 'string' && INLINE_IMAGE.test(image.image_base64)) images.set(image.id, image.image_base64);
    // The id as a link destination (`](img-0.jpeg)`), pointed at the stand-in host.
    text = text.split(`](${image.id})`).join(`](https://${PAGE_IMAGE_HOST}/${encodeURIComponent(image.id)})`);
  }
  const template = ownerDocument.createElement('template');
  template.content.append(renderMarkdownFragment(text, { allowImageHosts: [PAGE_IMAGE_HOST], imageBlocked: (_host, alt) => imageUnavailable(alt) }));
  for (const img of template.content.querySelectorAll('img')) {
    const src = img.getAttribute('src') ?? '';
    const prefix = `https://${PAGE_IMAGE_HOST}/`;
    const data = src.startsWith(prefix) ? images.get(decodeURIComponent(src.slice(prefix.length))) : undefined;
    if (data) {
      img.setAttribute('src', data);
    } else {
      const span = ownerDocument.createElement('span');
      span.className = 'parley-image-blocked';
      span.textContent = imageUnavailable(img.getAttribute('alt') ?? '');
      img.replaceWith(span);
    }
  }
  return template.content;
}

/** The text nodes of `root` in document order (where matches are searched). */
function textNodes(root: Node): Text[] {
  const walker = (root.ownerDocument ?? (root as Document)).createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) out.push(node as Text);
  return out;
}

/** How often `query` occurs (case-insensitive) in the text of `root`, counted within text nodes as {@link highlight} marks them. */
export function countMatches(root: Node, query: string): number {
  const needle = query.toLowerCase();
  if (!needle) return 0;
  let count = 0;
  for (const node of textNodes(root)) {
    const hay = node.data.toLowerCase();
    for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) count++;
  }
  return count;
}

/** Wraps each occurrence of `query` (case-insensitive) in `<mark part="match">`; returns the marks in order. */
export function highlight(root: Node, query: string): HTMLElement[] {
  const needle = query.toLowerCase();
  const marks: HTMLElement[] = [];
  if (!needle) return marks;
  for (const node of textNodes(root)) {
    let current: Text = node;
    for (let at = current.data.toLowerCase().indexOf(needle); at >= 0; at = current.data.toLowerCase().indexOf(needle)) {
      const match = current.splitText(at);
      current = match.splitText(needle.length);
      const mark = node.ownerDocument.createElement('mark');
      mark.setAttribute('part', 'match');
      match.replaceWith(mark);
      mark.append(match);
      marks.push(mark);
    }
  }
  return marks;
}
