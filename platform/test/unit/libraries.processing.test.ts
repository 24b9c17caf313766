// The pure parts of library document processing: what a file is, HTML to text, summaries, chunking.
import { describe, expect, it } from 'vitest';
import { documentType, htmlToText } from '../../src/libraries/extract.js';
import { chunkText, summarize } from '../../src/libraries/processor.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('documentType', () => {
  it('sniffs PDFs and images, names text by extension or declared type, refuses binary', () => {
    expect(documentType('x.bin', '', bytes('%PDF-1.4\n…'))).toEqual({ kind: 'pdf', mimeType: 'application/pdf', extension: 'bin' });
    expect(documentType('shot.PNG', '', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toEqual({ kind: 'image', mimeType: 'image/png', extension: 'png' });
    expect(documentType('page.htm', '', bytes('<p>hi</p>'))).toEqual({ kind: 'html', mimeType: 'text/html', extension: 'htm' });
    expect(documentType('data.csv', 'application/octet-stream', bytes('a,b\n1,2'))).toEqual({ kind: 'text', mimeType: 'text/csv', extension: 'csv' });
    expect(documentType('noext', 'application/json; charset=utf-8', bytes('{}'))).toEqual({ kind: 'text', mimeType: 'application/json', extension: null });
    expect(documentType('noext', '', bytes('plain'))).toEqual({ kind: 'text', mimeType: 'text/plain', extension: null });
    expect(documentType('x.txt', 'text/plain', new Uint8Array([0xff, 0xfe, 0x00]))).toBeUndefined();
    expect(documentType('x.txt', 'text/plain', bytes('a\u0000b'))).toBeUndefined();
  });
});

describe('htmlToText', () => {
  it('drops scripts, styles, comments and tags, decodes entities, keeps blocks on lines', () => {
    const html = '<html><head><title>T</title><style>b{}</style></head><body><!-- c --><h2>Head</h2><div>a&nbsp;&lt;b&gt; &#233;&#x41;</div><ul><li>one</li><li>two</li></ul><script>x()</script></body></html>';
    expect(htmlToText(html)).toBe('Head\n\na <b> éA\n\none\n\ntwo');
  });
});

describe('summarize', () => {
  it('takes the first sentences without markdown markers, about 300 characters', () => {
    expect(summarize('# Title\n\n- First point. Second point!')).toBe('Title First point. Second point!');
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const summary = summarize(long)!;
    expect(summary.startsWith('Sentence number 0 is here.')).toBe(true);
    expect(summary.length).toBeLessThanOrEqual(300);
    expect(summary.length).toBeGreaterThan(250);
    expect(summarize('  \n ## \n')).toBeNull();
  });
});

describe('chunkText', () => {
  it('packs paragraphs up to the size, splitting long ones at lines, words, then characters', () => {
    expect(chunkText('aaa\n\nbbb\n\nccc', 7)).toEqual(['aaa', 'bbb', 'ccc']);
    expect(chunkText('aa\n\nbb', 6)).toEqual(['aa\n\nbb']);
    expect(chunkText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(chunkText('x'.repeat(10), 4)).toEqual(['xxxx', 'xxxx', 'xx']);
    const text = Array.from({ length: 50 }, (_, i) => `Paragraph ${i} has a few words in it.`).join('\n\n');
    const chunks = chunkText(text, 256);
    expect(chunks.every((c) => c.length <= 256)).toBe(true);
    expect(chunks.join('\n\n')).toBe(text);
  });
});
