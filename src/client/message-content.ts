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
