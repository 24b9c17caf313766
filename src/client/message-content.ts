/**
 * The text of message content as the client and the local platform read it: the text chunks of a message, optionally with the text
 * inside its thinking chunks; images, documents and other chunks carry no text. Typed entries and request bodies
 * read loosely (a chunk is only known to have a `type`) go through the same functions.
 */

/** A content chunk as far as its text goes: a typed chunk (`InputContentChunk`, `OutputContentChunk`) or one read loosely. */
interface ContentChunk { readonly type: string; readonly text?: unknown; readonly thinking?: unknown }

/** Message content: a string or content chunks. */
export type MessageContent = string | readonly ContentChunk[];

/** The texts of the text chunks of `content`, in order (with the texts inside thinking chunks when `withThinking`). */
export function textChunks(content: MessageContent, withThinking = false): string[] {
  if (typeof content === 'string') return [content];
  const parts: string[] = [];
  for (const chunk of content) {
    if (chunk.type === 'text' && typeof chunk.text === 'string') parts.push(chunk.text);
    else if (withThinking && chunk.type === 'thinking' && Array.isArray(chunk.thinking)) parts.push(...textChunks(chunk.thinking));
  }
  return parts;
}

/** The text of message content: text chunks joined (and the text inside thinking chunks when `withThinking`); none → ''. */
export function contentText(content: MessageContent | null | undefined, withThinking = false): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return textChunks(content, withThinking).join('');
}

/** Whether a message to send holds nothing: blank text and no chunk but blank text chunks. */
export function isBlankMessage(content: MessageContent): boolean {
  if (typeof content === 'string') return !content.trim();
  return content.every((chunk) => chunk.type === 'text' && !(typeof chunk.text === 'string' && chunk.text.trim()));
}

/**
 * `content` with its words replaced by `text`: a string stays a string; chunks keep everything but their text
 * chunks (the attachments of an edited message go with it again), `text` first.
 */
export function withText<C extends { readonly type: string }>(content: string | readonly C[], text: string): string | Array<C | { type: 'text'; text: string }> {
  if (typeof content === 'string') return text;
  const rest = content.filter((chunk) => chunk.type !== 'text');
  return rest.length ? [{ type: 'text', text }, ...rest] : text;
}
