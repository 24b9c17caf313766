/**
 * The models the client (and so the four elements) asks for when a page names none: a relay whose
 * policy should let the elements work as shipped allows these (`parley start` does).
 */
import { DEFAULT_OCR_MODEL } from './ocr.js';
import { DEFAULT_REALTIME_MODEL } from './realtime.js';
import { DEFAULT_TRANSCRIPTION_MODEL } from './transcription.js';

export { DEFAULT_OCR_MODEL, DEFAULT_REALTIME_MODEL, DEFAULT_TRANSCRIPTION_MODEL };

/** File transcription, realtime transcription and OCR defaults (speech and chat have none: the platform's default voice, the page's agent or model). */
export const DEFAULT_MODELS: readonly string[] = [DEFAULT_TRANSCRIPTION_MODEL, DEFAULT_REALTIME_MODEL, DEFAULT_OCR_MODEL];
