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
 *
 * **Sources.** When the caller cites (`cite`: conversations), each quoted passage is followed by the number of its
 * source, `> TOTAL 42.50 [1]` (libraryReply's style), and the reply carries one {@link SourceReference} per source: a
 * source is a page of an attachment, numbered in the order the reply quotes them, so passages of the same page share
 * a number (as `<agent-chat>` numbers references: same title and page, one number). The reference is
 * `{type: "tool_reference", tool: "attachment", title, url: null, description, page}`: `title` the attachment's
 * file name (`document_name`), else how the reply names it ("Your image", "Image 2", "Your PDF", "PDF 2");
 * `description` the page's first passage quoted (its best), cut to {@link DESCRIPTION_CHARS}; `page` from 1.
 * Without `cite` the text has no markers and there are no references (chat completions' content is text).
 */
import type { ReadDocument, SourceReference } from './types.js';
import { documentPassages, queryOf, rankPassages, type Embed, type RankedPassage } from './passages.js';

/** Passages scoring at least this share of the best one are quoted too. */
export const KEEP_RATIO = 0.85;
/** Most passages quoted in one reply. */
export const MAX_QUOTES = 3;
/** Least score for answering a message without attachments from earlier ones. */
export const FOLLOW_UP_MIN_SCORE = 0.25;
/** Passages quoted when there is no question (or nothing matches it): the beginning of the first document. */
const OPENING_QUOTES = 3;
/** The `tool` of the references to attachments. */
export const ATTACHMENT_REFERENCE_TOOL = 'attachment';
/** A reference's description (the passage) is cut to this many characters (as the library's). */
export const DESCRIPTION_CHARS = 300;

/** A source of the reply and where in `markdown` its number first stands (the offset just after it). */
export interface CitedSource { end: number; reference: SourceReference }

export interface ReadingReply {
  markdown: string;
  /** The reply as plain text, without source numbers (for JSON replies). */
  plain: string;
  /** The sources quoted, in the order of their numbers; empty without `cite`. */
  sources: CitedSource[];
}

/** `sources` with their offsets moved by `by` characters (text put before the reply). */
export function shiftSources(sources: readonly CitedSource[], by: number): CitedSource[] {
  return sources.map((s) => ({ end: s.end + by, reference: s.reference }));
}

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

/** How an attachment is titled in its references: its file name, else its label ("Your image", "PDF 2"). */
function sourceTitle(documents: readonly ReadDocument[], index: number): string {
  const name = documents[index].name ? collapse(documents[index].name!, 200) : '';
  if (name) return name;
  const label = documentLabel(documents, index).plain;
  return `${label[0].toUpperCase()}${label.slice(1)}`;
}

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/**
 * The quotes grouped by document and page, groups in the order their best passage ranks; with `cite`, each quote
 * followed by its group's number and one source per group.
 */
function quoteGroups(documents: readonly ReadDocument[], quotes: readonly RankedPassage[], verb: string, cite: boolean): ReadingReply {
  const groups: Array<{ key: string; document: number; page: number; texts: string[] }> = [];
  for (const q of quotes) {
    const key = `${q.document}:${q.page}`;
    const group = groups.find((g) => g.key === key);
    if (group) group.texts.push(q.text);
    else groups.push({ key, document: q.document, page: q.page, texts: [q.text] });
  }
  let markdown = '';
  const plain: string[] = [];
  const sources: CitedSource[] = [];
  groups.forEach((g, i) => {
    const label = documentLabel(documents, g.document);
    const mark = cite ? ` [${i + 1}]` : '';
    markdown += `${i ? '\n\n' : ''}Page ${g.page + 1} of ${label.markdown} ${verb}:\n\n`;
    g.texts.forEach((t, j) => {
      markdown += `${j ? '\n>\n' : ''}> ${escapeMarkdown(t)}${mark}`;
      if (cite && j === 0) {
        sources.push({
          end: markdown.length,
          reference: {
            type: 'tool_reference', tool: ATTACHMENT_REFERENCE_TOOL, title: sourceTitle(documents, g.document), url: null,
            description: cut(t, DESCRIPTION_CHARS), page: g.page + 1,
          },
        });
      }
    });
    plain.push(`Page ${g.page + 1} of ${label.plain} ${verb}: ${g.texts.map((t) => `"${t}"`).join(' ')}`);
  });
  return { markdown, plain: plain.join(' '), sources };
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
 * attachments (`attachedNow` false) and no passage is close enough to answer a follow-up question. With `cite`,
 * the quotes carry their source's number and the reply its sources.
 */
export function readingReply(
  documents: readonly ReadDocument[], question: string, embed: Embed, attachedNow: boolean, cite = false,
): ReadingReply | null {
  if (!documents.length) return null;
  const passages = documentPassages(documents);
  const notes = partialNotes(documents);
  const finish = (body: ReadingReply, closing: string): ReadingReply => ({
    markdown: [body.markdown, ...notes, closing].filter(Boolean).join('\n\n'),
    plain: [body.plain, ...notes].filter(Boolean).join(' '),
    sources: body.sources,
  });
  const what = documents.length === 1 ? documentLabel(documents, 0) : { markdown: 'your attachments', plain: 'your attachments' };

  if (!passages.length) {
    if (!attachedNow) return null;
    const text = `I could not find any text in ${what.markdown}.`;
    return finish({ markdown: text, plain: `I could not find any text in ${what.plain}.`, sources: [] }, '');
  }
  const opening = () => passages.filter((p) => p.document === passages[0].document).slice(0, OPENING_QUOTES).map((p) => ({ ...p, matched: 0, score: 0 }));
  const closing = 'I quoted the passages closest to your question: `parley-local` reads attachments and ranks their passages by the words they share with it, without interpreting them.';

  if (!question.trim()) {
    if (!attachedNow) return null;
    return finish(quoteGroups(documents, opening(), 'begins', cite), 'Ask a question about it and I will quote the passages closest to it.');
  }
  const ranked = rankPassages(passages, queryOf(question, documents.flatMap((d) => (d.name ? [d.name] : []))), embed);
  const best = ranked[0];
  if (!attachedNow && best.score < FOLLOW_UP_MIN_SCORE) return null;
  if (best.score <= 0) {
    const head = `Nothing in ${what.markdown} shares words with your question.\n\n`;
    const quoted = quoteGroups(documents, opening(), 'begins', cite);
    return finish({
      markdown: `${head}${quoted.markdown}`,
      plain: `Nothing in ${what.plain} shares words with your question. ${quoted.plain}`,
      sources: shiftSources(quoted.sources, head.length),
    }, '');
  }
  const quotes = ranked.filter((p) => p.matched === best.matched && p.score >= best.score * KEEP_RATIO).slice(0, MAX_QUOTES);
  return finish(quoteGroups(documents, quotes, 'says', cite), closing);
}
