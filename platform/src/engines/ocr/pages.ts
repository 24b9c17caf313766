/** The `pages` selection of an OCR request: 0-based, `"0,2-4"` or `[0, 2, 3, 4]`; null = every page. */

/** Parses and checks a selection against `count` pages; returns sorted unique indexes or a message saying what is wrong. */
export function selectPages(pages: string | number[] | null | undefined, count: number): number[] | string {
  if (pages === null || pages === undefined) return Array.from({ length: count }, (_, i) => i);
  const picked = new Set<number>();
  if (typeof pages === 'string') {
    if (!pages.trim()) return 'pages is empty; give 0-based page numbers and ranges like "0,2-4"';
    for (const part of pages.split(',')) {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
      if (!m) return `'${part.trim()}' is not a page number or range; give 0-based page numbers and ranges like "0,2-4"`;
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      if (to < from) return `Page range '${part.trim()}' is reversed`;
      if (to >= count) return `Page ${to} is out of range: the document has ${count} page${count === 1 ? '' : 's'} (0-based: 0-${count - 1})`;
      for (let i = from; i <= to; i++) picked.add(i);
    }
  } else {
    if (!pages.length) return 'pages is empty; give at least one 0-based page number';
    for (const p of pages) {
      if (p >= count) return `Page ${p} is out of range: the document has ${count} page${count === 1 ? '' : 's'} (0-based: 0-${count - 1})`;
      picked.add(p);
    }
  }
  return [...picked].sort((a, b) => a - b);
}
