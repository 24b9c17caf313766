/**
 * What an uploaded file is, by its first bytes (magic numbers; names and declared types are not
 * trusted). The relay lets through the containers the platform family takes and refuses the rest
 * (an HTML page or an executable named `.wav`) before the platform spends anything on it; whether
 * the codec inside is supported stays the platform's answer.
 */

/** Bytes needed to decide on audio: every signature below fits in 12 (a shorter file is judged on what it has). */
export const AUDIO_SNIFF_BYTES = 16;
/** Bytes needed to decide on a document (a PDF header may come anywhere in the first 1024 bytes). */
export const DOCUMENT_SNIFF_BYTES = 1024;

/** Audio containers the relay passes to transcription. */
export type AudioKind = 'wav' | 'mp3' | 'ogg' | 'flac' | 'webm' | 'mp4' | 'aac' | 'aiff';

/** Documents the relay passes to OCR. */
export type DocumentKind = 'pdf' | 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'tiff' | 'avif';

/** Audio containers, as named in 415 messages. */
export const AUDIO_KINDS = 'WAV, MP3, Ogg, FLAC, WebM/Matroska, MP4/M4A, AAC (ADTS) or AIFF';
/** OCR inputs, as named in 415 messages. */
export const DOCUMENT_KINDS = 'PDF, PNG, JPEG, GIF, WebP, BMP, TIFF or AVIF';

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

/** The audio container of a file's first bytes, or undefined when it is none of {@link AudioKind}. */
export function sniffAudio(b: Uint8Array): AudioKind | undefined {
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WAVE') return 'wav';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RF64' && ascii(b, 8, 4) === 'WAVE') return 'wav';
  if (b.length >= 4 && ascii(b, 0, 4) === 'OggS') return 'ogg';
  if (b.length >= 4 && ascii(b, 0, 4) === 'fLaC') return 'flac';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'webm';
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp') return 'mp4';
  if (b.length >= 12 && ascii(b, 0, 4) === 'FORM' && /^AIF[FC]$/.test(ascii(b, 8, 4))) return 'aiff';
  if (b.length >= 3 && ascii(b, 0, 3) === 'ID3') return 'mp3';
  if (b.length >= 4 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) {
    // MPEG audio frame (layer bits 01–11; bitrate index not 1111) or AAC ADTS (layer bits 00).
    if ((b[1]! & 0x06) !== 0 && (b[2]! & 0xf0) !== 0xf0) return 'mp3';
    if ((b[1]! & 0xf6) === 0xf0) return 'aac';
  }
  return undefined;
}

/** The document kind of a file's first bytes, or undefined when it is no PDF or image of {@link DocumentKind}. */
export function sniffDocument(b: Uint8Array): DocumentKind | undefined {
  if (ascii(b, 0, DOCUMENT_SNIFF_BYTES).includes('%PDF-')) return 'pdf';
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG' && b[4] === 0x0d && b[5] === 0x0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(ascii(b, 0, 6))) return 'gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'webp';
  if (b.length >= 14 && ascii(b, 0, 2) === 'BM') return 'bmp';
  if (b.length >= 4 && (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*')) return 'tiff';
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp' && /^avi[fs]$/.test(ascii(b, 8, 4))) return 'avif';
  return undefined;
}
