/** Pure parts of OCR: text layer → markdown, recognised text → markdown, page selection. */
import { describe, expect, it } from 'vitest';
import { ocrTextToMarkdown, textLayerToMarkdown, type TextRun } from '../../src/engines/ocr/markdown.js';
import { selectPages } from '../../src/engines/ocr/pages.js';

const run = (str: string, y: number, size = 12, x = 72): TextRun => ({ str, x, y, width: str.length * size * 0.5, size });

describe('textLayerToMarkdown', () => {
  it('makes headings from font size, paragraphs from gaps and keeps lists', () => {
    const md = textLayerToMarkdown([
      run('Title', 700, 24), run('Section', 660, 16),
      run('First line of a', 630), run('paragraph.', 616),
      run('Second paragraph.', 585),
      run('• apple', 555), run('• pear', 541),
      run('1) one', 510), run('2) two', 496),
    ]);
    expect(md).toBe('# Title\n\n## Section\n\nFirst line of a paragraph.\n\nSecond paragraph.\n\n- apple\n- pear\n\n1. one\n2. two');
  });

  it('keeps the lines of a paragraph with keepLines (the chat engine reading a receipt)', () => {
    const md = textLayerToMarkdown([run('Lamp 29.00', 630), run('VAT 4.00', 616), run('TOTAL 42.50', 602), run('• wrapped', 570), run('item', 556)], [], undefined, true);
    expect(md).toBe('Lamp 29.00\nVAT 4.00\nTOTAL 42.50\n\n- wrapped\nitem');
  });

  it('joins runs of one baseline left to right, with a space only where there is a gap', () => {
    const md = textLayerToMarkdown([
      { str: 'world', x: 130, y: 500, width: 30, size: 12 },
      { str: 'Hello', x: 72, y: 500.5, width: 30, size: 12 },
      { str: 'ing', x: 160, y: 500, width: 18, size: 12 },
    ]);
    expect(md).toBe('Hello worlding');
  });

  it('makes a table of consecutive lines with the same aligned cells, escaping pipes', () => {
    const cells = (y: number, ...texts: string[]) => texts.map((t, i) => ({ str: t, x: 72 + i * 120, y, width: t.length * 6, size: 12 }));
    const md = textLayerToMarkdown([run('Before.', 700), ...cells(670, 'A', 'B|C'), ...cells(654, '1', '2'), run('After.', 610)]);
    expect(md).toBe('Before.\n\n| A | B\\|C |\n| --- | --- |\n| 1 | 2 |\n\nAfter.');
  });

  it('returns an empty string for an empty page', () => {
    expect(textLayerToMarkdown([run('   ', 500)])).toBe('');
  });
});

describe('ocrTextToMarkdown', () => {
  it('joins wrapped lines, splits paragraphs on blank lines and keeps list items', () => {
    expect(ocrTextToMarkdown('One two\nthree.\n\nNext para.\n\n- a\n- b\ncontinued\n')).toBe('One two three.\n\nNext para.\n\n- a\n- b continued');
    // keepLines (the chat engine's reading): the lines stay lines
    expect(ocrTextToMarkdown('One two\nthree.\n\nNext para.\n\n- a\n- b\ncontinued\n', true)).toBe('One two\nthree.\n\nNext para.\n\n- a\n- b\ncontinued');
  });
});

describe('selectPages', () => {
  it('takes every page for null', () => expect(selectPages(null, 3)).toEqual([0, 1, 2]));
  it('parses "0,2-4" 0-based, sorted and unique', () => expect(selectPages('3-4, 0,2-3', 5)).toEqual([0, 2, 3, 4]));
  it('takes an array', () => expect(selectPages([2, 0, 2], 3)).toEqual([0, 2]));
  it('refuses out of range, reversed, malformed and empty selections', () => {
    expect(selectPages('5', 5)).toMatch(/Page 5 is out of range: the document has 5 pages/);
    expect(selectPages([1], 1)).toMatch(/out of range/);
    expect(selectPages('3-1', 5)).toMatch(/reversed/);
    expect(selectPages('a', 5)).toMatch(/not a page number/);
    expect(selectPages('', 5)).toMatch(/empty/);
    expect(selectPages([], 5)).toMatch(/empty/);
  });
});
