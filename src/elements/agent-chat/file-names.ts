/**
 * File names as `<agent-chat>` shows and sends them: the composer's chips, `document_name`, and the documents
 * of sent messages in the transcript (whose names come back from the server, so are untrusted too).
 */

/** Longest file name shown or sent (in characters; the extension is kept). */
export const MAX_NAME_LENGTH = 120;

/**
 * A file name safe to show and to send as `document_name`: control characters, bidirectional overrides and
 * isolates (which can make `gpj.exe` read `exe.jpg`) and other invisible format characters removed, runs of
 * white space made one space, and a long name shortened with its extension kept. Never empty.
 * Markup in a name stays text: the element renders names through Lit text bindings only.
 */
export function safeFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  let clean = name.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g, '')
    .replace(/\s+/g, ' ').trim();
  if (!clean) clean = 'file';
  const chars = [...clean];
  if (chars.length <= MAX_NAME_LENGTH) return clean;
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= 10 ? clean.slice(dot) : '';
  return `${chars.slice(0, MAX_NAME_LENGTH - [...extension].length - 1).join('').trimEnd()}…${extension}`;
}
