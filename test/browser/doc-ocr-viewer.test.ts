// <doc-ocr-viewer> in Chromium: a result fed through the `result` property (rendering, sanitising,
// page images, navigation, search, keyboard, axe), and real readings through the REAL relay and local
// platform mounted at /api (a PNG of "Hello Parley OCR", errors), with page thumbnails and the original
// page beside its text (pdf.js in this browser), and a regression test for a freeze when switching pages.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { pressWith } from './helpers/keys.js';
import { textPdfSource } from '../fixtures/text-pdf.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { DocOcrViewer } from '../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js';
import type { OcrPage, OcrResponse } from '../../src/client/index.js';
import { axeViolations } from './helpers/axe.js';

const RELAY = '/api';
/** A 1×1 red PNG as the platform would inline it. */
const RED_DOT = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** {@link textPdfSource} as a picked file. */
function textPdf(pages: number, shapes = 0): File {
  return new File([textPdfSource(pages, shapes)], 'apples.pdf', { type: 'application/pdf' });
}

/** Pixels of a decoded image darker than light grey (text), drawn through a canvas. */
function darkPixels(image: HTMLImageElement): number {
  const canvas = document.createElement('canvas');
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext('2d')!;
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let dark = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i]! < 160 && data[i + 3]! > 200) dark++;
  return dark;
}

function parts(el: DocOcrViewer) {
  const root = el.shadowRoot!;
  const q = <T extends HTMLElement = HTMLElement>(part: string) => root.querySelector<T>(`[part~="${part}"]`);
  return {
    page: () => q('page')!,
    position: () => q('page-position')!.textContent!.trim(),
    pageButtons: () => [...root.querySelectorAll<HTMLButtonElement>('[part~="page-button"]')],
    prev: () => root.querySelector<HTMLButtonElement>('.prev-page')!,
    next: () => root.querySelector<HTMLButtonElement>('.next-page')!,
    search: () => q<HTMLInputElement>('search-input')!,
    matchCount: () => q('match-count')!.textContent!.trim(),
    marks: () => [...q('page')!.querySelectorAll<HTMLElement>('mark')],
    fileInput: () => root.querySelector<HTMLInputElement>('input[type="file"]')!,
    urlInput: () => q<HTMLInputElement>('url-input')!,
    error: () => q('error'),
    announcement: () => root.querySelector('[aria-live="polite"]')!.textContent!.trim(),
  };
}

const fed: OcrResponse = {
  model: 'mistral-ocr-latest',
  document_annotation: null,
  usage_info: { pages_processed: 3, doc_size_bytes: 100 },
  pages: [
    {
      index: 0,
      markdown: '# Annual report\n\nRevenue grew.\n\n![img-0.jpeg](img-0.jpeg)\n\n![tracker](https://evil.test/pixel.png)\n\n'
        + '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">\n\n[click](javascript:alert(1))',
      images: [{ id: 'img-0.jpeg', top_left_x: 0, top_left_y: 0, bottom_right_x: 1, bottom_right_y: 1, image_base64: RED_DOT }],
      dimensions: { dpi: 200, height: 2200, width: 1700 },
    },
    { index: 1, markdown: '## Costs\n\n| item | cost |\n|---|---|\n| revenue share | 3 |', images: [], dimensions: null },
    {
      index: 2,
      markdown: 'Outlook: revenue, revenue.\n\n![img-1.jpeg](img-1.jpeg)',
      images: [{ id: 'img-1.jpeg', top_left_x: 0, top_left_y: 0, bottom_right_x: 1, bottom_right_y: 1, image_base64: 'https://evil.test/not-inline.png' }],
      dimensions: null,
    },
  ],
};

async function fedViewer(): Promise<DocOcrViewer> {
  const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY} heading="Report"></doc-ocr-viewer>`);
  el.result = fed;
  await el.updateComplete;
  return el;
}

describe('<doc-ocr-viewer> showing a result', () => {
  it('renders page markdown sanitised: page images from inline data, remote images and raw HTML blocked', async () => {
    const el = await fedViewer();
    const page = parts(el).page();
    expect(page.querySelector('h1')!.textContent).to.equal('Annual report');
    const images = [...page.querySelectorAll('img')];
    expect(images.map((i) => i.getAttribute('src'))).to.deep.equal([RED_DOT]);
    expect(page.textContent).to.contain('[image: tracker]');
    expect(page.querySelector('script')).to.equal(null);
    expect(page.textContent, 'raw HTML is shown as text').to.contain('<script>');
    expect(page.querySelector('[onerror]')).to.equal(null);
    expect(page.querySelector('a')?.hasAttribute('href') ?? false, 'no javascript: link').to.equal(false);
    expect((window as { pwned?: number }).pwned).to.equal(undefined);
    expect(parts(el).position()).to.equal('Page 1 of 3');

    el.showPage(2);
    await el.updateComplete;
    expect(parts(el).page().querySelector('img'), 'an image whose data is not inline is not loaded').to.equal(null);
    expect(parts(el).page().textContent).to.contain('[image: img-1.jpeg]');
  });

  it('copies the page shown or every page, says so, and says when the browser refuses', async () => {
    const el = await fedViewer();
    el.showPage(1);
    await el.updateComplete;
    const root = el.shadowRoot!;
    const button = (part: string) => root.querySelector<HTMLButtonElement>(`[part~="${part}"]`)!;
    const status = () => root.querySelector('[part~="copy-status"]')?.textContent?.trim() ?? '';
    const written: string[] = [];
    const clipboard = Object.getOwnPropertyDescriptor(navigator, 'clipboard');
    const use = (writeText: (text: string) => Promise<void>) =>
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    try {
      use(async (text) => { written.push(text); });
      button('copy-page-button').click();
      await waitUntil(() => status() === 'Copied', 'Copied after copying the page');
      button('copy-all-button').click();
      await waitUntil(() => written.length === 2, 'the second copy');
      use(async () => { throw new DOMException('denied', 'NotAllowedError'); });
      button('copy-all-button').click();
      await waitUntil(() => status().startsWith('Could not copy'), 'the refusal is said');
    } finally {
      if (clipboard) Object.defineProperty(navigator, 'clipboard', clipboard);
      else delete (navigator as { clipboard?: unknown }).clipboard;
    }
    expect(written[0]).to.equal(fed.pages[1].markdown);
    expect(written[1]).to.equal(fed.pages.map((p) => p.markdown.trim()).join('\n\n'));
  });

  it('downloads every page as one .md file named after the document', async () => {
    const el = await fedViewer();
    el.documentName = 'https://example.test/files/annual-report.pdf?download=1';
    await el.updateComplete;
    const clicked: Array<{ name: string; body: Promise<string> }> = [];
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      // Read the blob before the element revokes its URL.
      clicked.push({ name: this.download, body: fetch(this.href).then((r) => r.text()) });
    };
    try {
      el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="download-button"]')!.click();
    } finally {
      HTMLAnchorElement.prototype.click = click;
    }
    expect(clicked).to.have.length(1);
    expect(clicked[0].name).to.equal('annual-report.md');
    expect(await clicked[0].body).to.equal(el.markdown);
    expect(el.markdown).to.contain('# Annual report').and.to.contain('## Costs').and.to.contain('Outlook');

    // A picked file keeps its own name, even with characters a URL would treat as query or fragment.
    el.documentName = 'scan #2 (final).png';
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) { clicked.push({ name: this.download, body: Promise.resolve('') }); };
    try {
      el.download();
    } finally {
      HTMLAnchorElement.prototype.click = click;
    }
    expect(clicked[1].name).to.equal('scan #2 (final).md');
  });

  it('navigates with the buttons and the page list (arrow keys move focus and page)', async () => {
    const el = await fedViewer();
    expect(parts(el).prev().disabled).to.equal(true);
    parts(el).next().click();
    await el.updateComplete;
    expect(parts(el).position()).to.equal('Page 2 of 3');
    expect(parts(el).page().querySelector('table')).to.not.equal(null);
    const buttons = parts(el).pageButtons();
    expect(buttons.map((b) => b.getAttribute('aria-current'))).to.deep.equal([null, 'page', null]);
    expect(buttons.map((b) => b.tabIndex)).to.deep.equal([-1, 0, -1]);
    buttons[1]!.focus();
    await sendKeys({ press: 'ArrowDown' });
    await el.updateComplete;
    expect(parts(el).position()).to.equal('Page 3 of 3');
    expect(el.shadowRoot!.activeElement).to.equal(parts(el).pageButtons()[2]);
    expect(parts(el).next().disabled).to.equal(true);
    await sendKeys({ press: 'Home' });
    await el.updateComplete;
    expect(el.page).to.equal(0);
    expect(buttons[0]!.textContent).to.contain('Page 1').and.contain('Annual report');
  });

  it('searches every page: count, Enter jumps to the next match across pages, highlighted', async () => {
    const el = await fedViewer();
    parts(el).search().focus();
    await sendKeys({ type: 'Revenue' });
    await el.updateComplete;
    // Page 1: "Revenue grew." (1); page 2: "revenue share" (1); page 3: "revenue, revenue." (2).
    expect(parts(el).matchCount()).to.equal('4 matches');
    expect(parts(el).marks().map((m) => m.textContent)).to.deep.equal(['Revenue']);
    await sendKeys({ press: 'Enter' });
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(parts(el).matchCount()).to.equal('Match 2 of 4');
    expect(parts(el).position()).to.equal('Page 2 of 3');
    await sendKeys({ press: 'Enter' });
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(parts(el).position()).to.equal('Page 3 of 3');
    const marks = parts(el).marks();
    expect(marks).to.have.length(2);
    expect(marks[1]!.getAttribute('part')).to.equal('match current');
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(parts(el).position(), 'wraps around').to.equal('Page 1 of 3');
    await pressWith('Shift', 'Enter');
    await el.updateComplete;
    expect(parts(el).matchCount()).to.equal('Match 4 of 4');
    expect(el.markdown).to.contain('# Annual report').and.contain('## Costs');
  });

  it('is accessible (axe) empty and with a result', async () => {
    const empty = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    expect(await axeViolations(empty)).to.deep.equal([]);
    const el = await fedViewer();
    parts(el).search().value = 'revenue';
    parts(el).search().dispatchEvent(new Event('input'));
    await el.updateComplete;
    expect(await axeViolations(el)).to.deep.equal([]);
  });
});

describe('<doc-ocr-viewer> reading through the relay and local platform', () => {
  it('reads a picked PNG of text: events in order, progress, and the words on the page', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    const events: string[] = [];
    for (const name of ['parley-ocr-start', 'parley-ocr-progress', 'parley-ocr-done', 'parley-ocr-error'] as const) {
      el.addEventListener(name, () => events.push(name));
    }
    const res = await fetch('/test/fixtures/ocr/hello.png');
    const file = new File([await res.blob()], 'hello.png', { type: 'image/png' });
    const done = oneEvent(el, 'parley-ocr-done');
    const transfer = new DataTransfer();
    transfer.items.add(file);
    parts(el).fileInput().files = transfer.files;
    parts(el).fileInput().dispatchEvent(new Event('change'));
    await el.updateComplete;
    expect(el.busy).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part~="progress"]')).to.not.equal(null);
    const { detail } = await done;
    expect(detail.name).to.equal('hello.png');
    expect(detail.result.pages).to.have.length(1);
    await el.updateComplete;
    const text = parts(el).page().textContent!.toLowerCase();
    expect(text).to.contain('hello').and.contain('parley').and.contain('ocr');
    expect(events).to.deep.equal(['parley-ocr-start', 'parley-ocr-progress', 'parley-ocr-progress', 'parley-ocr-done']);
    expect(parts(el).announcement()).to.equal('Read 1 page.');
    expect(el.busy).to.equal(false);
  });

  it('reads a PDF in batches of pages: progress per batch, pages in order, navigable', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY} batch-size="2"></doc-ocr-viewer>`);
    const progress: Array<[number, number | null]> = [];
    el.addEventListener('parley-ocr-progress', (e) => progress.push([e.detail.pagesDone, e.detail.pagesTotal]));
    const done = oneEvent(el, 'parley-ocr-done');
    void el.read(textPdf(5));
    const { detail } = await done;
    expect(progress).to.deep.equal([[0, 5], [2, 5], [4, 5], [5, 5]]);
    expect(detail.result.pages.map((p: OcrPage) => p.index)).to.deep.equal([0, 1, 2, 3, 4]);
    await el.updateComplete;
    expect(parts(el).page().textContent).to.contain('Page 1 says apples');
    expect(parts(el).pageButtons()).to.have.length(5);
    parts(el).pageButtons()[3]!.click();
    await el.updateComplete;
    expect(parts(el).page().textContent).to.contain('Page 4 says apples');
    expect(parts(el).position()).to.equal('Page 4 of 5');

    // The original page, drawn by pdf.js (loaded now): a picture of the page's proportions with dark text pixels.
    const toggle = el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="original-button"]')!;
    toggle.click();
    await el.updateComplete;
    expect(toggle.getAttribute('aria-pressed')).to.equal('true');
    const original = () => el.shadowRoot!.querySelector<HTMLImageElement>('img[part~="original"]')!;
    await waitUntil(() => original()?.dataset.page === '4', 'page 4 drawn', { timeout: 10_000 });
    expect(original().alt).to.equal('Original of page 4');
    await original().decode();
    expect(original().naturalHeight / original().naturalWidth).to.be.closeTo(792 / 612, 0.01);
    expect(darkPixels(original()), 'text was drawn').to.be.greaterThan(100);
    parts(el).prev().click();
    await waitUntil(() => original()?.dataset.page === '3', 'page 3 drawn', { timeout: 10_000 });
    toggle.click();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="original"]')).to.equal(null);
    toggle.click();
    el.result = fed; // a result the host sets has no original to show
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="original"]')).to.equal(null);
    expect(el.shadowRoot!.querySelector('[part~="thumbnail"]'), 'nor thumbnails').to.equal(null);
    expect(el.shadowRoot!.querySelector('[part~="original-button"]')).to.equal(null);
  });

  it('reads a URL pasted on the element, and cancel stops a reading without an answer', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    const data = new DataTransfer();
    data.setData('text/plain', 'https://not-allowed.example/paper.pdf');
    const paste = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, composed: true, cancelable: true });
    // Firefox gives a constructed paste event no clipboard data (only a real paste has some): there the
    // paste half cannot be played, and the cancel half below still runs.
    if (paste.clipboardData?.getData('text/plain')) {
      const started = oneEvent(el, 'parley-ocr-start');
      el.dispatchEvent(paste);
      expect((await started).detail).to.deep.equal({ source: 'url', name: 'https://not-allowed.example/paper.pdf' });
      await oneEvent(el, 'parley-ocr-error');
    }

    let finished = false;
    el.addEventListener('parley-ocr-done', () => { finished = true; });
    void el.read(textPdf(3));
    await el.updateComplete;
    expect(el.busy).to.equal(true);
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="cancel-button"]')!.click();
    await el.updateComplete;
    expect(el.busy).to.equal(false);
    expect(parts(el).announcement()).to.equal('Cancelled');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(finished, 'a cancelled reading shows nothing').to.equal(false);
    expect(el.result).to.equal(null);
  });

  it('shows errors: a file that is not a document, and a URL the platform refuses', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    const local = oneEvent(el, 'parley-ocr-error');
    void el.read(new File(['just text'], 'notes.txt', { type: 'text/plain' }));
    expect((await local).detail.message).to.contain('not a PDF or an image');
    await el.updateComplete;
    // Announced once, politely, through the live region: the visible line is not an alert.
    expect(parts(el).error()!.hasAttribute('role')).to.equal(false);
    expect(parts(el).announcement()).to.equal(parts(el).error()!.textContent!.trim());

    const remote = oneEvent(el, 'parley-ocr-error');
    parts(el).urlInput().value = 'https://not-allowed.example/scan.pdf';
    el.shadowRoot!.querySelector('form')!.requestSubmit();
    const { detail } = await remote;
    expect(detail.error.status).to.be.within(400, 499);
    // This relay does not let the platform fetch web addresses: the visitor is told to choose the file.
    expect(detail.kind).to.equal('url-not-allowed');
    await waitUntil(() => parts(el).error()?.textContent?.includes('web address'));
    // The platform's own words go to the event (and the console), not on screen.
    expect(parts(el).error()!.textContent).to.equal(detail.message).and.not.contain(detail.error.message);
    expect(el.result).to.equal(null);
  });
});

describe('<doc-ocr-viewer> thumbnails and the original beside the text', () => {
  const images = (el: DocOcrViewer, part: string) => [...el.shadowRoot!.querySelectorAll<HTMLImageElement>(`img[part~="${part}"]`)];
  const original = (el: DocOcrViewer) => images(el, 'original')[0];
  const pageText = (el: DocOcrViewer) => el.shadowRoot!.querySelector<HTMLElement>('[part~="page"]')!;

  /** A viewer that has read a text PDF of `pages` pages through the relay and platform. */
  async function readPdf(pages: number, shapes = 0, width = '60rem'): Promise<DocOcrViewer> {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY} style="display: block; width: ${width}"></doc-ocr-viewer>`);
    const done = oneEvent(el, 'parley-ocr-done');
    void el.read(textPdf(pages, shapes));
    await done;
    await el.updateComplete;
    return el;
  }

  /** The accessible name of an element of the viewer, as axe computes it. */
  function accessibleName(node: Element): string {
    const axe = (window as unknown as { axe: { setup(n: Node): void; teardown(): void; commons: { text: { accessibleText(n: Element): string } } } }).axe;
    axe.setup(node.getRootNode() instanceof ShadowRoot ? (node.getRootNode() as ShadowRoot).host : node);
    try {
      return axe.commons.text.accessibleText(node).replace(/\s+/g, ' ').trim();
    } finally {
      axe.teardown();
    }
  }

  // WebKit's WebDriver session has no viewport command in web-test-runner: there the window keeps the size its
  // launcher gave it (test/browser/engines/launchers.mjs), wide enough for these tests.
  const viewport = (size: { width: number; height: number }) => setViewport(size).catch((error: Error) => {
    if (!/not supported for browser type webdriver/.test(error.message)) throw error;
  });
  before(() => viewport({ width: 1400, height: 1000 }));
  after(() => viewport({ width: 800, height: 600 }));

  it('shows a rendered thumbnail of each page of a read PDF in the page list, each button named "Page N"', async () => {
    const el = await readPdf(3);
    await waitUntil(() => images(el, 'thumbnail').length === 3, '3 thumbnails drawn', { timeout: 10_000 });
    const thumbnails = images(el, 'thumbnail');
    await Promise.all(thumbnails.map((image) => image.decode()));
    for (const image of thumbnails) {
      expect(image.naturalWidth, 'a picture').to.be.greaterThan(0);
      expect(image.naturalHeight / image.naturalWidth).to.be.closeTo(792 / 612, 0.02);
      expect(darkPixels(image), 'the page text is in the thumbnail').to.be.greaterThan(20);
      expect(image.alt, 'decorative: the button names the page').to.equal('');
    }
    const buttons = parts(el).pageButtons();
    expect(buttons.map((b) => b.contains(b.querySelector('[part~="thumbnail"]')))).to.deep.equal([true, true, true]);
    expect(buttons.map(accessibleName)).to.deep.equal(['Page 1', 'Page 2', 'Page 3']);
    expect(buttons.map((b) => b.tabIndex), 'the list keeps one tab stop').to.deep.equal([0, -1, -1]);
    buttons[0]!.focus();
    await sendKeys({ press: 'ArrowDown' });
    await el.updateComplete;
    expect(parts(el).position()).to.equal('Page 2 of 3');
    expect(el.shadowRoot!.activeElement).to.equal(parts(el).pageButtons()[1]);
  });

  it('shows the original beside its markdown when wide, and above it when narrow', async () => {
    const el = await readPdf(3);
    const toggle = el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="original-button"]')!;
    expect(toggle.textContent!.trim()).to.equal('Show original');
    toggle.click();
    await waitUntil(() => original(el)?.dataset.page === '1', 'page 1 drawn', { timeout: 10_000 });
    await original(el)!.decode();
    expect(toggle.getAttribute('aria-pressed')).to.equal('true');
    const picture = original(el)!.getBoundingClientRect();
    const text = pageText(el).getBoundingClientRect();
    expect(pageText(el).textContent).to.contain('Page 1 says apples');
    expect(picture.width, 'the original is visible').to.be.greaterThan(200);
    expect(picture.height).to.be.greaterThan(200);
    expect(text.width, 'and so is the text').to.be.greaterThan(200);
    expect(text.height).to.be.greaterThan(20);
    expect(picture.right, 'side by side: original on the left').to.be.at.most(text.left);
    expect(Math.abs(picture.top - text.top), 'on one row').to.be.lessThan(20);
    expect(picture.bottom, 'within the window').to.be.at.most(window.innerHeight + 400);
    expect(darkPixels(original(el)!)).to.be.greaterThan(100);

    el.style.width = '30rem';
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const narrowPicture = original(el)!.getBoundingClientRect();
    const narrowText = pageText(el).getBoundingClientRect();
    expect(narrowPicture.bottom, 'stacked under 40rem: the text under the original').to.be.at.most(narrowText.top + 1);
    expect(narrowPicture.width).to.be.greaterThan(100);

    toggle.click();
    await el.updateComplete;
    expect(toggle.getAttribute('aria-pressed')).to.equal('false');
    expect(original(el), 'hidden again').to.equal(undefined);
    expect(pageText(el).textContent).to.contain('Page 1 says apples');
  });

  /**
   * Watches every page pdf.js draws (the real renderer still draws them): how many run at once, on which
   * canvas, and whether each was cancelled. The viewer loads the same vendor module, so patching its page
   * class here sees the viewer's drawings.
   */
  async function watchPdfRenders() {
    interface Task { promise: Promise<unknown>; cancel(...args: unknown[]): void }
    interface PageProto { render(this: { pageNumber: number }, params: { canvas: HTMLCanvasElement }): Task }
    const { openPdf } = await import('../../src/elements/doc-ocr-viewer/pdf-preview.js');
    const doc = await openPdf(textPdf(1));
    const proto = Object.getPrototypeOf(await doc.getPage(1)) as PageProto;
    await doc.destroy();
    const render = proto.render;
    type Entry = { page: number; canvas: HTMLCanvasElement; width: number; cancelled: boolean; settled: boolean };
    const renders: Entry[] = [];
    const onStart = new Set<(entry: Entry) => void>();
    let inFlight = 0;
    let maxInFlight = 0;
    proto.render = function (params) {
      const task = render.call(this, params);
      const entry = { page: this.pageNumber, canvas: params.canvas, width: params.canvas.width, cancelled: false, settled: false };
      renders.push(entry);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      for (const listener of onStart) listener(entry);
      const cancel = task.cancel;
      task.cancel = function (this: Task, ...args: unknown[]) { entry.cancelled = true; return cancel.apply(this, args); };
      const end = () => { entry.settled = true; inFlight--; };
      task.promise.then(end, end);
      return task;
    };
    return {
      renders,
      get maxInFlight() { return maxInFlight; },
      /** The next drawing that `matches` (or one in flight already), once pdf.js has started it. */
      started(matches: (entry: Entry) => boolean): Promise<Entry> {
        const now = renders.find((r) => !r.settled && matches(r));
        if (now) return Promise.resolve(now);
        let listener!: (entry: Entry) => void;
        let timer: ReturnType<typeof setTimeout> | undefined;
        return Promise.race([
          new Promise<Entry>((resolve) => { listener = (entry) => { if (matches(entry)) resolve(entry); }; onStart.add(listener); }),
          new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('no such drawing started (safety net)')), 8_000); }),
        ]).finally(() => { onStart.delete(listener); clearTimeout(timer); });
      },
      restore() { proto.render = render; },
    };
  }

  it('switching pages many times while pages are drawn does not freeze the page (regression)', async () => {
    // What froze the tab, each checked by structure rather than by a clock: an update that starts a drawing
    // (drawings asked for once per switch, not per update), drawings running concurrently (never two pdf.js
    // renders in flight), renders sharing a canvas (each on its own, never one on screen), and drawings of pages
    // no longer shown running on (an original in flight for another page is cancelled by the switch itself).
    // Pages of 3,000 squares each make drawings slow enough for switches to land while they are in flight.
    const el = await readPdf(12, 3000);
    const errors: string[] = [];
    const onError = (event: ErrorEvent | PromiseRejectionEvent) => errors.push(String('reason' in event ? event.reason : event.message));
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onError);
    const pdf = await watchPdfRenders();
    const { OriginalPages } = await import('../../src/elements/doc-ocr-viewer/original-pages.js');
    const askOriginal = OriginalPages.prototype.original;
    let originalsAsked = 0;
    OriginalPages.prototype.original = function (this: InstanceType<typeof OriginalPages>, ...args: Parameters<typeof askOriginal>) {
      originalsAsked++;
      return askOriginal.apply(this, args);
    };
    const isOriginal = (r: { width: number }) => r.width >= 200; // thumbnails are 96 px wide here
    const notCancelled: string[] = [];
    try {
      el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="original-button"]')!.click();
      await el.updateComplete;
      // The request waits for the document's pictures (a loaded pdf.js document), which a busy machine may still be opening.
      await waitUntil(() => originalsAsked > 0, 'the original asked for', { timeout: 20_000 });
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      expect(originalsAsked, 'showing the original asks for one').to.equal(1);
      // 10 switches at once (each original requested and dropped while it waits), then 10 more, each made while
      // pdf.js is drawing the original of the page shown, so that drawing must be cancelled mid-page.
      const order = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 3, 7, 0, 9, 2, 10, 5, 8, 6];
      const cutShort: Array<{ cancelled: boolean }> = [];
      for (const [n, index] of order.entries()) {
        const drawing = n > 10 ? await pdf.started((r) => isOriginal(r) && r.page === order[n - 1]! + 1) : null;
        if (n % 2) parts(el).pageButtons()[index]!.click();
        else el.showPage(index);
        await el.updateComplete;
        if (drawing) cutShort.push(drawing);
        // Right after the switch: whatever original of another page pdf.js is still drawing was told to stop.
        for (const r of pdf.renders) {
          if (isOriginal(r) && !r.settled && !r.cancelled && r.page !== index + 1) notCancelled.push(`page ${r.page} after switching to ${index + 1}`);
        }
      }
      expect(originalsAsked, 'one original asked for per switch: an update does not start a drawing by itself').to.equal(1 + order.length);
      await waitUntil(() => original(el)?.dataset.page === '7', 'the last page shown is drawn', { timeout: 8_000, interval: 20 });
      expect(parts(el).position()).to.equal('Page 7 of 12');
      expect(pageText(el).textContent).to.contain('Page 7 says apples');
      expect(original(el)!.alt).to.equal('Original of page 7');
      expect(notCancelled, 'drawings of pages switched away from are cancelled').to.deep.equal([]);
      expect(cutShort.map((d) => d.cancelled), 'each original being drawn at a switch was cancelled').to.deep.equal(Array(9).fill(true));

      // Still responsive: a frame, a click, and the thumbnails in view all come.
      await new Promise((resolve) => requestAnimationFrame(resolve));
      parts(el).pageButtons()[1]!.click();
      await el.updateComplete;
      expect(parts(el).position()).to.equal('Page 2 of 12');
      await waitUntil(() => original(el)?.dataset.page === '2', 'page 2 drawn', { timeout: 5_000 });
      await waitUntil(() => images(el, 'thumbnail').length >= 6, 'thumbnails in view drawn', { timeout: 8_000 });
      expect(errors, 'no render errors').to.deep.equal([]);
      expect(el.shadowRoot!.querySelectorAll('canvas'), 'pictures, not canvases, in the view').to.have.length(0);

      // Leaving the page mid-drawing cancels quietly; coming back draws again.
      el.showPage(11);
      el.remove();
      document.body.append(el);
      await waitUntil(() => original(el)?.dataset.page === '12', 'drawn again after coming back', { timeout: 5_000 });
      expect(errors).to.deep.equal([]);
      expect(pdf.renders.filter(isOriginal).length, 'originals were drawn').to.be.greaterThan(1);
      expect(pdf.maxInFlight, 'one pdf.js drawing at a time').to.equal(1);
      const canvases = pdf.renders.map((r) => r.canvas);
      expect(new Set(canvases).size, 'a canvas of its own for every drawing').to.equal(canvases.length);
      expect(canvases.filter((c) => c.isConnected), 'never a canvas on screen').to.have.length(0);
    } finally {
      pdf.restore();
      OriginalPages.prototype.original = askOriginal;
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onError);
    }
  });

  it('uses an uploaded image itself as its thumbnail and its original', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY} style="display: block; width: 60rem"></doc-ocr-viewer>`);
    const res = await fetch('/test/fixtures/ocr/hello.png');
    const file = new File([await res.blob()], 'hello.png', { type: 'image/png' });
    const bitmap = await createImageBitmap(file);
    const done = oneEvent(el, 'parley-ocr-done');
    void el.read(file);
    await done;
    await waitUntil(() => images(el, 'thumbnail').length === 1, 'thumbnail shown', { timeout: 5_000 });
    const thumbnail = images(el, 'thumbnail')[0]!;
    await thumbnail.decode();
    expect(thumbnail.src).to.match(/^blob:/);
    expect([thumbnail.naturalWidth, thumbnail.naturalHeight], 'the image itself').to.deep.equal([bitmap.width, bitmap.height]);
    el.toggleOriginal(true);
    await waitUntil(() => original(el), 'original shown', { timeout: 5_000 });
    expect(original(el)!.src, 'the same picture').to.equal(thumbnail.src);
    expect(original(el)!.alt).to.equal('Original of page 1');
    await original(el)!.decode();
    expect(original(el)!.naturalWidth).to.equal(bitmap.width);
    expect(pageText(el).textContent!.toLowerCase()).to.contain('hello');
    // A new document revokes the pictures of the last one.
    const url = thumbnail.src;
    el.result = fed;
    await el.updateComplete;
    expect(images(el, 'thumbnail')).to.have.length(0);
    expect(parts(el).pageButtons()[0]!.textContent, 'the first words stand in for a picture').to.contain('Annual report');
    const revoked = await fetch(url).then(() => false, () => true);
    expect(revoked, 'the object URL was revoked').to.equal(true);
  });

  it('is accessible (axe) with thumbnails and the original shown', async () => {
    const el = await readPdf(3);
    el.toggleOriginal(true);
    await waitUntil(() => original(el)?.dataset.page === '1' && images(el, 'thumbnail').length === 3, 'drawn', { timeout: 10_000 });
    expect(await axeViolations(el)).to.deep.equal([]);
    el.style.width = '30rem';
    await el.updateComplete;
    expect(await axeViolations(el)).to.deep.equal([]);
  });
});

describe('OriginalPages: one drawing queue per document', () => {
  it('draws one page at a time, the original before waiting thumbnails; abort and dispose cancel and revoke', async () => {
    const { OriginalPages } = await import('../../src/elements/doc-ocr-viewer/original-pages.js');
    const pages = new OriginalPages(textPdf(4, 2000));
    const order: string[] = [];
    const track = (name: string, drawing: Promise<string>) => drawing.then((url) => { order.push(name); return url; }, (error: Error) => { order.push(`${name}: ${error.name}`); return ''; });
    const dropped = new AbortController();
    const drawings = [
      track('thumbnail 1', pages.thumbnail(0, 96)),
      track('thumbnail 2', pages.thumbnail(1, 96)),
      track('thumbnail 3', pages.thumbnail(2, 96, dropped.signal)),
      track('thumbnail 4', pages.thumbnail(3, 96)),
      track('original 4', pages.original(3, 600)),
    ];
    dropped.abort();
    const urls = await Promise.all(drawings);
    expect(order).to.deep.equal(['thumbnail 3: AbortError', 'thumbnail 1', 'original 4', 'thumbnail 2', 'thumbnail 4']);
    expect(await pages.original(3, 600), 'kept').to.equal(urls[4]);

    // An original dropped as soon as asked for (the page switch test cancels them mid-page), then everything dropped with the document.
    const inFlight = new AbortController();
    const cancelled = pages.original(0, 600, inFlight.signal).then(() => 'drawn', (error: Error) => error.name);
    queueMicrotask(() => inFlight.abort());
    const waiting = pages.original(1, 600).then(() => 'drawn', (error: Error) => error.name);
    expect(await cancelled).to.equal('AbortError');
    pages.dispose();
    expect(await waiting).to.equal('AbortError');
    const revoked = await fetch(urls[0]!).then(() => false, () => true);
    expect(revoked, 'URLs revoked with the document').to.equal(true);
    expect(await pages.thumbnail(0, 96).then(() => 'drawn', (error: Error) => error.name)).to.equal('AbortError');
  });

  it('a PDF pdf.js cannot open gives no pictures (the text stands in) and fails fast', async () => {
    const { OriginalPages } = await import('../../src/elements/doc-ocr-viewer/original-pages.js');
    const pages = new OriginalPages(new File(['%PDF-1.4 not really'], 'broken.pdf', { type: 'application/pdf' }));
    const results = await Promise.allSettled([pages.thumbnail(0, 96), pages.thumbnail(1, 96), pages.original(0, 600)]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    // Fast: the document is opened once and every drawing fails with that one failure (no retry per page).
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason as Error);
    expect(reasons[0]!.name).to.equal('InvalidPDFException');
    expect(new Set(reasons).size, 'one failed opening shared by every drawing').to.equal(1);
    pages.dispose();
  });
});
