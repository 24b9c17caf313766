/**
 * What an upload is, from its purpose, name and bytes: `mimetype`, `num_lines`, `sample_type`, and whether
 * it is acceptable for its purpose. As the real service answers: `ocr` files are `ocr_input` with
 * `num_lines: 0`; `batch` files are JSONL requests (`batch_request`); `fine-tune` files must be JSONL whose
 * records are chat samples (`messages` → `instruct`) or plain text (`text` → `pretrain`).
 */
import { getMimeType } from 'hono/utils/mime';

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

/** Why a JSONL file is not usable for `purpose`, or its sample type. */
function jsonlSampleType(text: string, purpose: 'fine-tune' | 'batch'): { sampleType: string } | { error: string } {
  const lines = text.split(/\r?\n/);
  let first: Record<string, unknown> | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(lines[i]);
    } catch {
      return { error: `Line ${i + 1} is not valid JSON; ${purpose} files must be JSONL (one JSON object per line)` };
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return { error: `Line ${i + 1} is not a JSON object` };
    if (purpose === 'batch' && !('body' in record)) return { error: `Line ${i + 1} has no "body"; batch files hold one request per line ({"custom_id", "body"})` };
    first ??= record as Record<string, unknown>;
  }
  if (!first) return { error: `The file has no records; ${purpose} files must be JSONL (one JSON object per line)` };
  if (purpose === 'batch') return { sampleType: 'batch_request' };
  if (Array.isArray(first.messages)) return { sampleType: 'instruct' };
  if (typeof first.text === 'string') return { sampleType: 'pretrain' };
  return { error: 'Line 1 is neither a chat sample ({"messages": […]}) nor a pretraining sample ({"text": "…"})' };
}

/** Describes an upload, or says why it does not fit its purpose (→ 422). */
export function describeUpload(purpose: FilePurpose, filename: string, partType: string, bytes: Uint8Array): FileDescription | { error: string } {
  const mimetype = mimetypeOf(filename, partType);
  if (purpose === 'ocr') return { mimetype, numLines: 0, sampleType: 'ocr_input' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: `${purpose} files must be UTF-8 JSONL text` };
  }
  const kind = jsonlSampleType(text, purpose);
  if ('error' in kind) return kind;
  return { mimetype, numLines: text.split(/\r?\n/).filter((l) => l.trim()).length, sampleType: kind.sampleType };
}
