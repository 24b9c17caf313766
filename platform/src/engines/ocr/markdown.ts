/**
 * Page text → markdown, for both sources of text: the PDF text layer (runs with positions and font sizes:
 * headings from size relative to the page's body size, paragraphs from vertical gaps) and tesseract's
 * plain text (paragraphs separated by blank lines). Bullet and numbered lines become markdown lists; in text
 * layers, two or more consecutive lines split into the same number of aligned cells (wide gaps) become a table.
 */

/** A piece of text on the page: baseline origin in PDF units (y grows upwards) and font size. */
export interface TextRun { str: string; x: number; y: number; width: number; size: number }

interface Cell { text: string; x: number }
interface Line { text: string; y: number; size: number; cells: Cell[] }

const BULLET = /^[•◦▪‣∙●○■□–\-*]\s+/;
const NUMBERED = /^(\d{1,3})[.)]\s+/;

/** A line as a markdown list item (`- …`, `3. …`), or undefined when it is not one. */
export function listItem(line: string): string | undefined {
  const bullet = BULLET.exec(line);
  if (bullet) return `- ${line.slice(bullet[0].length).trim()}`;
  const numbered = NUMBERED.exec(line);
  if (numbered) return `${numbered[1]}. ${line.slice(numbered[0].length).trim()}`;
  return undefined;
}

/** Groups runs into lines (same baseline), top to bottom, left to right. */
function toLines(runs: TextRun[]): Line[] {
  const sorted = runs.filter((r) => r.str.length && r.size > 0).sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Array<{ runs: TextRun[]; y: number; size: number }> = [];
  for (const run of sorted) {
    const line = lines.find((l) => Math.abs(l.y - run.y) < 0.4 * Math.max(l.size, run.size));
    if (line) { line.runs.push(run); line.size = Math.max(line.size, run.size); }
    else lines.push({ runs: [run], y: run.y, size: run.size });
  }
  return lines
    .sort((a, b) => b.y - a.y)
    .map((l) => {
      const ordered = l.runs.sort((a, b) => a.x - b.x);
      let text = '';
      let end = -Infinity;
      const cells: Cell[] = [];
      for (const r of ordered) {
        // pdfjs adds whitespace runs spanning gaps; cells are split on the gap between visible runs.
        if (!r.str.trim()) { text += ' '; continue; }
        const gap = r.x - end;
        if (text && !/\s$/.test(text) && !/^\s/.test(r.str) && gap > 0.15 * r.size) text += ' ';
        text += r.str;
        if (!cells.length || gap > 1.5 * r.size) cells.push({ text: '', x: r.x });
        cells[cells.length - 1].text += r.str;
        end = r.x + r.width;
      }
      const clean = (t: string) => t.replace(/\s+/g, ' ').trim();
      return { text: clean(text), y: l.y, size: l.size, cells: cells.map((c) => ({ text: clean(c.text), x: c.x })).filter((c) => c.text) };
    })
    .filter((l) => l.text);
}

/** Whether `b` continues the table whose last row is `a`: same number (≥2) of cells, aligned, close below. */
const sameTable = (a: Line, b: Line) =>
  a.cells.length >= 2 && a.cells.length === b.cells.length && a.y - b.y < 2.5 * a.size &&
  a.cells.every((c, i) => Math.abs(c.x - b.cells[i].x) < 2.5 * a.size);

/** A table as markdown; the first row is the header. */
export function markdownTable(rows: string[][]): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|');
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  return [line(rows[0]), line(rows[0].map(() => '---')), ...rows.slice(1).map(line)].join('\n');
}

/** A table as HTML; the first row is the header. */
export function htmlTable(rows: string[][]): string {
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const row = (r: string[], tag: string) => `<tr>${r.map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`;
  return `<table>${row(rows[0], 'th')}${rows.slice(1).map((r) => row(r, 'td')).join('')}</table>`;
}

/** The most common font size, weighted by characters: the page's body text size. */
function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const key = Math.round(l.size * 2) / 2;
    weight.set(key, (weight.get(key) ?? 0) + l.text.length);
  }
  return [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}

/** A block placed among the text by its top edge in PDF units (y grows upwards), e.g. an image reference. */
export interface Figure { top: number; markdown: string }

/** Markdown blocks as they are written: a paragraph or a list is collected line by line, until `flush` closes it. */
class MarkdownBlocks {
  private readonly blocks: string[] = [];
  paragraph: string[] = [];
  list: string[] = [];

  /** `keepLines`: the lines of a paragraph or list item stay lines of their own instead of being joined by spaces. */
  constructor(private readonly keepLines = false) {}

  /** A line that goes on the list item being collected. */
  continueItem(line: string): void {
    this.list[this.list.length - 1] += `${this.keepLines ? '\n' : ' '}${line}`;
  }

  /** Closes the paragraph and the list being collected. */
  flush(): void {
    if (this.paragraph.length) this.blocks.push(this.paragraph.join(this.keepLines ? '\n' : ' '));
    if (this.list.length) this.blocks.push(this.list.join('\n'));
    this.paragraph = [];
    this.list = [];
  }

  /** A block of its own (heading, table, figure), after what was being collected. */
  block(markdown: string): void {
    this.flush();
    this.blocks.push(markdown);
  }

  toString(): string {
    this.flush();
    return this.blocks.join('\n\n');
  }
}

/**
 * Markdown of a page's text layer, with `figures` as blocks of their own where they sit on the page; each table
 * found becomes the block `table(rows)` returns (default: a markdown table). With `keepLines` the lines of a
 * paragraph are not joined (for readers that quote lines, such as the chat engine's attachment reading).
 */
export function textLayerToMarkdown(runs: TextRun[], figures: Figure[] = [], table: (rows: string[][]) => string = markdownTable, keepLines = false): string {
  const lines = toLines(runs);
  const pending = [...figures].sort((a, b) => b.top - a.top);
  const body = bodySize(lines);
  const out = new MarkdownBlocks(keepLines);
  let prev: Line | undefined;
  const placeFigures = (above: number) => {
    while (pending.length && pending[0].top > above) {
      out.block(pending.shift()!.markdown);
      prev = undefined;
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    placeFigures(line.y + line.size * 0.8);
    let last = i;
    while (last + 1 < lines.length && sameTable(lines[last], lines[last + 1])) last++;
    if (last > i) {
      out.block(table(lines.slice(i, last + 1).map((l) => l.cells.map((c) => c.text))));
      prev = undefined;
      i = last;
      continue;
    }
    const ratio = line.size / body;
    const gap = prev ? prev.y - line.y : 0;
    const newBlock = !prev || gap > 1.6 * Math.max(prev.size, line.size) || Math.abs(prev.size - line.size) > 0.15 * body;
    if (ratio >= 1.15) {
      out.block(`${ratio >= 1.5 ? '#' : '##'} ${line.text}`);
    } else {
      const item = listItem(line.text);
      if (item) {
        if (out.paragraph.length || newBlock) out.flush();
        out.list.push(item);
      } else if (out.list.length && !newBlock) {
        out.continueItem(line.text);
      } else {
        if (newBlock) out.flush();
        out.paragraph.push(line.text);
      }
    }
    prev = line;
  }
  placeFigures(-Infinity);
  return out.toString();
}

/** Markdown of recognised text: blank lines separate paragraphs, wrapped lines are joined (unless `keepLines`). */
export function ocrTextToMarkdown(text: string, keepLines = false): string {
  const out = new MarkdownBlocks(keepLines);
  for (const para of text.split(/\n\s*\n/)) {
    const lines = para.split('\n').map((l) => l.trim()).filter(Boolean);
    for (const line of lines) {
      const item = listItem(line);
      if (item) {
        if (out.paragraph.length) out.flush();
        out.list.push(item);
      } else if (out.list.length) {
        out.continueItem(line);
      } else {
        out.paragraph.push(line);
      }
    }
    out.flush();
  }
  return out.toString();
}
