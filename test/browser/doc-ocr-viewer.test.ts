// <doc-ocr-viewer> in Chromium: a result fed through the `result` property (rendering, sanitising,
// page images, navigation, search, keyboard, axe), and real readings through the REAL relay and local
// platform mounted at /api (a PNG of "Hello Parley OCR", errors).
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { DocOcrViewer } from '../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js';
import type { OcrPage, OcrResponse } from '../../src/client/index.js';
import { axeViolations } from './helpers/axe.js';

const RELAY = '/api';
/** A 1×1 red PNG as the platform would inline it. */
const RED_DOT = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A PDF with a text layer, one line per page (`Page N says apples`), with a correct xref table. */
function textPdf(pages: number): File {
  const objects: string[] = [];
  const pageIds = Array.from({ length: pages }, (_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pageIds.forEach((id, i) => {
    const content = `BT /F1 28 Tf 72 700 Td (Page ${i + 1} says apples) Tj ET`;
    objects[id] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${id + 1} 0 R >>`;
    objects[id + 1] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n${offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new File([out], 'apples.pdf', { type: 'application/pdf' });
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
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'Enter' });
    await sendKeys({ up: 'Shift' });
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

    // The original page, drawn by pdf.js (loaded now): a canvas of the page's proportions with dark text pixels.
    const toggle = el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="original-button"]')!;
    toggle.click();
    await el.updateComplete;
    expect(toggle.getAttribute('aria-pressed')).to.equal('true');
    const canvas = () => el.shadowRoot!.querySelector<HTMLCanvasElement>('canvas[part~="original"]')!;
    await waitUntil(() => canvas()?.dataset.page === '4', 'page 4 drawn', { timeout: 10_000 });
    expect(canvas().getAttribute('aria-label')).to.equal('Original of page 4');
    expect(canvas().height / canvas().width).to.be.closeTo(792 / 612, 0.01);
    const pixels = canvas().getContext('2d')!.getImageData(0, 0, canvas().width, canvas().height).data;
    let dark = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 100 && pixels[i + 3]! > 200) dark++;
    expect(dark, 'text was drawn').to.be.greaterThan(100);
    parts(el).prev().click();
    await waitUntil(() => canvas()?.dataset.page === '3', 'page 3 drawn', { timeout: 10_000 });
    toggle.click();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('canvas')).to.equal(null);
    toggle.click();
    el.result = fed; // a result the host sets has no original to show
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('canvas')).to.equal(null);
    expect(el.shadowRoot!.querySelector('[part~="original-button"]')).to.equal(null);
  });

  it('reads a URL pasted on the element, and cancel stops a reading without an answer', async () => {
    const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    const started = oneEvent(el, 'parley-ocr-start');
    const data = new DataTransfer();
    data.setData('text/plain', 'https://not-allowed.example/paper.pdf');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, composed: true, cancelable: true }));
    expect((await started).detail).to.deep.equal({ source: 'url', name: 'https://not-allowed.example/paper.pdf' });
    await oneEvent(el, 'parley-ocr-error');

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
    expect(parts(el).error()!.getAttribute('role')).to.equal('alert');

    const remote = oneEvent(el, 'parley-ocr-error');
    parts(el).urlInput().value = 'https://not-allowed.example/scan.pdf';
    el.shadowRoot!.querySelector('form')!.requestSubmit();
    const { detail } = await remote;
    expect(detail.error.status).to.be.within(400, 499);
    await waitUntil(() => parts(el).error()?.textContent?.includes('could not be read'));
    expect(el.result).to.equal(null);
  });
});
