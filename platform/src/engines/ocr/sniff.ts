/** What a document's bytes are (a PDF or a raster image), read from its first bytes, not from a declared media type. */
import type { OcrInput } from './types.js';

/** What the bytes are, by their first bytes; undefined when neither a PDF nor a supported image. */
export function sniffDocument(bytes: Uint8Array): OcrInput['kind'] | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  if (head.includes('%PDF-')) return 'pdf';
  const b = bytes;
  if (b[0] === 0x89 && head.startsWith('\x89PNG')) return 'image';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image';
  if (head.startsWith('GIF8') || head.startsWith('BM') || (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP')) return 'image';
  return undefined;
}
