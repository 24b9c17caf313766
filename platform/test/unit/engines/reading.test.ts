/**
 * parley-local reading attachments: passages of read pages, the query of a question, ranking with the embedding
 * engine, and the reply that quotes the best passages with their page (no OCR here: pages are given as text).
 */
import { describe, expect, it } from 'vitest';
import { createLocalChatEngine } from '../../../src/engines/chat/local.js';
import { documentPassages, pagePassages, plainLine, queryOf, rankPassages, sentences } from '../../../src/engines/chat/passages.js';
import { ATTACHMENT_REFERENCE_TOOL, DESCRIPTION_CHARS, escapeMarkdown, readingReply } from '../../../src/engines/chat/reading.js';
import { HASHED_EMBEDDING_DIMENSION, hashedEmbedding } from '../../../src/engines/embeddings/hashed.js';
import type { ReadDocument } from '../../../src/engines/chat/types.js';
import { assistantEntry, collect, fnTool, handoffEntry, request, userEntry } from './helpers.js';

const embed = (texts: readonly string[]) => texts.map((t) => hashedEmbedding(t, HASHED_EMBEDDING_DIMENSION));
const engine = createLocalChatEngine();

/** The OCR engine's text of the receipt fixture (lines kept). */
const RECEIPT = 'CORNER LAMP SHOP\n\n12 Harbour Street\n2026-11-27 14:32\n\nDesk lamp 29.00\nBulb E27 x2 7.50\nGift wrap 2.00\nSUBTOTAL 38.50\nVAT 4.00\nTOTAL 42.50\nThank you for your visit!';
const image = (text: string): ReadDocument => ({ kind: 'image', name: null, pages: [{ index: 0, text }], pageCount: 1 });
const pdf = (name: string | null, pages: string[], pageCount = pages.length): ReadDocument =>
  ({ kind: 'pdf', name, pages: pages.map((text, index) => ({ index, text })), pageCount });
const IMAGE_CHUNK = { type: 'image_url' as const, image_url: 'data:image/png;base64,AAAA' };

describe('passages', () => {
  it('keeps each line of a receipt as a passage of its own', () => {
    expect(pagePassages(RECEIPT)).toEqual([
      'CORNER LAMP SHOP', '12 Harbour Street', '2026-11-27 14:32', 'Desk lamp 29.00', 'Bulb E27 x2 7.50', 'Gift wrap 2.00',
      'SUBTOTAL 38.50', 'VAT 4.00', 'TOTAL 42.50', 'Thank you for your visit!',
    ]);
  });

  it('joins wrapped lines of prose and cuts it into sentences', () => {
    const text = '# Returns\n\nReturns are accepted within 30 days. Items must be unused and in\ntheir original packaging.\nRefunds take five days.';
    expect(pagePassages(text)).toEqual([
      'Returns', 'Returns are accepted within 30 days.', 'Items must be unused and in their original packaging.', 'Refunds take five days.',
    ]);
    expect(sentences('Dr. Who? Yes. 3.5 kg! "Quoted." end')).toEqual(['Dr.', 'Who?', 'Yes.', '3.5 kg!', '"Quoted." end']);
  });

  it('reads markdown markers away: headings, bullets, tables, links, images, emphasis', () => {
    expect(plainLine('## Shipping')).toBe('Shipping');
    expect(plainLine('- Free over 50 euros')).toBe('Free over 50 euros');
    expect(plainLine('2. Second step')).toBe('2. Second step');
    expect(plainLine('| Total | 42.50 |')).toBe('Total 42.50');
    expect(plainLine('|---|---:|')).toBe('');
    expect(plainLine('See **the** [terms](https://x.test) ![img-0.jpeg](img-0.jpeg)')).toBe('See the terms');
    expect(pagePassages('| Item | Price |\n|---|---|\n| Total | 42.50 |')).toEqual(['Item Price', 'Total 42.50']);
  });

  it('numbers passages by document, page and position', () => {
    const passages = documentPassages([pdf('a.pdf', ['One. Two.', 'Three.']), image('Four')]);
    expect(passages.map((p) => [p.document, p.page, p.position, p.text])).toEqual([
      [0, 0, 0, 'One.'], [0, 0, 1, 'Two.'], [0, 1, 0, 'Three.'], [1, 0, 0, 'Four'],
    ]);
  });

  it('asks with the words that say what is sought', () => {
    expect(queryOf('What is the total on this receipt?')).toBe('total');
    expect(queryOf('What does this image say about returns?')).toBe('returns');
    expect(queryOf('What’s the VAT on the invoice?')).toBe('vat');
    expect(queryOf('What is this?')).toBe('what is this');
    expect(queryOf('What does the handbook say about returns?', ['Handbook.pdf'])).toBe('returns');
  });

  it('ranks the line holding the total first, deterministically', () => {
    const passages = documentPassages([image(RECEIPT)]);
    const ranked = rankPassages(passages, 'total', embed);
    expect(ranked[0].text).toBe('TOTAL 42.50');
    expect(ranked[0]).toMatchObject({ matched: 1, page: 0, position: 8 });
    expect(ranked.slice(1).every((p) => p.score < ranked[0].score)).toBe(true);
    // a one-word query whose hashed features collide with an unrelated passage matches nothing
    expect(rankPassages(passages, 'joke', embed).every((p) => p.score === 0)).toBe(true);
    expect(rankPassages(passages, 'total', embed)).toEqual(ranked);
  });
});

describe('readingReply', () => {
  it('quotes the total of a receipt and names the page', () => {
    const reply = readingReply([image(RECEIPT)], 'What is the total on this receipt?', embed, true)!;
    expect(reply.markdown.split('\n\n').slice(0, 2)).toEqual(['Page 1 of your image says:', '> TOTAL 42.50']);
    expect(reply.markdown).not.toContain('SUBTOTAL');
    expect(reply.plain).toBe('Page 1 of your image says: "TOTAL 42.50"');
  });

  it('quotes the sentence about returns from the page it is on, with the file name', () => {
    const doc = pdf('handbook.pdf', ['# Shop handbook\n\nWelcome to the shop.', 'Shipping takes three days.\n\nReturns are accepted within 30 days.']);
    const reply = readingReply([doc], 'What does the handbook say about returns?', embed, true)!;
    expect(reply.markdown).toMatch(/^Page 2 of \*\*handbook\.pdf\*\* says:\n\n> Returns are accepted within 30 days\.\n\n/);
  });

  it('quotes close passages together, grouped by page in rank order', () => {
    const doc = pdf(null, ['Lamp care: dust the lamp shade weekly.', 'Lamp care: never wet the lamp shade.']);
    const reply = readingReply([doc], 'lamp shade care', embed, true)!;
    expect(reply.markdown).toContain('Page 1 of your PDF says:\n\n> Lamp care: dust the lamp shade weekly.');
    expect(reply.markdown).toContain('Page 2 of your PDF says:\n\n> Lamp care: never wet the lamp shade.');
  });

  it('names several unnamed attachments by number', () => {
    const reply = readingReply([image('Opening hours 9 to 5'), image('Closed on Sundays')], 'When is it closed?', embed, true)!;
    expect(reply.markdown).toMatch(/^Page 1 of image 2 says:\n\n> Closed on Sundays/);
  });

  it('quotes the beginning without a question, and says when nothing matches or nothing was read', () => {
    expect(readingReply([image(RECEIPT)], '', embed, true)!.markdown).toMatch(/^Page 1 of your image begins:\n\n> CORNER LAMP SHOP\n>\n> 12 Harbour Street\n>\n> 2026-11-27 14:32\n\n/);
    expect(readingReply([image(RECEIPT)], 'Is zebra xylophone quorum?', embed, true)!.markdown).toMatch(/^Nothing in your image shares words with your question\.\n\nPage 1 of your image begins:/);
    expect(readingReply([image('  \n\n ')], 'What does it say?', embed, true)!.markdown).toBe('I could not find any text in your image.');
  });

  it('answers a follow-up from earlier attachments only when a passage is close', () => {
    expect(readingReply([image(RECEIPT)], 'And the VAT?', embed, false)!.markdown).toContain('> VAT 4.00');
    expect(readingReply([image(RECEIPT)], 'Tell me a joke', embed, false)).toBeNull();
    expect(readingReply([image('')], 'What does it say?', embed, false)).toBeNull();
  });

  it('says when only the first pages were read', () => {
    const reply = readingReply([pdf('big.pdf', ['Returns within 30 days.'], 45)], 'returns?', embed, true)!;
    expect(reply.markdown).toContain('(I read the first 1 of the 45 pages of big.pdf.)');
  });

  it('escapes markdown in passages and file names (untrusted)', () => {
    const doc = pdf('<img src=x onerror=alert(1)>*x*.pdf', ['Total: <b>42</b> [click](javascript:alert(1)) `code`']);
    const reply = readingReply([doc], 'total', embed, true)!;
    expect(reply.markdown.split('\n\n').slice(0, 2).join('\n\n')).not.toMatch(/(?<!\\)[<`[]/);
    expect(reply.markdown).toContain('**\\<img src=x onerror=alert(1)\\>\\*x\\*.pdf**');
    expect(escapeMarkdown('# not a heading')).toBe('\\# not a heading');
    expect(escapeMarkdown('1. not a list')).toBe('1\\. not a list');
  });
});

describe('readingReply citing its sources', () => {
  /** The reference to page `page` of the attachment titled `title`, quoting `description`. */
  const ref = (title: string, page: number, description: string) =>
    ({ type: 'tool_reference', tool: 'attachment', title, url: null, description, page });

  it('numbers the quote of the receipt [1] and cites page 1 of "Your image"', () => {
    const reply = readingReply([image(RECEIPT)], 'What is the total on this receipt?', embed, true, true)!;
    expect(reply.markdown).toMatch(/^Page 1 of your image says:\n\n> TOTAL 42\.50 \[1\]\n\nI quoted the passages/);
    expect(reply.plain).toBe('Page 1 of your image says: "TOTAL 42.50"');
    expect(reply.sources.map((s) => s.reference)).toEqual([ref('Your image', 1, 'TOTAL 42.50')]);
    expect(ATTACHMENT_REFERENCE_TOOL).toBe('attachment');
    // the offset just after the source's first number
    expect(reply.markdown.slice(0, reply.sources[0].end)).toBe('Page 1 of your image says:\n\n> TOTAL 42.50 [1]');
    // without cite: no numbers, no sources (chat completions)
    const bare = readingReply([image(RECEIPT)], 'What is the total on this receipt?', embed, true)!;
    expect(bare.markdown).toMatch(/^Page 1 of your image says:\n\n> TOTAL 42\.50\n\n/);
    expect(bare.sources).toEqual([]);
  });

  it('numbers sources by page in the order they are quoted, titled by file name', () => {
    const doc = pdf(null, ['Lamp care: dust the lamp shade weekly.', 'Lamp care: never wet the lamp shade.']);
    const reply = readingReply([doc], 'lamp shade care', embed, true, true)!;
    expect(reply.markdown).toMatch(/^Page 2 of your PDF says:\n\n> Lamp care: never wet the lamp shade\. \[1\]\n\nPage 1 of your PDF says:\n\n> Lamp care: dust the lamp shade weekly\. \[2\]\n\n/);
    expect(reply.sources.map((s) => s.reference)).toEqual([
      ref('Your PDF', 2, 'Lamp care: never wet the lamp shade.'), ref('Your PDF', 1, 'Lamp care: dust the lamp shade weekly.'),
    ]);
    const handbook = pdf('handbook.pdf', ['# Shop handbook\n\nWelcome to the shop.', 'Shipping takes three days.\n\nReturns are accepted within 30 days.']);
    const named = readingReply([handbook], 'What does the handbook say about returns?', embed, true, true)!;
    expect(named.markdown).toMatch(/^Page 2 of \*\*handbook\.pdf\*\* says:\n\n> Returns are accepted within 30 days\. \[1\]\n\n/);
    expect(named.sources.map((s) => s.reference)).toEqual([ref('handbook.pdf', 2, 'Returns are accepted within 30 days.')]);
  });

  it('gives passages of the same page one number and one source (its best passage), as <agent-chat> numbers them', () => {
    const doc = pdf('care.pdf', ['Lamp care: dust the lamp shade weekly. Lamp care: never wet the lamp shade.']);
    const reply = readingReply([doc], 'lamp shade care', embed, true, true)!;
    expect(reply.markdown).toMatch(/^Page 1 of \*\*care\.pdf\*\* says:\n\n> Lamp care: never wet the lamp shade\. \[1\]\n>\n> Lamp care: dust the lamp shade weekly\. \[1\]\n\n/);
    expect(reply.sources.map((s) => s.reference)).toEqual([ref('care.pdf', 1, 'Lamp care: never wet the lamp shade.')]);
  });

  it('titles unnamed attachments as the reply names them, and cites the beginning it quotes', () => {
    const two = readingReply([image('Opening hours 9 to 5'), image('Closed on Sundays')], 'When is it closed?', embed, true, true)!;
    expect(two.markdown).toMatch(/^Page 1 of image 2 says:\n\n> Closed on Sundays \[1\]/);
    expect(two.sources.map((s) => s.reference)).toEqual([ref('Image 2', 1, 'Closed on Sundays')]);
    const nothing = readingReply([image(RECEIPT)], 'Is zebra xylophone quorum?', embed, true, true)!;
    expect(nothing.markdown).toMatch(/^Nothing in your image shares words with your question\.\n\nPage 1 of your image begins:\n\n> CORNER LAMP SHOP \[1\]\n>\n> 12 Harbour Street \[1\]/);
    expect(nothing.markdown.slice(0, nothing.sources[0].end)).toMatch(/> CORNER LAMP SHOP \[1\]$/);
    expect(nothing.sources.map((s) => s.reference)).toEqual([ref('Your image', 1, 'CORNER LAMP SHOP')]);
    expect(readingReply([image('  ')], 'What does it say?', embed, true, true)!.sources).toEqual([]);
  });

  it('keeps the file name and the passage as data (not escaped), the passage cut to the description limit', () => {
    const long = `Total due ${'and more words '.repeat(30).trim()}.`;
    const reply = readingReply([pdf('<b>*x*</b>.pdf', [long])], 'total', embed, true, true)!;
    const [source] = reply.sources.map((s) => s.reference);
    expect(source.title).toBe('<b>*x*</b>.pdf');
    expect(Array.from(source.description!).length).toBeLessThanOrEqual(DESCRIPTION_CHARS);
    expect(Array.from(source.description!).length).toBeGreaterThan(DESCRIPTION_CHARS - 5);
    expect(source.description!.endsWith('…')).toBe(true);
    expect(long.startsWith(source.description!.slice(0, -1))).toBe(true);
  });
});

describe('parley-local with documents', () => {
  const receipt = [image(RECEIPT)];

  it('answers a question about an attached image with the line holding the total, the same every time', async () => {
    const req = () => request([userEntry([{ type: 'text', text: 'What is the total on this receipt?' }, IMAGE_CHUNK])], { documents: receipt });
    const first = await collect(engine, req());
    expect(first.error).toBeUndefined();
    expect(first.text).toMatch(/^Page 1 of your image says:\n\n> TOTAL 42\.50\n\n/);
    expect(first.text).not.toContain('cannot really answer');
    expect((await collect(engine, req())).text).toBe(first.text);
  });

  it('cites the page it quotes when the caller cites: [1] in the text, then one reference, the same every time', async () => {
    const req = () => request([userEntry([{ type: 'text', text: 'What is the total on this receipt?' }, IMAGE_CHUNK])], { documents: receipt, cites: true });
    const first = await collect(engine, req());
    expect(first.text).toMatch(/^Page 1 of your image says:\n\n> TOTAL 42\.50 \[1\]\n\nI quoted/);
    expect(first.references).toEqual([{ type: 'tool_reference', tool: 'attachment', title: 'Your image', url: null, description: 'TOTAL 42.50', page: 1 }]);
    // the reference comes after the text and before the usage
    expect(first.events.map((e) => e.kind).slice(-2)).toEqual(['reference', 'usage']);
    expect(await collect(engine, req())).toMatchObject({ text: first.text, references: first.references });
    // not asked to cite (chat completions): no number, no reference
    const bare = await collect(engine, request([userEntry([{ type: 'text', text: 'What is the total on this receipt?' }, IMAGE_CHUNK])], { documents: receipt }));
    expect(bare.text).toMatch(/^Page 1 of your image says:\n\n> TOTAL 42\.50\n\n/);
    expect(bare.references).toEqual([]);
  });

  it('cites a follow-up answer, and nothing in JSON mode', async () => {
    const history = [userEntry([{ type: 'text', text: 'What is the total?' }, IMAGE_CHUNK]), assistantEntry('…')];
    const followUp = await collect(engine, request([...history, userEntry('And the VAT?')], { documents: receipt, cites: true }));
    expect(followUp.text).toContain('> VAT 4.00 [1]');
    expect(followUp.references).toMatchObject([{ title: 'Your image', description: 'VAT 4.00', page: 1 }]);
    const json = await collect(engine, request([userEntry([{ type: 'text', text: 'What is the total?' }, IMAGE_CHUNK])], {
      documents: receipt, cites: true, completionArgs: { response_format: { type: 'json_object' } },
    }));
    expect(JSON.parse(json.text).reply).toBe('Page 1 of your image says: "TOTAL 42.50"');
    expect(json.references).toEqual([]);
  });

  it('cites only a source whose number was streamed (stop sequences, max_tokens), after a handoff\'s greeting too', async () => {
    const sales = { id: 'ag_sales', name: 'Sales' };
    const history = [userEntry([{ type: 'text', text: 'What is the total on this receipt?' }, IMAGE_CHUNK]), handoffEntry({ id: 'ag_front', name: 'Front desk' }, sales)];
    const ask = (completionArgs: object) => collect(engine, request(history, { documents: receipt, cites: true, agent: sales, completionArgs }));
    const whole = await ask({});
    expect(whole.text).toMatch(/^You've been handed over from \*\*Front desk\*\*\.\n\nPage 1 of your image says:\n\n> TOTAL 42\.50 \[1\]\n\n/);
    expect(whole.references).toHaveLength(1);
    const upToNumber = await ask({ stop: '\n\nI quoted' });
    expect(upToNumber.text.endsWith('> TOTAL 42.50 [1]')).toBe(true);
    expect(upToNumber.references).toHaveLength(1);
    const beforeNumber = await ask({ stop: ' [1]' });
    expect(beforeNumber.text.endsWith('> TOTAL 42.50')).toBe(true);
    expect(beforeNumber.references).toEqual([]);
    expect((await ask({ max_tokens: 5 })).references).toEqual([]);
  });

  it('uses the embedding it is given', async () => {
    const calls: string[][] = [];
    const spying = createLocalChatEngine({ embed: (texts) => { calls.push([...texts]); return embed(texts); } });
    await collect(spying, request([userEntry([{ type: 'text', text: 'What is the total?' }, IMAGE_CHUNK])], { documents: receipt }));
    expect(calls[0][0]).toBe('total');
    expect(calls[0]).toContain('TOTAL 42.50');
  });

  it('answers JSON mode with the quote as the reply', async () => {
    const out = await collect(engine, request([userEntry([{ type: 'text', text: 'What is the total?' }, IMAGE_CHUNK])], {
      documents: receipt, completionArgs: { response_format: { type: 'json_object' } },
    }));
    expect(JSON.parse(out.text).reply).toBe('Page 1 of your image says: "TOTAL 42.50"');
  });

  it('answers a follow-up without attachments from the earlier ones, and other messages as before', async () => {
    const history = [userEntry([{ type: 'text', text: 'What is the total?' }, IMAGE_CHUNK]), assistantEntry('…')];
    const followUp = await collect(engine, request([...history, userEntry('And the VAT?')], { documents: receipt }));
    expect(followUp.text).toContain('> VAT 4.00');
    const other = await collect(engine, request([...history, userEntry('Show me a table')], { documents: receipt }));
    expect(other.text).toContain('| # | Word | Letters |');
  });

  it('answers from the attachments before calling a tool the message does not name, and calls a named one', async () => {
    const tools = [fnTool('get_weather', 'Get the current weather for a city', { type: 'object', properties: { city: { type: 'string' } } })];
    const asked = await collect(engine, request([userEntry([{ type: 'text', text: 'What is the total on this receipt?' }, IMAGE_CHUNK])], { documents: receipt, tools }));
    expect(asked.calls).toEqual([]);
    expect(asked.text).toContain('> TOTAL 42.50');
    const named = await collect(engine, request([userEntry([{ type: 'text', text: 'Call get_weather for Paris' }, IMAGE_CHUNK])], { documents: receipt, tools }));
    expect(named.calls.map((c) => c.name)).toEqual(['get_weather']);
  });

  it('is marked as reading documents and as a vision model', () => {
    expect(engine.readsDocuments).toBe(true);
    expect(engine.models()[0].capabilities.vision).toBe(true);
  });
});
