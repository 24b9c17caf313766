/**
 * The rules `<agent-chat>` checks attachments against before anything is sent: how many, how big, which
 * types; and file names made safe to show. Pure functions (no DOM, no Lit), loaded with the attachment
 * code on the visitor's first attachment.
 *
 * A file's type is its browser-given media type, else the one its name's extension stands for; the relay
 * checks the bytes themselves against the declared type (magic numbers) before the platform sees them.
 */

/** The limits of `<agent-chat>`'s `max-attachments`, `max-attachment-bytes` and `attachment-types`. */
export interface AttachmentLimits {
  /** Files per message. */
  maxCount: number;
  /** Bytes per file. */
  maxBytes: number;
  /** Accepted media types (`image/png`) or families (`image/*`). */
  types: readonly string[];
}

/** Why a file was not taken: too big (`limit` in bytes), of a type not accepted, or one file too many (`limit` files). */
export type AttachmentRefusal =
  | { kind: 'too-large'; name: string; size: number; limit: number }
  | { kind: 'type'; name: string; types: string }
  | { kind: 'too-many'; name: string; limit: number };

/** Media types by file name extension, for files the browser gave no type. */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf',
  avif: 'image/avif', bmp: 'image/bmp', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic',
};

/** The media type of a file: the browser's, else its extension's, else '' (lower-cased, without parameters). */
export function mediaTypeOf(file: { name: string; type: string }): string {
  const given = file.type.split(';')[0]!.trim().toLowerCase();
  if (given) return given;
  const extension = /\.([a-z0-9]{1,5})$/i.exec(file.name)?.[1]?.toLowerCase() ?? '';
  return BY_EXTENSION[extension] ?? '';
}

/** Whether `type` is one of `types` (`image/*` takes every `image/…`). */
export function typeAccepted(type: string, types: readonly string[]): boolean {
  if (!type) return false;
  return types.some((t) => t === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))));
}

/** `attachment-types` as a list: split on commas and white space, lower-cased, blanks dropped. */
export function parseTypes(value: string): string[] {
  return value.split(/[\s,]+/).map((t) => t.trim().toLowerCase()).filter((t) => /^[a-z0-9.+-]+\/(\*|[a-z0-9.+-]+)$/.test(t));
}

/** A short name of a media type for people: `PNG`, `JPEG`, `PDF`, `image/*` as it is. */
export function typeLabel(type: string): string {
  const sub = type.split('/')[1] ?? '';
  if (!sub || sub === '*') return type;
  return sub.replace(/^x-/, '').replace(/\+.*$/, '').toUpperCase();
}

/**
 * Which of `files` can join the `present` attachments under `limits`: files are taken in order; a file too
 * big or of a refused type is refused, and so is each one past the count. Names are shown and sent as
 * `safeName` makes them (file-names.ts' `safeFileName`, passed in by the tray).
 */
export function checkAttachments<F extends { name: string; type: string; size: number }>(
  files: readonly F[], present: number, limits: AttachmentLimits, safeName: (name: string) => string,
): { accepted: Array<{ file: F; name: string; type: string }>; refused: AttachmentRefusal[] } {
  const accepted: Array<{ file: F; name: string; type: string }> = [];
  const refused: AttachmentRefusal[] = [];
  for (const file of files) {
    const name = safeName(file.name);
    const type = mediaTypeOf(file);
    if (!typeAccepted(type, limits.types)) refused.push({ kind: 'type', name, types: limits.types.map(typeLabel).join(', ') });
    else if (file.size > limits.maxBytes) refused.push({ kind: 'too-large', name, size: file.size, limit: limits.maxBytes });
    else if (present + accepted.length >= limits.maxCount) refused.push({ kind: 'too-many', name, limit: limits.maxCount });
    else accepted.push({ file, name, type });
  }
  return { accepted, refused };
}
