/**
 * What an upload is, from its purpose, name and bytes: `mimetype`, `num_lines`, `sample_type`, and whether
 * it is acceptable for its purpose. As the real service answers: `ocr` files are `ocr_input` with
 * `num_lines: 0`; `batch` files are JSONL requests (`batch_request`); `fine-tune` files must be JSONL whose
 * records are chat samples (`messages` → `instruct`) or plain text (`text` → `pretrain`). Lines are judged
 * as the file streams in (jsonl-scan.ts).
 */
import { getMimeType } from 'hono/utils/mime';
import { MAX_JSONL_LINE_BYTES, type BadLine, type JsonlFacts } from './jsonl-scan.js';

/** Purposes of `POST /v1/files` (the SDK's FilePurpose). */
export const FILE_PURPOSES = ['fine-tune', 'batch', 'ocr'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** Types hono's table lacks. */
const EXTRA_TYPES: Record<string, string> = { jsonl: 'application/jsonl', wav: 'audio/wav' };

export interface FileDescription { mimetype: string | null; numLines: number; sampleType: string }

/** The upload's type: the part's own unless generic, else from the file name's extension. */
export function mimetypeOf(filename: string, partType: string): string | null {
  const declared = partType.split(';')[0].trim().toLowerCase();
  if (declared && declared !== 'application/octet-stream') return declared;
  const ext = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return (ext && (EXTRA_TYPES[ext] ?? getMimeType(filename))) || declared || null;
}

/** The 422 sentence for a line that does not fit `purpose`. */
function badLineError(bad: BadLine, purpose: 'fine-tune' | 'batch'): string {
  switch (bad.why) {
    case 'json': return `Line ${bad.line} is not valid JSON; ${purpose} files must be JSONL (one JSON object per line)`;
    case 'object': return `Line ${bad.line} is not a JSON object`;
    case 'long': return `Line ${bad.line} is longer than ${MAX_JSONL_LINE_BYTES} bytes; ${purpose} files must be JSONL (one JSON object per line)`;
    case 'body': return `Line ${bad.line} has no "body"; batch files hold one request per line ({"custom_id", "body"})`;
  }
}

/**
 * Describes an upload from what its scan found (jsonl-scan.ts, fed while the file streamed), or says why
 * it does not fit its purpose (→ 422).
 */
export function describeScanned(purpose: FilePurpose, filename: string, partType: string, facts: JsonlFacts): FileDescription | { error: string } {
  const mimetype = mimetypeOf(filename, partType);
  if (purpose === 'ocr') return { mimetype, numLines: 0, sampleType: 'ocr_input' };
  if (facts.notUtf8) return { error: `${purpose} files must be UTF-8 JSONL text` };
  const bad = purpose === 'batch' ? facts.firstBadBatch : facts.firstBad;
  if (bad) return { error: badLineError(bad, purpose) };
  if (!facts.first) return { error: `The file has no records; ${purpose} files must be JSONL (one JSON object per line)` };
  const described = (sampleType: string) => ({ mimetype, numLines: facts.lines, sampleType });
  if (purpose === 'batch') return described('batch_request');
  if (facts.first === 'messages') return described('instruct');
  if (facts.first === 'text') return described('pretrain');
  return { error: 'Line 1 is neither a chat sample ({"messages": […]}) nor a pretraining sample ({"text": "…"})' };
}
