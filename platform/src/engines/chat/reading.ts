/**
 * `parley-local`'s answers about attachments: the passages of the read attachments closest to the question
 * (passages.ts), quoted with the page they are on. It interprets nothing: it quotes.
 *
 * - The last user message has attachments: the reply quotes the best passage and the others with as many of the
 *   question's words and scoring at least {@link KEEP_RATIO} of it (at most {@link MAX_QUOTES}), grouped by page in rank order ("Page 2 of **handbook.pdf**
 *   says: > …"; an image is "Page 1 of your image"). Without a question it quotes the beginning; with nothing in
 *   common with the question it says so and quotes the beginning; with no text at all it says it found none.
 * - A later message without attachments is answered from the earlier attachments only when a passage scores at
 *   least {@link FOLLOW_UP_MIN_SCORE} (otherwise the engine's other replies apply).
 *
 * Passage text and file names are untrusted: they are quoted with markdown's special characters escaped.
 */
import type { ReadDocument } from './types.js';
import { documentPassages, queryOf, rankPassages, type Embed, type RankedPassage } from './passages.js';

/** Passages scoring at least this share of the best one are quoted too. */
export const KEEP_RATIO = 0.85;
/** Most passages quoted in one reply. */
export const MAX_QUOTES = 3;
/** Least score for answering a message without attachments from earlier ones. */
export const FOLLOW_UP_MIN_SCORE = 0.25;
/** Passages quoted when there is no question (or nothing matches it): the beginning of the first document. */
const OPENING_QUOTES = 3;

export interface ReadingReply { markdown: string; plain: string }

/** Text as literal markdown inside a quote: inline markers escaped, and a leading block marker. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_[\]<>|~]/g, '\\$&')
    .replace(/^([#+\-=])/u, '\\$1')
    .replace(/^(\d+)([.)])/u, '$1\\$2');
}

function collapse(text: string, max = 80): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(t);
  return chars.length <= max ? t : `${chars.slice(0, max - 1).join('')}…`;
}

/** How a document is named in the reply: its file name, or "your image" / "image 2" / "your PDF" / "PDF 2". */
function documentLabel(documents: readonly ReadDocument[], index: number): { markdown: string; plain: string } {
  const doc = documents[index];
  const name = doc.name ? collapse(doc.name) : '';
  if (name) return { markdown: `**${escapeMarkdown(name)}**`, plain: name };
  const same = documents.filter((d) => d.kind === doc.kind && !d.name);
  const noun = doc.kind === 'image' ? 'image' : 'PDF';
  const label = same.length === 1 ? `your ${noun}` : `${noun} ${same.indexOf(doc) + 1}`;
  return { markdown: label, plain: label };
}

/** The quotes grouped by document and page, groups in the order their best passage ranks. */
function quoteGroups(documents: readonly ReadDocument[], quotes: readonly RankedPassage[], verb: string): ReadingReply {
  const groups: Array<{ key: string; document: number; page: number; texts: string[] }> = [];
  for (const q of quotes) {
    const key = `${q.document}:${q.page}`;
    const group = groups.find((g) => g.key === key);
    if (group) group.texts.push(q.text);
    else groups.push({ key, document: q.document, page: q.page, texts: [q.text] });
  }
  const markdown: string[] = [];
  const plain: string[] = [];
  for (const g of groups) {
    const label = documentLabel(documents, g.document);
    markdown.push(`Page ${g.page + 1} of ${label.markdown} ${verb}:\n\n${g.texts.map((t) => `> ${escapeMarkdown(t)}`).join('\n>\n')}`);
    plain.push(`Page ${g.page + 1} of ${label.plain} ${verb}: ${g.texts.map((t) => `"${t}"`).join(' ')}`);
  }
  return { markdown: markdown.join('\n\n'), plain: plain.join(' ') };
}

/** Notes on documents read only in part. */
function partialNotes(documents: readonly ReadDocument[]): string[] {
  return documents.flatMap((doc, i) => {
    if (doc.pageCount <= doc.pages.length) return [];
    const label = documentLabel(documents, i);
    return [`(I read the first ${doc.pages.length} of the ${doc.pageCount} pages of ${label.plain}.)`];
  });
}

/**
 * The reply about `documents` to `question` (the last user message's text), or null when the message has no
 * attachments (`attachedNow` false) and no passage is close enough to answer a follow-up question.
 */
export function readingReply(documents: readonly ReadDocument[], question: string, embed: Embed, attachedNow: boolean): ReadingReply | null {
  if (!documents.length) return null;
  const passages = documentPassages(documents);
  const notes = partialNotes(documents);
  const finish = (body: ReadingReply, closing: string): ReadingReply => ({
    markdown: [body.markdown, ...notes, closing].filter(Boolean).join('\n\n'),
    plain: [body.plain, ...notes].filter(Boolean).join(' '),
  });
  const what = documents.length === 1 ? documentLabel(documents, 0) : { markdown: 'your attachments', plain: 'your attachments' };

  if (!passages.length) {
    if (!attachedNow) return null;
    const text = `I could not find any text in ${what.markdown}.`;
    return finish({ markdown: text, plain: `I could not find any text in ${what.plain}.` }, '');
  }
  const opening = () => passages.filter((p) => p.document === passages[0].document).slice(0, OPENING_QUOTES).map((p) => ({ ...p, matched: 0, score: 0 }));
  const closing = 'I quoted the passages closest to your question: `parley-local` reads attachments and ranks their passages by the words they share with it, without interpreting them.';

  if (!question.trim()) {
    if (!attachedNow) return null;
    return finish(quoteGroups(documents, opening(), 'begins'), 'Ask a question about it and I will quote the passages closest to it.');
  }
  const ranked = rankPassages(passages, queryOf(question, documents.flatMap((d) => (d.name ? [d.name] : []))), embed);
  const best = ranked[0];
  if (!attachedNow && best.score < FOLLOW_UP_MIN_SCORE) return null;
  if (best.score <= 0) {
    const head = `Nothing in ${what.markdown} shares words with your question.`;
    const quoted = quoteGroups(documents, opening(), 'begins');
    return finish({ markdown: `${head}\n\n${quoted.markdown}`, plain: `Nothing in ${what.plain} shares words with your question. ${quoted.plain}` }, '');
  }
  const quotes = ranked.filter((p) => p.matched === best.matched && p.score >= best.score * KEEP_RATIO).slice(0, MAX_QUOTES);
  return finish(quoteGroups(documents, quotes, 'says'), closing);
}
