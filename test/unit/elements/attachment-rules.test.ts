// <agent-chat>'s attachment rules: limits checked before anything is sent, and file names made safe to show.
import { describe, expect, test } from 'vitest';
import { checkAttachments as check, mediaTypeOf, parseTypes, typeAccepted, typeLabel } from '../../../src/elements/agent-chat/attachment-rules.js';
import { MAX_NAME_LENGTH, safeFileName } from '../../../src/elements/agent-chat/file-names.js';
import { attachmentsOf } from '../../../src/elements/agent-chat/transcript.js';
import { defaultAgentChatStrings as en } from '../../../src/elements/agent-chat/strings.js';
import { fileSizeIn } from '../../../src/elements/internal/locale-format.js';

const MB = 1024 * 1024;
const DEFAULT_TYPES = parseTypes('image/png,image/jpeg,image/gif,image/webp,application/pdf');
const limits = { maxCount: 4, maxBytes: 10 * MB, types: DEFAULT_TYPES };
const checkAttachments = (files: Parameters<typeof check>[0], present: number, l: Parameters<typeof check>[2]) => check(files, present, l, safeFileName);
const file = (name: string, size: number, type = 'image/png') => ({ name, size, type });

describe('limits', () => {
  test('a file over the size limit is refused with its size and the limit, in words', () => {
    const { accepted, refused } = checkAttachments([file('scan.pdf', 31.5 * MB, 'application/pdf')], 0, limits);
    expect(accepted).toHaveLength(0);
    expect(refused).toEqual([{ kind: 'too-large', name: 'scan.pdf', size: 31.5 * MB, limit: 10 * MB }]);
    expect(en.attachmentTooLarge('scan.pdf', 31.5 * MB, 10 * MB)).toBe('scan.pdf is 31.5 MB; the limit is 10 MB.');
  });

  test('exactly the limit passes; one byte more does not', () => {
    expect(checkAttachments([file('a.png', 10 * MB)], 0, limits).accepted).toHaveLength(1);
    expect(checkAttachments([file('a.png', 10 * MB + 1)], 0, limits).refused[0]!.kind).toBe('too-large');
  });

  test('a type not accepted is refused naming the accepted ones; the name\'s extension does not make an HTML file an image', () => {
    const { refused } = checkAttachments([file('page.png', 100, 'text/html'), file('x.svg', 100, 'image/svg+xml')], 0, limits);
    expect(refused.map((r) => r.kind)).toEqual(['type', 'type']);
    expect(refused[0]).toMatchObject({ types: 'PNG, JPEG, GIF, WEBP, PDF' });
  });

  test('files past the count are refused one by one, counting those already attached', () => {
    const files = [file('1.png', 1), file('2.png', 1), file('3.png', 1)];
    const { accepted, refused } = checkAttachments(files, 2, limits);
    expect(accepted.map((a) => a.name)).toEqual(['1.png', '2.png']);
    expect(refused).toEqual([{ kind: 'too-many', name: '3.png', limit: 4 }]);
    expect(en.attachmentTooMany('3.png', 4)).toBe('3.png wasn’t attached: 4 files per message at most.');
    expect(en.attachmentTooMany('3.png', 1)).toBe('3.png wasn’t attached: one file per message at most.');
  });

  test('a file without a browser type is judged by its extension; image/* takes any image', () => {
    expect(mediaTypeOf({ name: 'Receipt.JPG', type: '' })).toBe('image/jpeg');
    expect(mediaTypeOf({ name: 'noext', type: '' })).toBe('');
    expect(typeAccepted('image/heic', parseTypes('image/*, application/pdf'))).toBe(true);
    expect(typeAccepted('', parseTypes('image/*'))).toBe(false);
    expect(parseTypes('image/png  bogus, <script>/x application/pdf')).toEqual(['image/png', 'application/pdf']);
    expect(typeLabel('image/svg+xml')).toBe('SVG');
    expect(typeLabel('image/*')).toBe('image/*');
  });

  test('sizes are written in the visitor\'s language', () => {
    expect(fileSizeIn('en')(31.5 * MB)).toBe('31.5 MB');
    expect(fileSizeIn('fr')(31.5 * MB)).toMatch(/^31,5\s?Mo$/);
    expect(fileSizeIn('de')(31.5 * MB)).toMatch(/^31,5\sMB$/);
    expect(fileSizeIn('en')(2048)).toBe('2 kB');
    expect(fileSizeIn('en')(12)).toBe('12 byte');
  });
});

describe('hostile file names', () => {
  test('markup stays text (the element binds names as text); it is kept as written', () => {
    expect(safeFileName('<img src=x onerror=alert(1)>.png')).toBe('<img src=x onerror=alert(1)>.png');
  });

  test('right-to-left overrides and isolates are removed, so "gpj.exe" cannot read as "exe.jpg"', () => {
    expect(safeFileName('invoice\u202Egpj.exe')).toBe('invoicegpj.exe');
    expect(safeFileName('a\u2066b\u2067c\u2068d\u2069e\u200Ff\u061Cg')).toBe('abcdefg');
  });

  test('control characters are removed and white space runs made one space', () => {
    expect(safeFileName('re\u0000ce\u0007ipt\r\n\t  2024.png')).toBe('receipt 2024.png');
    expect(safeFileName('\u0000\u202E ')).toBe('file');
  });

  test('a 10 000-character name is cut in the middle, its extension kept', () => {
    const name = safeFileName(`${'a'.repeat(10_000)}.pdf`);
    expect([...name].length).toBe(MAX_NAME_LENGTH);
    expect(name.endsWith('….pdf')).toBe(true);
    const { accepted } = checkAttachments([file(`${'b'.repeat(10_000)}.png`, 10)], 0, limits);
    expect([...accepted[0]!.name].length).toBe(MAX_NAME_LENGTH);
  });
});

describe('attachments in the transcript', () => {
  test('image_url (string or {url}) and document_url chunks of a user message, in order', () => {
    expect(attachmentsOf('text')).toEqual([]);
    expect(attachmentsOf([
      { type: 'text', text: 'hi' },
      { type: 'image_url', image_url: 'data:image/png;base64,AAAA' },
      { type: 'image_url', image_url: { url: 'https://x.example/a.png' } },
      { type: 'document_url', document_url: 'data:application/pdf;base64,AAAA', document_name: 'a.pdf' },
      { type: 'document_url', document_url: 'data:application/pdf;base64,AAAA' },
    ] as never)).toEqual([
      { kind: 'image', url: 'data:image/png;base64,AAAA', name: '' },
      { kind: 'image', url: 'https://x.example/a.png', name: '' },
      { kind: 'document', url: 'data:application/pdf;base64,AAAA', name: 'a.pdf' },
      { kind: 'document', url: 'data:application/pdf;base64,AAAA', name: '' },
    ]);
  });
});
